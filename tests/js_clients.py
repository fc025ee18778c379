"""The official JavaScript SDK clients of tests/js (Node from Debian, the SDKs from npm, both installed by
.ci/run) run against a real server: `node SCRIPT URL` as a subprocess, its JSON report read back."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

JS = Path(__file__).parent / "js"
NODE = shutil.which("node")
RUN_SECONDS = 60


def require_js(package: str) -> None:
    """Skip the test unless node and the npm `package` are installed (checked before a server starts)."""
    if NODE is None:
        pytest.skip("no node installed (apt-get install nodejs npm)")
    if not (JS / "node_modules" / package).is_dir():
        pytest.skip(f"{package} is not installed (npm ci --prefix tests/js)")


def run_js_client(script: str, url: str) -> dict[str, Any]:
    """What `node tests/js/SCRIPT URL` printed, as JSON (see `require_js`)."""
    done = subprocess.run([str(NODE), str(JS / script), url], capture_output=True, text=True, timeout=RUN_SECONDS)
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return report
