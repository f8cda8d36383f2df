"""The calibration table in virtual time: the timing model against the field guide's bands.

The same scheduler, cost model and reply-length draws as the server, on the shipped dataset
sampled like vLLM (shuffle with seed 0, length filter, first N), without HTTP or machine
noise; a change to the engine or the defaults that breaks the calibration fails here in about
a second.
"""

from __future__ import annotations

import math
import statistics

import pytest
from tokenizers import Tokenizer

from app.bench.datasets.prompts import PromptTokenizer
from app.bench.datasets.sharegpt import default_sharegpt_path, sample_sharegpt
from app.bench.http.tokens import estimate_tokens
from app.sim.config import SimConfig
from app.sim.replay import new_engine, percentile, replay
from app.sim.textgen import (
    chat_token_ids,
    count_chat_tokens,
    count_tokens,
    request_seed,
    tokenizer_json,
)


class _SimTokenizer:
    def count(self, text: str) -> int:
        return count_tokens(text)


def sampled_load(tokenizer: PromptTokenizer, seed: int) -> list[tuple[int, int, int]]:
    """What benchmarks/sim_calibration.py sends: tpotbench sweep's ShareGPT sampling (vLLM's
    shuffle and length filter) with a client tokenizer, as chat requests."""
    samples = sample_sharegpt(default_sharegpt_path(), 200, tokenizer, seed=seed)
    return [
        (
            count_chat_tokens([{"role": "user", "content": s.prompt}]),
            s.expected_output_len,
            request_seed(0, s.prompt),
        )
        for s in samples
    ]


@pytest.fixture(scope="module")
def workload() -> list[tuple[int, int, int]]:
    return sampled_load(_SimTokenizer(), 0)  # the simulated model's tokenizer, seed 0


def within(value: float, reference: float, band: float) -> bool:
    return abs(value / reference - 1) <= band


def test_single_request(workload: list[tuple[int, int, int]]) -> None:
    run = replay(SimConfig(), workload[:30], max_concurrency=1)
    assert within(percentile(run.tpot_s, 50) * 1000, 19.7, 0.03)
    assert within(percentile(run.ttft_s, 50) * 1000, 41.0, 0.30)
    assert run.preemptions == 0


def test_concurrency_32(workload: list[tuple[int, int, int]]) -> None:
    c32 = replay(SimConfig(), workload[:200], max_concurrency=32)
    assert within(c32.output_throughput, 978.0, 0.15)
    assert within(percentile(c32.tpot_s, 99) * 1000, 60.0, 0.35)


def test_the_knee_at_64(workload: list[tuple[int, int, int]]) -> None:
    c32 = replay(SimConfig(), workload[:200], max_concurrency=32)
    c64 = replay(SimConfig(), workload[:200], max_concurrency=64)
    assert percentile(c64.tpot_s, 99) >= 2 * percentile(c32.tpot_s, 99)


