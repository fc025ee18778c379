"""Things that play: scripted baselines and the in-process driver."""

from negotiation_platform.agents.base import Agent, Decision, OutgoingMessage
from negotiation_platform.agents.batna_aware import BatnaAwareAgent
from negotiation_platform.agents.concession import ConcessionAgent
from negotiation_platform.agents.driver import play_match
from negotiation_platform.agents.random_agent import RandomAgent

__all__ = ["Agent", "BatnaAwareAgent", "ConcessionAgent", "Decision", "OutgoingMessage", "RandomAgent", "play_match"]
