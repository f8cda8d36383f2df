"""Automatic prefix caching: chained block hashes, LRU eviction, cached_tokens, counters, reset.

Prompts here are chat requests: the template puts 3 tokens before the first message's text,
so a 1,024-token shared text starts at token 3 and tokens 0-1,026 are common; with 16-token
blocks the first 64 full blocks (1,024 tokens) are shared, the 65th already holds the suffix.
"""

from __future__ import annotations

import re

import httpx
import pytest

from app.sim.config import SimConfig
from app.sim.embedded import RunningSim
from app.sim.engine import Engine
from app.sim.prefix_cache import BlockPool, block_hashes
from app.sim.replay import replay
from app.sim.sequence import Emission, SimRequest
from app.sim.textgen import chat_token_ids, count_chat_tokens, request_seed, words_text

PREFIX_TOKENS, SUFFIX_TOKENS = 1024, 64
PROMPT_TOKENS = 7 + PREFIX_TOKENS + SUFFIX_TOKENS  # template: 4 per message + 3 for the reply
SHARED = 64 * 16  # full blocks inside the first 3 + 1,024 tokens


def prompt(prefix: int, suffix: int) -> list[dict[str, str]]:
    text = words_text(1000 + prefix, PREFIX_TOKENS) + " " + words_text(5000 + suffix, SUFFIX_TOKENS)
    return [{"role": "user", "content": text}]


def metric(text: str, name: str) -> float:
    match = re.search(rf"^{re.escape(name)}\{{[^}}]*\}} (\S+)$", text, re.MULTILINE)
    assert match, name
    return float(match.group(1))


def ask(sim: RunningSim, messages: list[dict[str, str]], **extra: object) -> dict:
    body = {"model": "qwen2.5-7b", "messages": messages, "max_tokens": 1, **extra}
    response = httpx.post(f"{sim.base_url}/v1/chat/completions", json=body, timeout=30)
    assert response.status_code == 200, response.text
    return response.json()


def test_chained_hashes_name_a_block_by_its_whole_prefix() -> None:
    a = list(range(40))
    b = list(range(32)) + [99] * 8
    c = [7, *list(range(1, 40))]
    ha, hb, hc = (block_hashes(x, 16) for x in (a, b, c))
    assert len(ha) == 2  # only full blocks: 40 tokens make 2
    assert ha == hb  # the first 32 tokens agree
    assert (
        ha[0] != hc[0] and ha[1] != hc[1]
    )  # block 1 is the same tokens, but after another block 0
    # extending from block 1 with block 0's hash as parent gives the same chain
    assert block_hashes(a, 16, 1, ha[0]) == ha[1:]


def test_pool_evicts_the_least_recently_freed_cached_block_first() -> None:
    pool = BlockPool(4)
    pool.allocate(3)
    assert all(pool.register(h) for h in (11, 12, 13))
    assert not pool.register(11)  # already cached: a second copy stays private
    pool.release([11, 12], private=0)  # freed tail first: 12 then 11 in LRU order
    pool.release([13], private=0)
    assert pool.free == 4 and pool.empty == 1
    assert pool.longest_hit([11, 12, 13], 3) == 3
    pool.allocate(2)  # the empty block, then the LRU cached one (12)
    assert pool.evictions == 1
    assert pool.longest_hit([11, 12, 13], 3) == 1
    assert list(pool.evictable) == [11, 13]


class _Sink:
    def prepare(self, out: Emission) -> None:
        pass

    def flush(self, deadline_ns: int) -> None:
        pass

    def aborted(self, reason: str) -> None:
        pass


def _run(engine: Engine, req: SimRequest) -> None:
    engine.submit(req)
    while not req.finished:
        engine.plan()


