"""Test processes, and the servers they start, keep no match store unless a test names one."""

import os

from negotiation_platform.store import MEMORY, STORE_ENV

os.environ[STORE_ENV] = MEMORY
