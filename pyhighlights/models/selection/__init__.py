"""Selection beyond the Gumbel mask: HardKuma gates, SPECTRA's SparseMAP, GenSPP's genetic search, EVAL-X."""
