"""Running an A2A app with uvicorn."""

from __future__ import annotations

import sys

import uvicorn
from starlette.applications import Starlette


def run(app: Starlette, host: str, port: int, banner: str) -> None:
    print(banner, file=sys.stderr, flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
