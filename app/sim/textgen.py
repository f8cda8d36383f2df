"""Deterministic readable text, the simulator's token-count approximation, and reply lengths."""

from __future__ import annotations

import functools
import math
import random
import re
import zlib
from dataclasses import dataclass
from typing import Any

# Short common words, 3.3 letters on average: each is one token under `count_tokens` and under
# real BPE vocabularies, and "a space + 3.3 letters" is also one token by the ~4 characters per
# token rule of thumb, so every way of counting this text agrees within a few per cent.
_WORD_LIST = """
of to in is it on as at by be or an we if no so up do my me us go the and for was are one
you had not but all can out its new two may any now our man did way how too own see men get
day old off few bad far low red dry wet eye sea sun air end run ask try put let big sky ice
tea cup pen box bag hat map key car bus bed arm leg yet why who lot bit top art egg gas oil
law tax job pay fee sum net aim that with this from have they what were when more said into
than them only some time then such like over even most made also many must back well down
each just good very make work long here both life same know last year come came used take
next able fast slow wide deep open near high blue warm cold soft hard loud dark tree road
room door book word
"""
WORDS: tuple[str, ...] = tuple(_WORD_LIST.split())

_TOKEN_RE = re.compile(r"[A-Za-z0-9']+|[^\sA-Za-z0-9']")
_ALNUM_PER_TOKEN = 10

# Chat template overhead, like a ChatML template: role markers per message + generation prompt.
CHAT_TOKENS_PER_MESSAGE = 4
CHAT_GENERATION_PROMPT_TOKENS = 3


def count_tokens(text: str) -> int:
    """Approximate token count: each run of ASCII letters/digits is ceil(len/10) tokens and
    every other non-space character (punctuation, CJK) is one token.

    It is exact for the simulator's own words and the synthetic dataset (one word or mark =
    one token) and within the usual 1-1.5x of BPE tokenizers for English and Chinese prose.
    """
    total = 0
    for match in _TOKEN_RE.finditer(text):
        piece = match.group()
        if piece[0].isascii() and (piece[0].isalnum() or piece[0] == "'"):
            total += -(-len(piece) // _ALNUM_PER_TOKEN)
        else:
            total += 1
    return total


# Token ids of the simulated model: Qwen2.5's 151,643 ordinary ids and its ChatML markers.
VOCAB_SIZE = 151_643
IM_START_ID, IM_END_ID = 151_644, 151_645


def _piece_id(piece: str) -> int:
    return zlib.crc32(piece.encode("utf-8")) % VOCAB_SIZE


@functools.lru_cache(maxsize=1 << 16)
def _ids_of_piece(piece: str) -> tuple[int, ...]:
    if piece[0].isascii() and (piece[0].isalnum() or piece[0] == "'"):
        step = _ALNUM_PER_TOKEN
        return tuple(_piece_id(piece[i : i + step]) for i in range(0, len(piece), step))
    return (_piece_id(piece),)


def token_ids(text: str) -> list[int]:
    """The ids of `text`'s tokens, one per token `count_tokens` counts (same split).

    A stable function of each piece's text, so equal text always gives equal ids: the prefix
    cache hashes these, and identical prompt prefixes (or a reply resent as history) hit.
    Pieces repeat (words), so their ids are cached: a 1,000-token prompt takes ~0.3 ms.
    """
    ids: list[int] = []
    extend = ids.extend
    for piece in _TOKEN_RE.findall(text):
        extend(_ids_of_piece(piece))
    return ids


def chat_token_ids(messages: list[dict[str, Any]]) -> list[int]:
    """A chat prompt's ids under a ChatML-like template: `<|im_start|>role\n ... <|im_end|>`
    per message (the 4 tokens `count_chat_tokens` adds), then `<|im_start|>assistant\n`."""
    newline = _piece_id("\n")
    ids: list[int] = []
    for message in messages:
        ids += [IM_START_ID, _piece_id(str(message.get("role", ""))), newline]
        ids += token_ids(message_text(message.get("content")))
        ids.append(IM_END_ID)
    ids += [IM_START_ID, _piece_id("assistant"), newline]
    return ids


def tokenizer_json() -> str:
    """A Hugging Face `tokenizer.json` that counts exactly like `count_tokens`.

    Benchmark clients sample ShareGPT with the served model's tokenizer (vLLM's filter and
    max_tokens come from it); this one is the simulated model's, so a client given it asks
    for the reply lengths the dataset was written with.
    """
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers

    tok = Tokenizer(models.WordLevel(vocab={"[UNK]": 0}, unk_token="[UNK]"))
    pieces = f"[A-Za-z0-9']{{1,{_ALNUM_PER_TOKEN}}}|[^\\sA-Za-z0-9']"
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Split(Regex(pieces), "isolated")]
    )
    return tok.to_str()


