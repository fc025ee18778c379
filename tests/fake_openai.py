"""A small OpenAI-compatible chat-completions endpoint on a real 127.0.0.1 socket, for the LLM agents' tests.

`FakeModel` plays like a model would: it reads the legal actions out of the prompt, prefers
`accept`, and otherwise picks a legal action with a schema-valid payload (its first reply is
malformed unless told otherwise). Subclasses script other behaviour by overriding `reply`, which
answers (status, body) or (status, body, headers), a body being JSON data or raw text; `Failing`
fails the requests it is told to (a timeout, HTTP 500, or a body that is no JSON). `serve` counts
every request the endpoint gets (`calls`) and the most it had in flight at once (`peak`).
"""

from __future__ import annotations

import json
import random
import socket
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from negotiation_platform.agents.payloads import sample_payload

MALFORMED = 'Sure! My move is {"action_type": "propose", "payload": {'
Body = dict[str, Any] | str
Answer = tuple[int, Body] | tuple[int, Body, dict[str, str]]


class FakeModel:
    """Scripted replies: the first is malformed (unless `malformed_first` is off), then a legal move."""

    def __init__(self, json_mode: bool = True, *, malformed_first: bool = True, usage: dict[str, Any] | None = None):
        self.json_mode = json_mode
        self.malformed_first = malformed_first
        self.usage = usage
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.calls = self.in_flight = self.peak = 0

    def reply(self, request: dict[str, Any]) -> Answer:
        if "response_format" in request and not self.json_mode:
            return 400, {"error": {"message": "response_format is not supported", "type": "invalid_request_error"}}
        with self.lock:
            self.requests.append(request)
            first = len(self.requests) == 1
        if first and self.malformed_first:
            return 200, completion(MALFORMED, self.usage)
        prompt = request["messages"][1]["content"]
        actions = json.loads(prompt.split("Allowed actions now: ", 1)[1].split("\n\n", 1)[0])
        if not actions:
            return 200, completion(json.dumps({"action_type": None, "message": "I am ready to bid."}), self.usage)
        names = [a["name"] for a in actions]
        choice = actions[names.index("accept")] if "accept" in names else random.Random(prompt).choice(actions)
        payload = sample_payload(choice["payload_schema"], random.Random(prompt))
        move = {"action_type": choice["name"], "payload": payload}
        if "You may also send a public message" in prompt:
            move["message"] = "I value this highly; let us be quick."
        return 200, completion("```json\n" + json.dumps(move) + "\n```", self.usage)


class Failing(FakeModel):
    """Plays as `FakeModel` (well-formed from the first reply), except for the requests `fails(request)`
    picks (all by default), which it fails `how`: "timeout" (a reply only after `delay` seconds),
    "500", or "garbage" (200 with an HTML page for a body). `failed` counts them."""

    def __init__(self, how: str, fails: Callable[[dict[str, Any]], bool] = lambda _: True, delay: float = 2.0):
        super().__init__(malformed_first=False)
        self.how, self.fails, self.delay = how, fails, delay
        self.failed = 0

    def reply(self, request: dict[str, Any]) -> Answer:
        if not self.fails(request):
            return super().reply(request)
        with self.lock:
            self.failed += 1
        if self.how == "timeout":
            time.sleep(self.delay)
            return 504, {"error": {"message": "too late", "type": "server_error"}}
        if self.how == "500":
            return 500, {"error": {"message": "internal error", "type": "server_error"}}
        return 200, "<html><body>502 Bad Gateway</body></html>"


def completion(text: str, usage: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": "fake",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
        "usage": usage or {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # a slow reply's thread may outlive the test's client, which gave up on it

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that timed out closed the socket under a slow reply: nothing to report."""


def serve(model: FakeModel) -> Iterator[str]:
    """The endpoint's base URL while the generator is open (a fixture or a `for` loop holds it)."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with model.lock:
                model.calls += 1
                model.in_flight += 1
                model.peak = max(model.peak, model.in_flight)
            try:
                answer = model.reply(body) if self.path == "/v1/chat/completions" else (404, {})
            finally:
                with model.lock:
                    model.in_flight -= 1
            status, reply, headers = (*answer, {})[:3]
            data = (reply if isinstance(reply, str) else json.dumps(reply)).encode()
            self.send_response(status)
            for name, value in {"Content-Type": "application/json", **headers}.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = _QuietServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def closed_port() -> int:
    """A 127.0.0.1 port nobody listens on: an endpoint that is down."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
