"""What an operator sees of a running server: one log line per request, `/healthz` and `/metrics`.

`requests` times and records every operation at the single dispatcher (`operations.run_operation`)
and every request of the browser pages; `logs` prints the records (text or JSON lines), `metrics`
counts them, and `http` answers `/healthz` and `/metrics` beside any HTTP server. A record names the
operation, the match and the seat's agent id, never a token, a context id or a secret.
"""