def count_chat_tokens(messages: list[dict[str, Any]]) -> int:
    """Prompt tokens of a chat request: message contents plus the template's fixed overhead."""
    total = CHAT_GENERATION_PROMPT_TOKENS
    for message in messages:
        total += CHAT_TOKENS_PER_MESSAGE + count_tokens(message_text(message.get("content")))
    return total


def message_text(content: object) -> str:
    """The text of a message's content: a string or OpenAI content parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # OpenAI content parts: [{"type": "text", "text": ...}]
        return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


class WordStream:
    """Yields the text of successive tokens: words with a leading space, full stops, capitals."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)
        self._since_stop = 0
        self._sentence_len = self._rng.randint(6, 16)
        self._first = True
        self._started = False

    def next_token(self) -> str:
        if self._since_stop >= self._sentence_len:
            self._since_stop = 0
            self._sentence_len = self._rng.randint(6, 16)
            self._first = True
            return "."
        word = WORDS[self._rng.randrange(len(WORDS))]
        self._since_stop += 1
        if not self._started:  # a reply starts without a space, like real detokenised text
            self._started = True
            self._first = False
            return word.capitalize()
        if self._first:
            self._first = False
            return " " + word.capitalize()
        return " " + word

    def take(self, n: int) -> list[str]:
        return [self.next_token() for _ in range(n)]


def words_text(seed: int, n_tokens: int) -> str:
    """A readable string of exactly n_tokens tokens under `count_tokens` (no leading space)."""
    return "".join(WordStream(seed).take(n_tokens))


def request_seed(server_seed: int, prompt: str, request_seed: int | None = None) -> int:
    """The seed of one reply: the request's own `seed`, else the server seed and the prompt.

    Keyed on the prompt rather than on arrival order, a prompt gets the same reply length and
    words whatever the concurrency or the order requests arrive in (like greedy decoding).
    """
    if request_seed is not None:
        return request_seed
    return server_seed * 1_000_003 + zlib.crc32(prompt.encode("utf-8"))


def natural_reply_tokens(rng: random.Random, median: float, sigma: float) -> int:
    """Where EOS would fall: log-normal (heavy right tail, like ShareGPT replies), >= 1."""
    if sigma == 0:
        return max(1, round(median))
    return max(1, round(math.exp(rng.gauss(math.log(median), sigma))))


def reply_length(
    rng: random.Random,
    *,
    max_tokens: int,
    min_tokens: int,
    ignore_eos: bool,
    median: float,
    sigma: float,
) -> tuple[int, str]:
    """(tokens to generate, finish_reason) for one request; never above max_tokens."""
    if ignore_eos:
        return max_tokens, "length"
    natural = max(natural_reply_tokens(rng, median, sigma), min_tokens)
    if natural >= max_tokens:
        return max_tokens, "length"
    return natural, "stop"


@dataclass(frozen=True)
class StopMatch:
    """Where a stop string ends a reply: after `tokens` tokens, text cut at `chars`."""

    tokens: int
    chars: int
    stop: str


def find_stop(
    seed: int, target: int, stops: tuple[str, ...], min_tokens: int = 0
) -> StopMatch | None:
    """The first stop string the reply of `seed` would produce within `target` tokens.

    Like vLLM, stop strings are checked once min_tokens are out, the reply ends with the token
    that completes the match, and the text is cut where the stop string begins.
    """
    if not stops:
        return None
    words = WordStream(seed)
    text = ""
    for n in range(1, target + 1):
        before = len(text)
        text += words.next_token()
        if n < min_tokens:
            continue
        # only matches that end inside the new token are new
        hits = [(i, s) for s in stops if (i := text.find(s, max(0, before - len(s) + 1))) >= 0]
        if hits:
            chars, stop = min(hits)
            return StopMatch(n, chars, stop)
    return None
