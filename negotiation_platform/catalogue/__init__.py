"""Every arena operation declared once (`CATALOGUE`), and what is made from it: see `entries`."""

from negotiation_platform.catalogue.answers import Refusal
from negotiation_platform.catalogue.dispatch import checked, entry
from negotiation_platform.catalogue.entries import CATALOGUE, Operation

__all__ = ["CATALOGUE", "Operation", "Refusal", "checked", "entry"]
