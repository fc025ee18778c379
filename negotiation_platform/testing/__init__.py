"""Tools for game authors: `check_game` plays a game and checks what every game must satisfy;
`check_kernel` plays it against its JAX kernel (needs the jax extra, imported only when it runs).

Imported only when asked for (the core never imports it). Its pytest plugin, registered through
the `pytest11` entry point, offers the same functions as the `check_game` and `check_kernel` fixtures.
"""

from negotiation_platform.testing.checks import GameCheckError, check_game
from negotiation_platform.testing.kernel_check import KernelCheckError, check_kernel

__all__ = ["GameCheckError", "KernelCheckError", "check_game", "check_kernel"]
