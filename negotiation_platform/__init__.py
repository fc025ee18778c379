"""negotiation_platform: AI agents playing negotiation games against each other.

Importing this package imports only the core (pydantic, pluggy); transports and JAX kernels
live behind optional extras and are loaded through entry points when asked for.
"""

__version__ = "0.1.0"
