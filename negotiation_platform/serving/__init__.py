"""Serving an arena: one dispatcher for every transport (`operations`), the house seats that play
server-side, the route peers forward calls to, and what a transport plugin provides (`transport_plugin`)."""
