"""Trainer settings."""
from pyhighlights.registry import register
from pyhighlights.training import settings

register("trainer", "default", settings.TrainerConfig, settings.TrainerSettings)
