"""The one edge: what crosses the network is checked here, once (sizes, nesting, numbers a JavaScript
client holds, strict JSON, Unicode text) and which URLs a served arena may contact (`allowlist`).
A leaf: it imports nothing of the platform but `errors`, so every layer may use it."""
