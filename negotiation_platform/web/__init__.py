"""The browser pages shipped in the package: the match viewer and the play page (the `view` extra)."""
