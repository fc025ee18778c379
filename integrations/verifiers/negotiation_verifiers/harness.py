"""`SeatHarness`: the seat's chat loop, run in process: one model call per turn, through verifiers' interception.

verifiers' own tool-less loop (`null`) is a script that `uv` installs into the runtime from the network at
setup; a seat only sends its prompt and reads the reply, so this harness makes that one call itself. It keeps
verifiers' contract for in-process harnesses (`Harness.launch`): the call goes to the rollout's interception
`endpoint` with its `secret`, so the trace, the limits and the client (eval or train) are verifiers' own.
"""

from __future__ import annotations

import httpx
import verifiers.v1 as vf
from verifiers.v1.dialects.chat import message_to_wire
from verifiers.v1.runtimes import ProgramResult, Runtime


class SeatHarnessConfig(vf.HarnessConfig):
    """No options: the seat's prompt, model and sampling come from the task and the agent's config."""


class SeatHarness(vf.Harness[SeatHarnessConfig]):
    """One chat completion per segment: the task's system prompt and the conversation so far in, the reply out."""

    APPENDS_SYSTEM_PROMPT = True
    SUPPORTS_RESUME = True  # each user turn replays the conversation (verifiers' default `resume`)
    EXECUTES_CODE = False
    NEEDS_CONTAINER = False

    async def launch(
        self,
        ctx: vf.ModelContext,
        trace: vf.Trace[vf.TaskData, vf.State, vf.AgentConfig],
        runtime: Runtime,
        endpoint: str,
        secret: str,
        mcp_urls: dict[str, str],
        data: vf.TaskData,
    ) -> ProgramResult:
        system, prompt = self.resolve_prompt(data)
        messages: list[dict[str, object]] = [{"role": "system", "content": system}] if system else []
        if isinstance(prompt, str):
            messages.append({"role": "user", "content": prompt})
        elif prompt is not None:
            messages.extend(message_to_wire(message) for message in prompt)
        async with httpx.AsyncClient(timeout=None) as client:
            answer = await client.post(
                f"{endpoint.rstrip('/')}/chat/completions",
                json={"model": ctx.model, "messages": messages},
                headers={"Authorization": f"Bearer {secret}"},
            )
        if answer.is_error:  # the interception has recorded the cause on the trace; the harness exits non-zero
            failure = f"model call failed ({answer.status_code}): {answer.text}"
            return ProgramResult(exit_code=1, stdout="", stderr=failure)
        return ProgramResult(exit_code=0, stdout="", stderr="")
