"""An arena on HTTP, the same way for every server: the bound socket and bearer token (`exposure`),
Host and Origin checks (`hosts`) and what one connection may hold (`connections`, `connection_guard`)."""
