"""AdaSociety's negotiation mini-game for negotiation_platform, shipped as a plugin distribution."""

from negotiation_adasociety.config import HARD, AdaSocietyConfig, HardConfig
from negotiation_adasociety.game import AdaSocietyGame, AdaSocietyHardGame

__all__ = ["HARD", "AdaSocietyConfig", "AdaSocietyGame", "AdaSocietyHardGame", "HardConfig"]
