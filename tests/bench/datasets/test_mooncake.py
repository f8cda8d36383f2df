"""Mooncake traces: the reader's checks, prompts whose shared hash ids share tokens (as the
simulator's prefix cache hashes them), the predicted hit rate, and the shipped trace."""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import pytest

from app.bench.datasets.mooncake import (
    BLOCK_SIZE,
    TraceEntry,
    default_trace_path,
    load_trace,
    predicted_hit_tokens,
    sample_trace,
)
from app.bench.datasets.prompts import DatasetError
from app.sim.config import SimConfig
from app.sim.replay import replay
from app.sim.textgen import token_ids

ROOT = Path(__file__).resolve().parents[3]


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "trace.jsonl"
    path.write_text(text, encoding="utf-8")
    return path


GOOD = '{"timestamp": 0, "input_length": 600, "output_length": 20, "hash_ids": [0, 1]}\n'


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ('{"timestamp": 5, "input_length": 10', "line 2: not valid JSON"),
        ('{"input_length": 10, "output_length": 5}', 'line 2: no "timestamp" field'),
        ('{"timestamp": 5, "output_length": 5}', 'line 2: no "input_length" field'),
        ('{"timestamp": 5, "input_length": 5}', 'line 2: no "output_length" field'),
        ('{"timestamp": -1, "input_length": 5, "output_length": 5}', '"timestamp" must be'),
        ('{"timestamp": "5", "input_length": 5, "output_length": 5}', '"timestamp" must be'),
        ('{"timestamp": 5, "input_length": 0, "output_length": 5}', '"input_length" must be'),
        ('{"timestamp": 5, "input_length": 5.5, "output_length": 5}', '"input_length" must'),
        ('{"timestamp": 5, "input_length": 5, "output_length": true}', '"output_length" must'),
        ('{"timestamp": 5, "input_length": 5, "output_length": 5, "hash_ids": [-1]}', "hash_ids"),
        ('{"timestamp": 5, "input_length": 5, "output_length": 5, "hash_ids": 3}', "hash_ids"),
        (
            '{"timestamp": 5, "input_length": 513, "output_length": 5, "hash_ids": [1, 2, 3]}',
            'names 3 blocks but "input_length" 513 fills only 2',
        ),
        ("[1, 2]", "line 2: expected an object"),
        ('{"timestamp": NaN, "input_length": 5, "output_length": 5}', "line 2"),
    ],
)
def test_a_bad_line_is_one_error_naming_file_line_and_field(
    tmp_path: Path, line: str, says: str
) -> None:
    path = _write(tmp_path, GOOD + line + "\n")
    with pytest.raises(DatasetError) as caught:
        load_trace(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: line 2") and says in message
    assert "\n" not in message


def test_an_unsorted_trace_names_both_lines(tmp_path: Path) -> None:
    text = GOOD.replace('"timestamp": 0', '"timestamp": 900') + "\n" + GOOD
    with pytest.raises(DatasetError, match=r'line 3: "timestamp" 0 is before line 1\'s 900'):
        load_trace(_write(tmp_path, text))


def test_empty_missing_and_folder(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="no requests"):
        load_trace(_write(tmp_path, "\n  \n"))
    with pytest.raises(DatasetError, match="not found"):
        load_trace(tmp_path / "absent.jsonl")
    with pytest.raises(DatasetError, match="folder"):
        load_trace(tmp_path)


def test_reader_keeps_order_blank_lines_and_a_limit(tmp_path: Path) -> None:
    text = (
        GOOD
        + "\n"
        + GOOD.replace('"timestamp": 0', '"timestamp": 7.5').replace(', "hash_ids": [0, 1]', "")
    )
    entries = load_trace(_write(tmp_path, text))
    assert entries == [
        TraceEntry(1, 0.0, 600, 20, (0, 1)),
        TraceEntry(3, 7.5, 600, 20, ()),
    ]
    assert len(load_trace(_write(tmp_path, text), limit=1)) == 1


def _sim_ids(prompt: str) -> list[int]:
    return token_ids(prompt)


def test_shared_hash_ids_share_tokens_under_the_simulators_tokenizer() -> None:
    a = TraceEntry(1, 0, 1300, 5, (0, 1, 2))
    b = TraceEntry(2, 0, 1100, 5, (0, 1, 3))  # shares two full blocks, then its own
    c = TraceEntry(3, 0, 1200, 5, (0, 1, 2))  # a's blocks; its last block is longer
    d = TraceEntry(4, 0, 700, 5, ())  # no hash ids: nothing shared
    ids = [_sim_ids(s.prompt) for s in sample_trace([a, b, c, d], seed=3)]
    assert [len(x) for x in ids] == [1300, 1100, 1200, 700]  # exact lengths, one word a token
    assert ids[0][:1024] == ids[1][:1024] and ids[0][1024] != ids[1][1024]
    assert ids[2] == ids[0][:1200]  # a partial block is the start of the same block
    assert ids[3][:16] != ids[0][:16]
    again = [_sim_ids(s.prompt) for s in sample_trace([a, b, c, d], seed=3)]
    assert again == ids  # deterministic
    other = _sim_ids(sample_trace([a], seed=4)[0].prompt)
    assert other[:16] != ids[0][:16]  # another seed, other words
    samples = sample_trace([a, b], output_len=7)
    assert [s.expected_output_len for s in samples] == [7, 7]
    assert [s.prompt_len for s in samples] == [1300, 1100]


def test_predicted_hits_follow_the_hash_id_chain() -> None:
    entries = [
        TraceEntry(1, 0, 1300, 5, (0, 1, 2)),  # cold
        TraceEntry(2, 0, 1100, 5, (0, 1, 3)),  # 2 blocks
        TraceEntry(3, 0, 1400, 5, (0, 1, 2)),  # 2 blocks + the 276 tokens line 1 had of 2
        TraceEntry(4, 0, 1536, 5, (0, 9, 2)),  # 1 block: the chain breaks at 9
        TraceEntry(5, 0, 1200, 5, (0, 1, 2)),  # 2 blocks + 176 of block 2's 376 seen
    ]
    assert predicted_hit_tokens(entries) == [0, 1024, 1300, 512, 1200]


def test_the_simulators_prefix_cache_hits_where_the_trace_says() -> None:
    # The first 60 requests of the shipped trace through the simulator's own scheduler and
    # prefix cache (virtual time, one at a time so every earlier prompt is cached): each
    # request's cached tokens are the predicted ones in whole 16-token KV blocks, less the
    # last token, which vLLM always computes again.
    entries = load_trace(default_trace_path(), limit=60)
    samples = sample_trace(entries)
    workload = [(len(ids), 1, 0, ids) for ids in (_sim_ids(s.prompt) for s in samples)]
    result = replay(SimConfig(), workload, max_concurrency=1)
    cached = dict(zip(result.order, result.cached_tokens, strict=True))
    block = SimConfig().block_size
    expected = [
        min(hit // block, (e.input_length - 1) // block) * block
        for e, hit in zip(entries, predicted_hit_tokens(entries), strict=True)
    ]
    assert [cached[i] for i in range(len(entries))] == expected
    assert sum(expected) > 0.4 * sum(e.input_length for e in entries)


def test_the_shipped_trace_is_what_its_script_makes(tmp_path: Path) -> None:
    out = tmp_path / "made.jsonl"
    script = ROOT / "benchmarks" / "make_mooncake_trace.py"
    subprocess.run([sys.executable, str(script), "--output", str(out)], check=True)
    assert out.read_bytes() == default_trace_path().read_bytes()


def test_the_shipped_trace_has_the_shape_it_claims() -> None:
    entries = load_trace(default_trace_path())
    assert 200 <= len(entries) <= 500
    assert all(e.input_length + e.output_length <= SimConfig().max_model_len for e in entries)
    gaps = [b.timestamp_ms - a.timestamp_ms for a, b in itertools.pairwise(entries)]
    mean = sum(gaps) / len(gaps)
    # bursty: gaps spread more than a Poisson process's (coefficient of variation 1)
    spread = (sum((g - mean) ** 2 for g in gaps) / len(gaps)) ** 0.5 / mean
    assert spread > 1.2
    firsts = [e.hash_ids[0] for e in entries if e.hash_ids]
    assert max(firsts.count(h) for h in set(firsts)) > len(entries) / 5  # a shared system prompt
    lengths = sorted(e.input_length for e in entries)
    assert lengths[-1] > 2 * lengths[len(lengths) // 2]  # a long tail
    assert all(len(e.hash_ids) == -(-e.input_length // BLOCK_SIZE) for e in entries)
