"""The parts of a seat's turn state that a kernel's table observation reads (`check_kernel`'s helper)."""

from negotiation_platform.testing.kernel_check import seat_turn

__all__ = ["seat_turn"]
