"""Parsing and validating OpenAI request bodies the way vLLM does, with vLLM's error statuses."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from app.sim.config import SimConfig
from app.sim.textgen import chat_token_ids, message_text, token_ids


class ApiError(Exception):
    """A request vLLM would refuse; status and OpenAI error type included."""

    def __init__(self, status: int, message: str, err_type: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.err_type = err_type


def error_body(message: str, err_type: str, code: int | str | None) -> dict[str, Any]:
    """OpenAI's error shape, which current vLLM also sends (code = the HTTP status there)."""
    return {"error": {"message": message, "type": err_type, "param": None, "code": code}}


def _bad(message: str) -> ApiError:
    return ApiError(400, message, "BadRequestError")


@dataclass
class ParsedRequest:
    model: str
    prompt_tokens: int
    max_tokens: int
    min_tokens: int
    ignore_eos: bool
    stream: bool
    include_usage: bool
    seed: int | None
    prompt_key: str  # the prompt as text, so a prompt always gets the same reply (greedy-like)
    stop: tuple[str, ...] = ()
    prompt_ids: tuple[int, ...] = ()  # what the prefix cache hashes
    thinking: bool = True  # chat_template_kwargs.enable_thinking (Qwen3's switch)


def _int_field(body: dict[str, Any], name: str, minimum: int) -> int | None:
    value = body.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise _bad(f"'{name}' must be an integer, got {json.dumps(value)}")
    if value < minimum:
        raise _bad(f"'{name}' must be at least {minimum}, got {value}")
    return value


def _prompt_key(body: dict[str, Any], chat: bool) -> str:
    """The prompt's text: message contents joined by newlines, or the completion prompt."""
    if chat:
        return "\n".join(message_text(m.get("content")) for m in body["messages"])
    prompt = body.get("prompt")
    if isinstance(prompt, list) and len(prompt) == 1 and isinstance(prompt[0], str):
        prompt = prompt[0]
    return prompt if isinstance(prompt, str) else json.dumps(prompt)


def _prompt_ids(body: dict[str, Any], chat: bool) -> list[int]:
    """The prompt's token ids as the simulated model's tokenizer and chat template make them."""
    if chat:
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            raise _bad("'messages' must be a non-empty list of {role, content} objects")
        if not all(isinstance(m, dict) and "role" in m for m in messages):
            raise _bad("every entry of 'messages' must be an object with a 'role'")
        return chat_token_ids(messages)
    prompt = body.get("prompt")
    if isinstance(prompt, list) and len(prompt) == 1 and isinstance(prompt[0], str | list):
        prompt = prompt[0]
    if isinstance(prompt, str):
        return token_ids(prompt)
    if isinstance(prompt, list) and prompt and all(_is_int(t) for t in prompt):
        return prompt  # token ids
    if isinstance(prompt, list):
        raise _bad("'prompt' must be one string or one list of token ids (no batches here)")
    raise _bad("'prompt' is required: a string or a list of token ids")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _thinking(body: dict[str, Any]) -> bool:
    kwargs = body.get("chat_template_kwargs")
    if kwargs is None:
        return True
    if not isinstance(kwargs, dict):
        raise _bad("'chat_template_kwargs' must be an object")
    return kwargs.get("enable_thinking", True) is not False


def parse_request(raw: bytes, config: SimConfig, *, chat: bool) -> ParsedRequest:
    """Validate a chat or completions body; raise ApiError with vLLM's status otherwise.

    The checks run in vLLM's order, so the first problem a real server would report is the
    one reported here.
    """
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise _bad(f"the request body is not valid JSON ({exc})") from None
    if not isinstance(body, dict):
        raise _bad("the request body must be a JSON object")
    model = _served_model(body, config.served_model_name)
    prompt_ids = _prompt_ids(body, chat)
    if body.get("n", 1) != 1:
        raise _bad("'n' must be 1 on the simulator")
    max_tokens, min_tokens = _token_limits(body, len(prompt_ids), config.max_model_len)
    temperature = body.get("temperature")
    if temperature is not None and (
        isinstance(temperature, bool) or not isinstance(temperature, int | float) or temperature < 0
    ):
        raise _bad(f"'temperature' must be a number >= 0, got {json.dumps(temperature)}")
    stops = _stop_strings(body)
    stream, include_usage = _stream_flags(body)
    ignore_eos = body.get("ignore_eos", False)
    if not isinstance(ignore_eos, bool):
        raise _bad("'ignore_eos' must be true or false")
    return ParsedRequest(
        model=model,
        prompt_tokens=len(prompt_ids),
        max_tokens=max_tokens,
        min_tokens=min_tokens,
        ignore_eos=ignore_eos,
        stream=stream,
        include_usage=include_usage,
        seed=_int_field(body, "seed", -(2**63)),
        prompt_key=_prompt_key(body, chat),
        stop=tuple(s for s in stops if s),
        prompt_ids=tuple(prompt_ids),
        thinking=_thinking(body) if chat else False,
    )


def _served_model(body: dict[str, Any], names: list[str]) -> str:
    """The model asked for; vLLM serves the first served name when 'model' is omitted."""
    model = body.get("model")
    if model is None:
        return names[0]
    if not isinstance(model, str) or model not in names:
        served = ", ".join(names)
        raise ApiError(
            404,
            f"The model `{model}` does not exist. Served models: {served}.",
            "NotFoundError",
        )
    return model


def _token_limits(body: dict[str, Any], prompt_tokens: int, limit: int) -> tuple[int, int]:
    """(max_tokens, min_tokens) within the context length; unset max_tokens fills it."""
    if prompt_tokens >= limit:
        raise _bad(
            f"This model's maximum context length is {limit} tokens. However, your request has "
            f"{prompt_tokens} input tokens. Please reduce the length of the input messages."
        )
    max_tokens = _int_field(body, "max_completion_tokens", 1)
    if max_tokens is None:
        max_tokens = _int_field(body, "max_tokens", 1)
    if max_tokens is None:
        max_tokens = limit - prompt_tokens
    elif prompt_tokens + max_tokens > limit:
        raise _bad(
            f"'max_tokens' or 'max_completion_tokens' is too large: {max_tokens}. This model's "
            f"maximum context length is {limit} tokens and your request has {prompt_tokens} "
            f"input tokens ({max_tokens} > {limit} - {prompt_tokens})."
        )
    min_tokens = _int_field(body, "min_tokens", 0) or 0
    if min_tokens > max_tokens:
        raise _bad(
            f"min_tokens ({min_tokens}) must be less than or equal to max_tokens ({max_tokens})"
        )
    return max_tokens, min_tokens


def _stop_strings(body: dict[str, Any]) -> list[str]:
    stop = body.get("stop")
    if stop is not None and not isinstance(stop, str | list):
        raise _bad("'stop' must be a string or a list of strings")
    stops = [stop] if isinstance(stop, str) else list(stop or [])
    if not all(isinstance(s, str) for s in stops):
        raise _bad("'stop' must be a string or a list of strings")
    return stops


def _stream_flags(body: dict[str, Any]) -> tuple[bool, bool]:
    """(stream, stream_options.include_usage); options only with stream, as vLLM checks."""
    stream = body.get("stream", False)
    if not isinstance(stream, bool):
        raise _bad("'stream' must be true or false")
    options = body.get("stream_options")
    if options is not None and not isinstance(options, dict):
        raise _bad("'stream_options' must be an object")
    if options and not stream:
        raise _bad("Stream options can only be defined when `stream=True`.")
    return stream, bool(options and options.get("include_usage"))
