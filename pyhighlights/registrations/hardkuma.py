"""HardKuma (Bastings et al., 2019): its gate, its two constraint terms and the model."""
from pyhighlights.components import hardkuma, hardkuma_losses
from pyhighlights.models.selection import hardkuma as hardkuma_model
from pyhighlights.registry import register

register("selector", "hardkuma", hardkuma.HardKumaSelectorConfig, hardkuma.HardKumaSelector)
register("loss", "hardkuma_l0", hardkuma_losses.ExpectedL0Config, hardkuma_losses.ExpectedL0Term)
register("loss", "hardkuma_transitions", hardkuma_losses.ExpectedTransitionsConfig,
         hardkuma_losses.ExpectedTransitionsTerm)
register("model", "hardkuma", hardkuma_model.HardKumaConfig, hardkuma_model.HardKuma)
