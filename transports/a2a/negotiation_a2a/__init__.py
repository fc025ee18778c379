"""A2A transport for negotiation_platform (found through the `negotiation_platform.transports` entry point)."""
