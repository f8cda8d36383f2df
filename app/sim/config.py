"""Every setting of the simulated vLLM server, with validation that names the bad value."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

FAULT_KINDS: dict[str, str] = {
    "429": "answer 429 Too Many Requests with a Retry-After header",
    "500": "answer 500 Internal Server Error",
    "cut": "stream half the reply, then drop the connection (no finish_reason, no [DONE])",
    "malformed": "send one chunk that is not valid JSON in the middle of the stream",
    "no-choices": "answer 200 with a JSON body (or chunks) that has no 'choices' key",
    "slow-first-byte": "hold the response headers back for --slow-first-byte-ms",
}


DEFAULT_SPIN_US = 3000.0
_MAX_TOKENS = 100_000_000  # token counts: ten times the longest context served today
_MAX_MS = 3_600_000.0  # delays: an hour


class SimConfigError(ValueError):
    """A setting is out of range; the message says which and what is allowed."""


@dataclass
class SimConfig:
    """The simulator's settings; defaults are the field guide's RTX 3090 + Qwen2.5-7B case."""

    host: str = "127.0.0.1"
    port: int = 8000
    gpu: str = "rtx3090"
    model: str = "qwen2.5-7b"
    dtype: str = "bf16"
    kv_cache_dtype: str = "auto"
    served_model_name: list[str] = field(default_factory=lambda: ["qwen2.5-7b"])
    gpu_memory_utilization: float = 0.85
    max_model_len: int = 4096
    max_num_seqs: int = 256
    max_num_batched_tokens: int = 2048
    block_size: int = 16
    seed: int = 0
    # Timing model, calibrated on the field guide (see benchmarks/sim_calibration.py).
    bandwidth_efficiency: float = 0.86
    # About 57 of the RTX 3090's 71 dense BF16 TFLOP/s in prefill (large GEMMs on a consumer
    # card under its power limit): TTFT at one user comes out 36 ms against the field guide's
    # 41 ms, while concurrency 32 keeps its throughput (see benchmarks/sim_calibration.py).
    compute_efficiency: float = 0.8
    # The tensor rate of a decode step's GEMMs, whose M is the batch (one row per running
    # sequence), as a share of peak. Skinny GEMMs run far below the prefill's: with M <= 64
    # rows the output has a handful of tiles per projection (Qwen2.5-7B's o_proj and
    # down_proj: 28 tiles of 128 columns for 82 SMs), so most SMs' tensor cores idle or
    # split K and reduce, and the kernels picked for small M trade tensor rate for bandwidth.
    # The field guide fixes the value: its throughput saturates at concurrency 32 (978 tok/s,
    # "near saturation"), i.e. a 32-sequence decode step is where the GEMMs' compute time
    # reaches the step's memory time: 32 x 14.1 GFLOP in 18.4 ms (14.1 GB of weights plus 32
    # contexts of ~360 tokens of KV, at 805 GB/s) = 24.6 TFLOP/s, 0.35 of the 71 dense. Above
    # 32 a decode step grows with the batch (64 sequences: ~40 ms instead of ~23), and the TPOT
    # P99 with it: the guide's knee between 32 and 64 follows, it is not fitted.
    decode_compute_efficiency: float = 0.35
    step_overhead_ms: float = 2.0
    # CPU time per scheduled sequence per step: vLLM V1's engine core runs schedule(), the
    # model runner's input preparation and update_from_output() between GPU steps, each a
    # Python loop over the batch's requests (slot allocation, block tables, appending the
    # sampled token, stop checks, building the request's output), roughly 15 us per request
    # per step without async scheduling; the GPU waits meanwhile.
    engine_us_per_seq: float = 15.0
    # Wake this long before a step's deadline and busy-wait the rest: event-loop timers fire up
    # to ~2 ms late (millisecond ticks, a cached loop clock). None = 3000 us in a process of its
    # own, 0 in a thread (spinning would hold the interpreter lock the host application needs).
    spin_us: float | None = None
    # Front-end time per streamed token: vLLM's API server turns one step's outputs into SSE
    # chunks one request after another (detokenize, serialise, write), tens of microseconds
    # each, while the engine runs the next step. Token i of a step is therefore due this much
    # after token i-1, not all at the step's end; 0 = every token due at the step's end.
    frontend_us_per_token: float = 20.0
    # Natural reply length (tokens) when ignore_eos is off: log-normal, heavy-tailed. Long on
    # purpose: in the field guide's run (ShareGPT prompts, max_tokens = the dataset reply) the
    # model generated 211.6 tokens per request, the dataset's mean, so EOS rarely came first.
    eos_median_tokens: float = 1200.0
    eos_sigma: float = 0.5
    # Automatic prefix caching, on by default as in vLLM V1 (--no-enable-prefix-caching).
    enable_prefix_caching: bool = True
    # usage.prompt_tokens_details.cached_tokens, sent (like vLLM) only when some prompt tokens
    # were cached. vLLM needs --enable-prompt-tokens-details for it; the simulator sends it
    # unless told --no-enable-prompt-tokens-details.
    enable_prompt_tokens_details: bool = True
    # A reasoning model: this share of each chat reply streams as `reasoning_content` before
    # the answer (as vLLM with --reasoning-parser sends it); 0 = an ordinary model.
    reasoning_share: float = 0.0
    # Speculative decoding: k drafts per decode step, each position accepted with this
    # probability (independently, up to the first rejection); drafts from a one-layer
    # EAGLE-style head ("eagle") or n-gram matching on the CPU ("ngram"). 0 = off.
    num_speculative_tokens: int = 0
    spec_acceptance_rate: float = 0.7
    speculative_method: str = "eagle"
    # Gateway behaviour.
    path_prefix: str = ""
    api_key: str | None = field(default=None, repr=False)
    network_latency_ms: float = 0.0
    # Fault injection (off unless `faults` is non-empty).
    faults: list[str] = field(default_factory=list)
    fault_rate: float | None = None
    fault_every: int | None = None
    retry_after_s: int = 1
    slow_first_byte_ms: float = 2000.0
    no_stream_usage: bool = False
    disable_metrics: bool = False

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{f.name}={getattr(self, f.name)!r}" for f in dataclasses.fields(self) if f.repr
        )
        key = ", api_key=<set>" if self.api_key else ""
        return f"SimConfig({shown}{key})"

    @property
    def resolved_kv_dtype(self) -> str:
        """vLLM's 'auto' stores the KV cache in the model's activation dtype."""
        if self.kv_cache_dtype != "auto":
            return self.kv_cache_dtype
        return "fp16" if self.dtype == "fp16" else "bf16"

    @property
    def normalized_prefix(self) -> str:
        prefix = self.path_prefix.strip()
        if not prefix or prefix == "/":
            return ""
        return "/" + prefix.strip("/")

    def _check_sizes(self) -> None:
        """Infinite or absurd values that pass the range checks above but would stall the
        event loop (an infinite delay), overflow a conversion or allocate without bound."""
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, float) and not math.isfinite(value):
                flag = "--" + f.name.replace("_", "-").removesuffix("-s")
                raise SimConfigError(f"{flag} must be a finite number, got {value}")
        limits = [
            ("--max-model-len", self.max_model_len, _MAX_TOKENS),
            ("--max-num-batched-tokens", self.max_num_batched_tokens, _MAX_TOKENS),
            ("--max-num-seqs", self.max_num_seqs, 1_000_000),
            ("--eos-median-tokens", self.eos_median_tokens, _MAX_TOKENS),
            ("--eos-sigma", self.eos_sigma, 100),
            ("--step-overhead-ms", self.step_overhead_ms, _MAX_MS),
            ("--network-latency-ms", self.network_latency_ms, _MAX_MS),
            ("--slow-first-byte-ms", self.slow_first_byte_ms, _MAX_MS),
            ("--retry-after", self.retry_after_s, 86_400),
            ("--seed", self.seed, 2**32 - 1),
            ("--fault-every", self.fault_every or 0, 1_000_000_000),
        ]
        for flag, value, limit in limits:
            if value > limit:
                raise SimConfigError(f"{flag} must be at most {limit:,}, got {value:.3g}")
        if self.seed < 0:
            raise SimConfigError(f"--seed must not be negative, got {self.seed}")

    # Long on purpose: a flat table of independent range checks, one row per setting.
    def validate(self) -> None:
        """Raise SimConfigError with a one-line message for the first out-of-range setting."""
        checks: list[tuple[bool, str]] = [
            (0 <= self.port <= 65535, f"--port must be 0-65535, got {self.port}"),
            (
                0.0 < self.gpu_memory_utilization <= 1.0,
                f"--gpu-memory-utilization must be in (0, 1], got {self.gpu_memory_utilization}",
            ),
            (self.max_model_len >= 16, f"--max-model-len must be >= 16, got {self.max_model_len}"),
            (self.max_num_seqs >= 1, f"--max-num-seqs must be >= 1, got {self.max_num_seqs}"),
            (
                self.max_num_batched_tokens >= 16,
                f"--max-num-batched-tokens must be >= 16, got {self.max_num_batched_tokens}",
            ),
            (
                self.block_size in (8, 16, 32),
                f"--block-size must be 8, 16 or 32, got {self.block_size}",
            ),
            (
                0.0 < self.bandwidth_efficiency <= 1.0,
                f"--bandwidth-efficiency must be in (0, 1], got {self.bandwidth_efficiency}",
            ),
            (
                0.0 < self.compute_efficiency <= 1.0,
                f"--compute-efficiency must be in (0, 1], got {self.compute_efficiency}",
            ),
            (
                0.0 < self.decode_compute_efficiency <= 1.0,
                "--decode-compute-efficiency must be in (0, 1], got "
                f"{self.decode_compute_efficiency}",
            ),
            (
                self.step_overhead_ms >= 0,
                f"--step-overhead-ms must be >= 0, got {self.step_overhead_ms}",
            ),
            (
                0 <= self.engine_us_per_seq <= 10_000,
                f"--engine-us-per-seq must be 0-10000, got {self.engine_us_per_seq}",
            ),
            (
                self.eos_median_tokens >= 1,
                f"--eos-median-tokens must be >= 1, got {self.eos_median_tokens}",
            ),
            (
                self.spin_us is None or 0 <= self.spin_us <= 20_000,
                f"--spin-us must be 0-20000, got {self.spin_us}",
            ),
            (self.eos_sigma >= 0, f"--eos-sigma must be >= 0, got {self.eos_sigma}"),
            (
                0 <= self.frontend_us_per_token <= 1000,
                f"--frontend-us-per-token must be 0-1000, got {self.frontend_us_per_token}",
            ),
            (
                self.network_latency_ms >= 0,
                f"--network-latency-ms must be >= 0, got {self.network_latency_ms}",
            ),
            (
                self.fault_rate is None or 0.0 <= self.fault_rate <= 1.0,
                f"--fault-rate must be in [0, 1], got {self.fault_rate}",
            ),
            (
                self.fault_every is None or self.fault_every >= 1,
                f"--fault-every must be >= 1, got {self.fault_every}",
            ),
            (self.retry_after_s >= 0, f"--retry-after must be >= 0, got {self.retry_after_s}"),
            (
                self.slow_first_byte_ms >= 0,
                f"--slow-first-byte-ms must be >= 0, got {self.slow_first_byte_ms}",
            ),
            (bool(self.served_model_name), "--served-model-name needs at least one name"),
            (
                0.0 <= self.reasoning_share <= 1.0,
                f"--reasoning-share must be in [0, 1], got {self.reasoning_share}",
            ),
            (
                0 <= self.num_speculative_tokens <= 16,
                f"--num-speculative-tokens must be 0-16, got {self.num_speculative_tokens}",
            ),
            (
                0.0 <= self.spec_acceptance_rate < 1.0,
                f"--spec-acceptance-rate must be in [0, 1), got {self.spec_acceptance_rate}",
            ),
            (
                self.speculative_method in ("eagle", "ngram"),
                f"--speculative-method must be eagle or ngram, got {self.speculative_method!r}",
            ),
            (
                self.kv_cache_dtype in ("auto", "fp16", "bf16", "fp8"),
                f"--kv-cache-dtype must be auto, fp16, bf16 or fp8, got {self.kv_cache_dtype!r}",
            ),
        ]
        for ok, message in checks:
            if not ok:
                raise SimConfigError(message)
        self._check_sizes()
        self._check_names()

    def _check_names(self) -> None:
        """Settings that name something: fault kinds, the path prefix."""
        for kind in self.faults:
            if kind not in FAULT_KINDS:
                known = ", ".join(FAULT_KINDS)
                raise SimConfigError(f"unknown --fault {kind!r}; choose from {known}")
        if self.path_prefix and not self.normalized_prefix.startswith("/"):
            raise SimConfigError(f"--path-prefix must look like /api, got {self.path_prefix!r}")
