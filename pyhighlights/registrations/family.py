"""The SPP family, part 1: FR, DR, MGR, MCD, DAR, MRD, N2R (and the KL and norm loss terms they use)."""
from pyhighlights.components import losses
from pyhighlights.models.liu_family import dar, dr, fr, mcd, mgr, mrd, n2r
from pyhighlights.registry import register

register("loss", "kl", losses.KLConfig, losses.KLTerm)
register("loss", "representation_norm", losses.RepresentationNormConfig, losses.RepresentationNormTerm)

register("model", "fr", fr.FRConfig, fr.FR)
register("model", "dr", dr.DRConfig, dr.DR)
register("model", "mgr", mgr.MGRConfig, mgr.MGR)
register("model", "mcd", mcd.MCDConfig, mcd.MCD)
register("model", "dar", dar.DARConfig, dar.DAR)
register("model", "mrd", mrd.MRDConfig, mrd.MRD)
register("model", "n2r", n2r.N2RConfig, n2r.N2R)
