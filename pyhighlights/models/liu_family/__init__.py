"""The Liu et al. family (FR, DR, MGR, MCD, DAR, MRD, N2R): RNP-shaped models and what they share."""
