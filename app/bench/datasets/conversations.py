"""Multi-turn conversations: ShareGPT entries (or OpenAI `messages` lists) read as sessions of
user turns, each with the reply length the dataset's own answer had.

A turn's request is built at send time by `app.bench.load.sessions`: the whole history so far
(every earlier user turn and the reply the server actually returned), then this user turn, as
vLLM's multi-turn benchmark and AIPerf do. The dataset's own assistant answers are never sent;
they only say how many tokens to ask for (vLLM's multi-turn default, NUM_TOKENS_FROM_DATASET).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.bench.datasets.prompts import (
    DatasetError,
    PromptTokenizer,
    parse_json,
    read_text,
)
from app.paths import resources_dir

# The chat template adds a few tokens per message (ChatML: 4) and the generation prompt (3);
# counted so a conversation's estimated context is not short of the server's.
TEMPLATE_TOKENS_PER_MESSAGE = 4
# A conversation is cut before the turn whose history + question + reply would pass this many
# tokens: the context of vLLM's --max-model-len 4096 (the field guide's and the simulator's).
DEFAULT_MAX_CONTEXT = 4096
# One user message longer than vLLM's ShareGPT prompt limit is not a chat turn but a document.
MAX_USER_TOKENS = 1024
DEFAULT_NUM_SESSIONS = 20
MAX_TURNS = 10_000

_USER_ROLES = {"human": "user", "user": "user"}
_ASSISTANT_ROLES = {"gpt": "assistant", "assistant": "assistant", "chatgpt": "assistant"}
_SYSTEM_ROLES = {"system": "system"}


@dataclass(frozen=True)
class Turn:
    """One user turn: the question, its length in tokens, and how many tokens to ask for."""

    user: str
    user_len: int
    output_len: int


@dataclass(frozen=True)
class Conversation:
    """A session: an optional system prompt and its user turns, in order."""

    conversation_id: str
    turns: tuple[Turn, ...]
    system: str | None = None

    @property
    def num_turns(self) -> int:
        return len(self.turns)


def default_conversations_path() -> Path:
    """The synthetic multi-turn ShareGPT-format file shipped for offline use."""
    return resources_dir() / "datasets" / "sharegpt_multiturn_synthetic.json"


def _messages_of(path: Path, index: int, entry: dict[str, Any]) -> list[tuple[str, str]] | None:
    """(role, text) of an entry's messages: ShareGPT `conversations` (from/value) or OpenAI
    `messages` (role/content); None when the entry has neither (skipped, as vLLM does)."""
    if "conversations" in entry:
        key, role_key, text_key = "conversations", "from", "value"
    elif "messages" in entry:
        key, role_key, text_key = "messages", "role", "content"
    else:
        return None
    items = entry[key]
    if not isinstance(items, list):
        raise DatasetError(f'{path}: entry {index}: "{key}" is not a list')
    out: list[tuple[str, str]] = []
    for k, item in enumerate(items):
        role = item.get(role_key) if isinstance(item, dict) else None
        text = item.get(text_key) if isinstance(item, dict) else None
        if not isinstance(role, str) or not isinstance(text, str):
            raise DatasetError(
                f'{path}: entry {index}: {key}[{k}] needs a "{role_key}" and a "{text_key}" string'
            )
        out.append((role.strip().lower(), text))
    return out


def _pairs(messages: list[tuple[str, str]]) -> tuple[str | None, list[tuple[str, str]]]:
    """The system prompt and the (question, answer) pairs of a message list. Pairing stops at
    the first break in the user/assistant alternation (real ShareGPT has such entries): what
    follows it is not a reply to what the benchmark sends."""
    system = None
    start = 0
    if messages and messages[0][0] in _SYSTEM_ROLES:
        system, start = messages[0][1], 1
    while start < len(messages) and messages[start][0] in _ASSISTANT_ROLES:
        start += 1  # a conversation that opens with the assistant: its greeting is not asked
    pairs: list[tuple[str, str]] = []
    k = start
    while k + 1 < len(messages):
        (role_q, question), (role_a, answer) = messages[k], messages[k + 1]
        if role_q not in _USER_ROLES or role_a not in _ASSISTANT_ROLES:
            break
        pairs.append((question, answer))
        k += 2
    return system, pairs


def conversation_from_messages(
    conversation_id: str,
    messages: list[tuple[str, str]],
    tokenizer: PromptTokenizer,
    *,
    output_len: int | None = None,
    max_turns: int | None = None,
    max_context: int = DEFAULT_MAX_CONTEXT,
) -> Conversation:
    """The turns of one conversation that fit: each question 1..1024 tokens, each reply at
    least 1, and the whole context within `max_context` (cut at the first turn that passes)."""
    system, pairs = _pairs(messages)
    context = 0
    if system is not None:
        context += tokenizer.count(system) + TEMPLATE_TOKENS_PER_MESSAGE
    turns: list[Turn] = []
    for question, answer in pairs:
        if max_turns is not None and len(turns) >= max_turns:
            break
        user_len = tokenizer.count(question)
        reply_len = output_len if output_len is not None else tokenizer.count(answer)
        if not 1 <= user_len <= MAX_USER_TOKENS or reply_len < 1:
            break
        context += user_len + reply_len + 2 * TEMPLATE_TOKENS_PER_MESSAGE
        if context > max_context:
            break
        turns.append(Turn(question, user_len, reply_len))
    return Conversation(conversation_id, tuple(turns), system)


def load_conversations(
    path: Path,
    tokenizer: PromptTokenizer,
    *,
    output_len: int | None = None,
    max_turns: int | None = None,
    max_context: int = DEFAULT_MAX_CONTEXT,
) -> list[Conversation]:
    """Every entry of `path` with two or more usable user turns, in file order."""
    data = parse_json(path, read_text(path))
    if not isinstance(data, list):
        raise DatasetError(
            f"{path}: expected a JSON list of conversations, found a {type(data).__name__}"
        )
    found: list[Conversation] = []
    for index, entry in enumerate(data):
        if not isinstance(entry, dict):
            raise DatasetError(
                f"{path}: entry {index} is a {type(entry).__name__}, expected an object "
                'with "conversations" or "messages"'
            )
        messages = _messages_of(path, index, entry)
        if messages is None:
            continue
        ident = entry.get("id")
        conversation = conversation_from_messages(
            str(ident) if isinstance(ident, str | int) else str(index),
            messages,
            tokenizer,
            output_len=output_len,
            max_turns=max_turns,
            max_context=max_context,
        )
        if conversation.num_turns >= 2:
            found.append(conversation)
    return found


def sample_conversations(
    path: Path | None,
    num_sessions: int,
    tokenizer: PromptTokenizer,
    *,
    seed: int = 0,
    output_len: int | None = None,
    max_turns: int | None = None,
    max_context: int = DEFAULT_MAX_CONTEXT,
) -> list[Conversation]:
    """`num_sessions` conversations drawn without repetition (shuffled with the seed, like
    vLLM's ShareGPT sampling). Never repeated to fill up: two sessions with the same text
    would hit each other's prefix cache, which no two real users do."""
    if num_sessions < 1:
        raise DatasetError(f"--num-sessions must be at least 1, got {num_sessions}")
    if max_turns is not None and max_turns < 2:
        raise DatasetError(f"--max-turns must be at least 2 for a conversation, got {max_turns}")
    path = path or default_conversations_path()
    found = load_conversations(
        path, tokenizer, output_len=output_len, max_turns=max_turns, max_context=max_context
    )
    if not found:
        raise DatasetError(
            f"{path}: no conversation has two user turns that fit (each question 1-"
            f"{MAX_USER_TOKENS} tokens, the whole conversation within {max_context} tokens); "
            "a multi-turn run needs conversations: omit --dataset-path for the shipped one"
        )
    if len(found) < num_sessions:
        raise DatasetError(
            f"{path}: {len(found)} usable conversations, fewer than --num-sessions "
            f"{num_sessions}; ask for at most {len(found)}"
        )
    random.Random(seed).shuffle(found)
    return found[:num_sessions]