def test_the_knee_is_the_model_not_only_the_sample() -> None:
    # The shipped dataset's seed is chosen so vLLM's default sample reproduces the guide's run
    # (app/sim/dataset.py). The model must show the knee in any sample, not just that one:
    # over other sampling seeds the P99 still rises clearly faster than the median does.
    ratios_p99, ratios_p50 = [], []
    for seed in range(1, 9):
        load = sampled_load(_SimTokenizer(), seed)
        c32 = replay(SimConfig(), load, max_concurrency=32)
        c64 = replay(SimConfig(), load, max_concurrency=64)
        ratios_p99.append(percentile(c64.tpot_s, 99) / percentile(c32.tpot_s, 99))
        ratios_p50.append(percentile(c64.tpot_s, 50) / percentile(c32.tpot_s, 50))
    assert min(ratios_p99) >= 1.4
    assert sorted(ratios_p99)[len(ratios_p99) // 2] >= 1.7
    assert sorted(ratios_p99)[len(ratios_p99) // 2] > sorted(ratios_p50)[len(ratios_p50) // 2] + 0.2


def test_rate_4_concurrency_16(workload: list[tuple[int, int, int]]) -> None:
    run = replay(SimConfig(), workload[:200], max_concurrency=16, request_rate=4.0)
    assert within(run.request_throughput, 2.64, 0.15)
    assert within(run.output_throughput, 558.58, 0.15)
    assert within(sum(run.tpot_s) / len(run.tpot_s) * 1000, 23.91, 0.15)


def test_replay_of_one_request_by_hand() -> None:
    # Bandwidth x 0.5 and 1 ms overhead: a decode step is 30.216 ms of weights plus KV reads
    # (57,344 bytes per cached token at 468 GB/s) plus 1 ms; the 20-token prompt's prefill
    # (2.8e11 FLOPs at 35.5 TFLOP/s = 8 ms) hides under the 30.2 ms weight read. Each step
    # also streams its tokens' activations through the elementwise kernels (5,246,976 B a
    # token), samples one sequence's logits (4,561,920 B) and spends 15 us of engine CPU.
    config = SimConfig(bandwidth_efficiency=0.5, compute_efficiency=0.5, step_overhead_ms=1.0)
    run = replay(config, [(20, 3, 0)], max_concurrency=1, request_rate=math.inf)
    assert run.output_tokens == [3]
    kv_s = 57_344 / 468e9
    act_s, sample_s, cpu_s = 5_246_976 / 468e9, 4_561_920 / 468e9, 15e-6
    # the request reaches the engine 0.5 ms after it is sent
    prefill = 0.030216 + 20 * kv_s + 0.001 + 20 * act_s + sample_s + cpu_s
    assert run.ttft_s[0] == pytest.approx(0.0005 + prefill, abs=3e-6)
    # decode steps read 20 then 21 cached tokens
    decode = 0.031216 + 20.5 * kv_s + act_s + sample_s + cpu_s
    assert run.tpot_s[0] == pytest.approx(decode, abs=3e-6)


def test_the_simulated_model_tokenizer_counts_like_the_simulator() -> None:
    tok = Tokenizer.from_str(tokenizer_json())

    def n(text: str) -> int:
        return len(tok.encode(text, add_special_tokens=False).ids)

    # words and marks are one token each; a 21-letter run is 3 (10 + 10 + 1); CJK 1 each
    assert n("Hello, world.") == count_tokens("Hello, world.") == 4
    assert n("abcdefghijklmnopqrstu x") == count_tokens("abcdefghijklmnopqrstu x") == 4
    assert n("it's 你好!") == count_tokens("it's 你好!") == 4


def test_requests_sent_together_reach_the_engine_one_after_another() -> None:
    # As against the live server: the first step starts with the first request alone (it
    # arrives 0.5 ms after it is sent); the second, sent 10 us later, joins the next step.
    config = SimConfig(bandwidth_efficiency=0.5, compute_efficiency=0.5, step_overhead_ms=1.0)
    run = replay(config, [(20, 2, 0), (20, 2, 1)], max_concurrency=2, request_rate=math.inf)
    kv_s = 57_344 / 468e9
    act_s, sample_s, cpu_s = 5_246_976 / 468e9, 4_561_920 / 468e9, 15e-6
    # prefill of A's 20 prompt tokens
    step1 = 0.031216 + 20 * kv_s + 20 * act_s + sample_s + cpu_s
    # A decodes over 20 cached tokens, B prefills 20 new ones: 21 tokens, 2 sequences. With
    # a prompt in the batch A's attention reads its KV once per query head (7 share a KV
    # head): 140 tokens' KV, and B writes 20.
    step2 = 0.031216 + 160 * kv_s + 21 * act_s + 2 * (sample_s + cpu_s)
    assert run.ttft_s[0] == pytest.approx(0.0005 + step1, abs=3e-6)
    # B's token is second in step 2's batch: the front end writes it 20 us after A's
    assert run.ttft_s[1] == pytest.approx(0.0005 + step1 + step2 - 0.00001 + 0.00002, abs=3e-6)


class _EstimateTokenizer:
    """A BPE-like client tokenizer (4 ASCII characters a token): other max_tokens and filter."""

    def count(self, text: str) -> int:
        return estimate_tokens(text)


def test_the_bands_hold_in_the_median_over_seeds_and_tokenizers() -> None:
    # Calibration by the model, not by one sample: over vLLM sampling seeds 0-4 and two client
    # tokenizers (the simulated model's and a 4-characters-a-token estimate) the median of
    # each figure stays in the field guide's band, the knee included (conc-64 TPOT P99 at
    # least twice conc-32's); benchmarks/sim_calibration_seeds.py prints the whole table.
    c32_tput, c32_p99, r4_rps, r4_tput, r4_tpot, knee = [], [], [], [], [], []
    for tokenizer in (_SimTokenizer(), _EstimateTokenizer()):
        for seed in range(5):
            load = sampled_load(tokenizer, seed)
            c32 = replay(SimConfig(), load, max_concurrency=32)
            c64 = replay(SimConfig(), load, max_concurrency=64)
            knee.append(percentile(c64.tpot_s, 99) / percentile(c32.tpot_s, 99))
            r4 = replay(SimConfig(), load, max_concurrency=16, request_rate=4.0, seed=seed)
            c32_tput.append(c32.output_throughput)
            c32_p99.append(percentile(c32.tpot_s, 99) * 1000)
            r4_rps.append(r4.request_throughput)
            r4_tput.append(r4.output_throughput)
            r4_tpot.append(sum(r4.tpot_s) / len(r4.tpot_s) * 1000)
    assert within(statistics.median(c32_tput), 978.0, 0.15)
    assert within(statistics.median(c32_p99), 60.0, 0.35)
    assert within(statistics.median(r4_rps), 2.64, 0.15)
    assert within(statistics.median(r4_tput), 558.58, 0.15)
    assert within(statistics.median(r4_tpot), 23.91, 0.15)
    assert statistics.median(knee) >= 2.0


class _CharsTokenizer:
    """A third client tokenizer, coarser than the model's: 3 characters a token. The shipped
    dataset's words average ~4.3 characters with their space, so it counts ~1.4x the model's
    tokens: longer max_tokens, and the length filter drops more long entries."""

    def count(self, text: str) -> int:
        return max(1, round(len(text) / 3)) if text else 0


_TOKENIZERS = (_SimTokenizer(), _EstimateTokenizer(), _CharsTokenizer())


def test_ttft_at_one_stream_holds_on_every_sample_of_the_guides_200_prompts() -> None:
    # The guide runs concurrency 1 with --num-prompts 200 like every point. Its TTFT P50 is a
    # prefill of the median prompt, so it is the model's only if the sample is the guide's
    # size: over 30 prompts (the live benchmark's shortcut) it is the 15th prompt's length and
    # seed 4 lands at 21 ms, outside the band; over 200 every seed and client tokenizer lands
    # in it. At one stream a request's TTFT does not depend on the replies before it (each
    # finished before it was sent), so replies of 2 tokens give the same TTFTs, fast.
    for tokenizer in _TOKENIZERS:
        for seed in range(5):
            load = [(prompt, 2, reply) for prompt, _, reply in sampled_load(tokenizer, seed)]
            run = replay(SimConfig(), load, max_concurrency=1)
            ttft_ms = percentile(run.ttft_s, 50) * 1000
            assert within(ttft_ms, 41.0, 0.30), (type(tokenizer).__name__, seed, ttft_ms)


def test_a_coarser_client_tokenizer_moves_the_workload_not_the_model() -> None:
    # Why a third tokenizer misses bands the model holds on the first two: the client's count
    # of the dataset's reply is each request's max_tokens. The guide's run served 211.6
    # output tokens a request (558.58 tok/s at 2.64 req/s); a 3-characters-a-token client
    # asks for ~1.4x as many, with fewer short replies (the ones whose TPOT a prefill stall
    # inflates most), so the conc-32 P99 falls and the rate-4 run lasts longer. Same model,
    # same prompts' prefill: the workload moved.
    for seed in range(3):
        model = sampled_load(_SimTokenizer(), seed)
        coarse = sampled_load(_CharsTokenizer(), seed)
        model_out = statistics.fmean(max_tokens for _, max_tokens, _ in model)
        coarse_out = statistics.fmean(max_tokens for _, max_tokens, _ in coarse)
        assert within(model_out, 211.6, 0.12)
        assert coarse_out > 1.25 * model_out
        short = sum(max_tokens < 30 for _, max_tokens, _ in model)
        assert sum(max_tokens < 30 for _, max_tokens, _ in coarse) < short


def test_a_warm_prefix_cache_leaves_only_the_decode_physics_of_the_knee() -> None:
    # Points run back to back against one server (the guide's own script, or a loop of
    # `vllm bench serve`) send the same seed-0 sample each time, and the prefix cache keeps
    # it: the next point prefills almost nothing. Then TPOT P99 is the decode step itself,
    # 32 sequences ~21.5 ms and 64 ~40 ms (skinny decode GEMMs grow with the batch above 32),
    # plus the steps that admit a cached prompt (its last partial block is computed, so the
    # batch's attention is unpacked, see StepCostModel._mixed_step_seconds): 22.4 and 43.4
    # ms, a knee of ~1.94 on any sample; the rest of the guide's 2.75 is prefill stalls, which
    # need a cold cache, as each of the guide's points had (its TTFT at one stream is a
    # prefill, 41 ms, not the ~20 ms of a cached prompt).
    samples = sample_sharegpt(default_sharegpt_path(), 200, _SimTokenizer(), seed=0)
    load = []
    for s in samples:
        ids = chat_token_ids([{"role": "user", "content": s.prompt}])
        load.append((len(ids), s.expected_output_len, request_seed(0, s.prompt), ids))
    p99 = {}
    for concurrency in (32, 64):
        cold = replay(SimConfig(), load, max_concurrency=concurrency)
        engine = new_engine(SimConfig())
        replay(
            SimConfig(), [(p, 2, r, i) for p, _, r, i in load], max_concurrency=64, engine=engine
        )
        warm = replay(SimConfig(), load, max_concurrency=concurrency, engine=engine)
        assert sum(warm.cached_tokens) > 0.9 * sum(entry[0] for entry in load)
        assert sum(cold.cached_tokens) < 0.05 * sum(entry[0] for entry in load)
        p99[concurrency] = (percentile(cold.tpot_s, 99), percentile(warm.tpot_s, 99))
    assert within(p99[32][1] * 1000, 22.4, 0.05)
    assert within(p99[64][1] * 1000, 43.4, 0.05)
    assert 1.7 < p99[64][1] / p99[32][1] < 2.0
    assert p99[64][0] / p99[32][0] >= 2.0  # cold, the guide's case: stalls on top