def test_engine_reuses_a_prefix_until_kv_pressure_evicts_it() -> None:
    engine = Engine(
        step_seconds=lambda work: 0.001,
        num_gpu_blocks=8,
        block_size=16,
        max_num_seqs=4,
        max_num_batched_tokens=2048,
    )
    ids_a = list(range(100, 164))  # 64 tokens: 4 full blocks
    first = SimRequest("a1", 64, 1, "length", _Sink(), 1, prompt_ids=ids_a)
    _run(engine, first)
    assert first.cached_tokens == 0
    assert engine.pool.free == 8 and engine.pool.empty == 4  # 4 cached blocks, all free
    again = SimRequest("a2", 64, 1, "length", _Sink(), 2, prompt_ids=ids_a)
    _run(engine, again)
    assert again.cached_tokens == 48  # 3 blocks: the last token is always computed again
    # 112 tokens of other text need 7 blocks: 4 empty, then 3 evicted, tail blocks first
    other = SimRequest("b", 112, 1, "length", _Sink(), 3, prompt_ids=list(range(500, 612)))
    _run(engine, other)
    assert engine.pool.evictions == 3
    last = SimRequest("a3", 64, 1, "length", _Sink(), 4, prompt_ids=ids_a)
    _run(engine, last)
    assert last.cached_tokens == 16  # block 0 survived: it was freed last


def workload(requests: int, prefixes: int) -> list[tuple[int, int, int, list[int]]]:
    out = []
    for i in range(requests):
        messages = prompt(i % prefixes, i)
        ids = chat_token_ids(messages)
        assert len(ids) == count_chat_tokens(messages) == PROMPT_TOKENS
        out.append((PROMPT_TOKENS, 1, request_seed(0, messages[0]["content"]), ids))
    return out


def test_eight_prefixes_two_hundred_requests_hit_rate_by_hand() -> None:
    # One at a time: each prefix's first request misses (8 of them), the other 192 find its
    # 1,024 tokens cached. Hit rate = 192 x 1,024 / (200 x 1,095) = 0.8978.
    run = replay(SimConfig(), workload(200, 8), max_concurrency=1)
    assert sum(run.cached_tokens) == 192 * 1024
    assert sum(run.cached_tokens) / (200 * PROMPT_TOKENS) == pytest.approx(0.89775, abs=1e-5)
    # Sixteen at a time the first wave's 16 requests are scheduled in the same steps; a prompt
    # reuses blocks a prompt scheduled before it in the same step computes, so only a prefix's
    # first request misses while the budget (2,048 tokens) lets whole prompts in together.
    busy = replay(SimConfig(), workload(200, 8), max_concurrency=16)
    assert sum(busy.cached_tokens) == 192 * 1024
    off = replay(SimConfig(enable_prefix_caching=False), workload(200, 8), max_concurrency=1)
    assert sum(off.cached_tokens) == 0


def test_ttft_drop_is_the_cost_model_prefill_saving() -> None:
    # Cold: 1,095 prompt tokens are 14.533 TFLOP (prefill_flops) at 0.8 x 71 TFLOP/s = 255.86
    # ms, compute-bound, + 2 ms step overhead + the elementwise kernels' 1,095 x 5.247 MB at
    # 0.86 x 936 GB/s (7.14 ms). Warm: 71 new tokens after 1,024 cached; their GEMMs (0.928
    # TFLOP, 16.3 ms) hide under the 14.141 GB weight read at 804.96 GB/s (17.568 ms), and
    # their attention over 71 x 1,024 + 71 x 72 / 2 pairs (30.2 GFLOP: 0.532 ms, above its
    # 1,095 x 57,344 B of KV, 0.078 ms) is a kernel of its own after them, + 2 ms + 71 x
    # 5.247 MB (0.46 ms). Both sample one sequence (4.56 MB) and spend 15 us of engine CPU.
    # The request reaches the engine 0.5 ms after it is sent: TTFT 265.5 ms cold, 21.1 warm.
    run = replay(SimConfig(), workload(2, 1), max_concurrency=1)
    serial = 4_561_920 / 804.96e9 + 15e-6
    cold = 14.533070533632e12 / 56.8e12 + 0.002 + 1095 * 5_246_976 / 804.96e9 + serial
    attention = 401_408 * (71 * 1024 + 71 * 72 / 2) / 56.8e12
    warm = 14.141238272e9 / 804.96e9 + attention + 0.002 + 71 * 5_246_976 / 804.96e9 + serial
    assert run.ttft_s[0] == pytest.approx(0.0005 + cold, abs=2e-6)
    assert run.ttft_s[1] == pytest.approx(0.0005 + warm, abs=2e-6)
    assert run.ttft_s[0] / run.ttft_s[1] > 12


