"""Parts of models trained across environments (InvRat): environment-aware heads, the straight-through
selector and the invariance penalty."""
from pyhighlights.components import environment_heads as heads
from pyhighlights.registry import register

register("environment_head", "input_onehot", heads.EnvironmentHeadConfig, heads.InputOneHotHead)
register("environment_head", "pooled_onehot", heads.EnvironmentHeadConfig, heads.PooledOneHotHead)
register("selector", "straight_through", heads.StraightThroughSelectorConfig, heads.StraightThroughSelector)
register("loss", "invariance", heads.InvarianceConfig, heads.InvarianceTerm)
