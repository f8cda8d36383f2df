"""The flags of conversation runs (`tpotbench sweep --multi-turn`) and what they may not be
combined with, each refused in one line (exit code 2)."""

from __future__ import annotations

import argparse
from pathlib import Path

from app.bench.datasets.conversations import (
    DEFAULT_NUM_SESSIONS,
    MAX_TURNS,
    default_conversations_path,
    sample_conversations,
)
from app.bench.datasets.prompts import DatasetError, PromptTokenizer
from app.bench.load.sessions import ThinkTime
from app.bench.schema.run_config import RunConfig
from app.bench.sweep.conversation_point import ConversationLoad
from app.commands import flags
from app.commands.credentials import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "conversations (vLLM's benchmarks/multi_turn, AIPerf's multi-turn sessions)"
    )
    add = group.add_argument
    add(
        "--multi-turn",
        action="store_true",
        help="send every user turn of each ShareGPT conversation with its whole history (the "
        "earlier turns and the replies the server returned) as chat messages; --request-rate "
        "is then the rate sessions start at, --max-concurrency still caps requests in flight "
        "(default dataset: the shipped synthetic conversations); the count is --num-sessions, "
        "--num-prompts is refused with it",
    )
    add(
        "--num-sessions",
        type=flags.whole(1, flags.MAX_PROMPTS),
        metavar="N",
        help=f"conversations per point with --multi-turn, none repeated (default "
        f"{DEFAULT_NUM_SESSIONS}); each sends all its turns, so --num-prompts does not apply "
        "and is refused (exit 2)",
    )
    add(
        "--max-turns",
        type=flags.whole(2, MAX_TURNS),
        metavar="N",
        help="at most N user turns (requests) of each conversation (vLLM's multi-turn "
        "benchmark counts messages, twice this)",
    )
    add(
        "--think-time",
        type=flags.number(0.0, flags.MAX_SECONDS),
        default=0.0,
        metavar="S",
        help="mean seconds a user thinks before each turn after the first (AIPerf's "
        "--conversation-turn-delay-mean, which is in ms; default 0)",
    )
    add(
        "--think-time-stddev",
        type=flags.number(0.0, flags.MAX_SECONDS),
        default=0.0,
        metavar="S",
        help="standard deviation of the think time (normal, cut at 0; default 0: fixed)",
    )


def check(config: RunConfig) -> None:
    """Refuse --num-prompts with --multi-turn, before its default is filled in: a run of a
    different size than the one asked for would be a silent surprise."""
    if config.dataset.multi_turn and config.dataset.num_prompts is not None:
        raise UsageError(
            "--num-prompts does not apply to --multi-turn: give the number of conversations "
            "with --num-sessions (each sends all its turns)"
        )


def conversation_load(
    config: RunConfig, *, api: str, workers: int, counter: PromptTokenizer
) -> ConversationLoad | None:
    """The sessions of a --multi-turn sweep, None without it; UsageError on bad input."""
    data = config.dataset
    if not data.multi_turn:
        given = [
            name
            for name, value in (
                ("--num-sessions", data.num_sessions),
                ("--max-turns", data.max_turns),
                ("--think-time", data.think_time_s or None),
                ("--think-time-stddev", data.think_time_stddev_s or None),
            )
            if value is not None
        ]
        if given:
            raise UsageError(f"{given[0]} is for conversations: add --multi-turn")
        return None
    if data.name != "sharegpt":
        raise UsageError(
            "--multi-turn reads conversations from a ShareGPT file: use --dataset-name sharegpt "
            "(the default) with or without --dataset-path"
        )
    if api != "chat":
        raise UsageError(
            "--multi-turn sends the history as chat messages: use the chat API (--backend "
            "openai-chat, or --endpoint /v1/chat/completions)"
        )
    if workers > 1:
        raise UsageError(
            "--multi-turn runs in one process (each next turn needs the previous reply): "
            "drop --workers and --ray"
        )
    if config.load.num_warmups:
        raise UsageError(
            "--num-warmups is not used with --multi-turn: a warmup would put a session's first "
            "turn in the server's prefix cache before it is measured"
        )
    path = Path(data.path) if data.path else default_conversations_path()
    try:
        conversations = sample_conversations(
            path,
            data.num_sessions or DEFAULT_NUM_SESSIONS,
            counter,
            seed=config.load.seed,
            output_len=data.output_len or data.sharegpt_output_len,
            max_turns=data.max_turns,
        )
    except DatasetError as exc:
        raise UsageError(str(exc)) from None
    think = ThinkTime(data.think_time_s, data.think_time_stddev_s)
    return ConversationLoad(conversations, think)


def refuse_in_search(config: RunConfig) -> None:
    if config.dataset.multi_turn:
        raise UsageError(
            "search sizes its points by --num-prompts; conversations run with tpotbench sweep "
            "--multi-turn"
        )
