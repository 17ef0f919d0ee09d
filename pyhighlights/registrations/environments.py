"""Parts of models trained across environments (InvRat): environment-aware heads, the straight-through
selector and the invariance penalty; the aspect adversary, whose environments are the other aspects' disagreement."""
from pyhighlights.components import aspect_adversary as adversary
from pyhighlights.components import environment_heads as heads
from pyhighlights.registry import register

register("environment_head", "input_onehot", heads.EnvironmentHeadConfig, heads.InputOneHotHead)
register("environment_head", "pooled_onehot", heads.EnvironmentHeadConfig, heads.PooledOneHotHead)
register("selector", "straight_through", heads.StraightThroughSelectorConfig, heads.StraightThroughSelector)
register("loss", "invariance", heads.InvarianceConfig, heads.InvarianceTerm)
register("loss", "aspect_adversary", adversary.AspectAdversaryConfig, adversary.AspectAdversaryTerm)
