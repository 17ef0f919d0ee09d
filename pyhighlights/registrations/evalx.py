"""EVAL-X (Jethani et al., 2021): the evaluator trained on random masks, and a selector trained against it."""
from pyhighlights.models.selection import evalx
from pyhighlights.registry import register

register("model", "evalx", evalx.EVALXConfig, evalx.EVALX)
