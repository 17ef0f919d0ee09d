"""GenSPP (Ruggeri and Signorelli, 2025): its thresholded selector and the model found by genetic search."""
from pyhighlights.components import threshold_selector
from pyhighlights.models.selection import genspp
from pyhighlights.registry import register

register("selector", "threshold", threshold_selector.ThresholdSelectorConfig, threshold_selector.ThresholdSelector)
register("model", "genspp", genspp.GenSPPConfig, genspp.GenSPP)
