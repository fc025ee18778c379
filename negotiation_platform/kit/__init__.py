"""The game author's kit: `scaffold_game` writes a ready-to-install game package (`negotiation-platform new-game`)."""

from negotiation_platform.kit.scaffold import ScaffoldRefused, scaffold_game

__all__ = ["ScaffoldRefused", "scaffold_game"]
