"""The SPP family, part 1: FR, DR, MGR, MCD, DAR, MRD (and the KL loss term they use)."""
from pyhighlights.components import losses
from pyhighlights.models import dar, dr, fr, mcd, mgr, mrd
from pyhighlights.registry import register

register("loss", "kl", losses.KLConfig, losses.KLTerm)

register("model", "fr", fr.FRConfig, fr.FR)
register("model", "dr", dr.DRConfig, dr.DR)
register("model", "mgr", mgr.MGRConfig, mgr.MGR)
register("model", "mcd", mcd.MCDConfig, mcd.MCD)
register("model", "dar", dar.DARConfig, dar.DAR)
register("model", "mrd", mrd.MRDConfig, mrd.MRD)
