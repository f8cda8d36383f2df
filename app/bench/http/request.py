"""What one benchmark request asks for, and the JSON body vLLM's openai backends send."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass
from typing import Any


@dataclass(slots=True)
class RequestSpec:
    prompt: str | list[dict[str, Any]]
    prompt_len: int
    max_tokens: int
    _: KW_ONLY
    ignore_eos: bool = False
    model: str = ""
    extra_body: dict[str, Any] | None = None
    request_id: str = ""


def build_body(api: str, model: str, spec: RequestSpec) -> dict[str, Any]:
    """The JSON body vLLM's openai / openai-chat backends send, streaming with usage."""
    body: dict[str, Any] = {"model": model}
    if api == "chat":
        prompt = spec.prompt
        body["messages"] = (
            prompt if isinstance(prompt, list) else [{"role": "user", "content": prompt}]
        )
    else:
        body["prompt"] = spec.prompt
    # max_tokens rather than max_completion_tokens: every OpenAI-compatible server and gateway
    # accepts it, and vLLM treats both the same.
    body["max_tokens"] = spec.max_tokens
    body["stream"] = True
    body["stream_options"] = {"include_usage": True}
    if spec.ignore_eos:
        body["ignore_eos"] = True
    if spec.extra_body:
        body.update(spec.extra_body)
    return body
