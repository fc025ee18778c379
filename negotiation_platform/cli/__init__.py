"""The `negotiation-platform` command line."""