def test_cached_tokens_counters_and_reset_over_http(make_sim) -> None:  # type: ignore[no-untyped-def]
    sim = make_sim()
    first = ask(sim, prompt(0, 0))
    assert first["usage"]["prompt_tokens"] == PROMPT_TOKENS
    assert first["usage"]["prompt_tokens_details"] is None  # nothing cached: null, as vLLM
    second = ask(sim, prompt(0, 1))
    assert second["usage"]["prompt_tokens_details"] == {"cached_tokens": SHARED}
    page = httpx.get(f"{sim.base_url}/metrics").text
    assert metric(page, "vllm:prefix_cache_queries_total") == 2 * PROMPT_TOKENS
    assert metric(page, "vllm:prefix_cache_hits_total") == SHARED
    assert 'enable_prefix_caching="True"' in page
    reset = httpx.post(f"{sim.base_url}/reset_prefix_cache")
    assert reset.status_code == 200 and reset.content == b""
    third = ask(sim, prompt(0, 2))
    assert third["usage"]["prompt_tokens_details"] is None
    page = httpx.get(f"{sim.base_url}/metrics").text
    assert metric(page, "vllm:prefix_cache_queries_total") == 3 * PROMPT_TOKENS
    assert metric(page, "vllm:prefix_cache_hits_total") == SHARED  # counters keep counting


def test_streamed_usage_reports_cached_tokens(make_sim) -> None:  # type: ignore[no-untyped-def]
    sim = make_sim()
    ask(sim, prompt(3, 0))
    body = {
        "model": "qwen2.5-7b",
        "messages": prompt(3, 1),
        "max_tokens": 2,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    text = httpx.post(f"{sim.base_url}/v1/chat/completions", json=body, timeout=30).text
    usage = [line for line in text.splitlines() if '"usage"' in line][-1]
    assert f'"prompt_tokens_details":{{"cached_tokens":{SHARED}}}' in usage


def test_a_reply_resent_as_history_hits_its_own_blocks(make_sim) -> None:  # type: ignore[no-untyped-def]
    # Turn 1: 100-token question (107 prompt tokens), 40-token reply. Its blocks are cached as
    # they are computed, the reply's included: 107 + 40 - 1 = 146 tokens had their KV computed
    # (the last sampled token never is), 9 full blocks. Turn 2 resends question and reply.
    sim = make_sim()
    question = [{"role": "user", "content": words_text(77, 100)}]
    turn1 = ask(sim, question, max_tokens=40, ignore_eos=True)
    reply = turn1["choices"][0]["message"]["content"]
    history = [*question, {"role": "assistant", "content": reply}]
    turn2 = ask(sim, [*history, {"role": "user", "content": "and then?"}])
    assert turn2["usage"]["prompt_tokens_details"] == {"cached_tokens": 9 * 16}


def test_caching_off_finds_nothing_and_counts_nothing(make_sim) -> None:  # type: ignore[no-untyped-def]
    sim = make_sim(enable_prefix_caching=False)
    ask(sim, prompt(1, 0))
    again = ask(sim, prompt(1, 1))
    assert again["usage"]["prompt_tokens_details"] is None
    page = httpx.get(f"{sim.base_url}/metrics").text
    assert metric(page, "vllm:prefix_cache_queries_total") == 0
    assert 'enable_prefix_caching="False"' in page
