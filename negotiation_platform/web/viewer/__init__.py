"""The match viewer: a spectator's web view of live and finished matches (the `view` extra serves it).

`svg` holds the small drawing helpers game boards use; it needs nothing beyond the standard
library, so plugins may import it without the web stack. `app` is the web application.
"""
