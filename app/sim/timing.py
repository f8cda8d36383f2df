"""How long one engine step takes on the simulated GPU: the roofline plus a fixed overhead."""

from __future__ import annotations

from dataclasses import dataclass

from app.roofline.catalog import get_gpu, get_kv_dtype, get_model, get_weight_format
from app.roofline.decode_step import (
    decode_step_bytes,
    decode_step_flops,
    kv_bytes_per_token,
    peak_flops,
    prefill_flops,
)
from app.roofline.kv_capacity import num_gpu_blocks
from app.sim.config import SimConfig


@dataclass(frozen=True)
class StepWork:
    """What one step computes: decode contexts of running sequences and prefill chunks."""

    decode_contexts: tuple[int, ...] = ()
    prefill_chunks: tuple[tuple[int, int], ...] = ()  # (tokens in chunk, tokens already cached)
    # Speculative decoding: query tokens of each decode sequence (1 + its drafts; empty = all
    # 1) and the draft length k, i.e. how many sequential draft-model passes the step runs.
    decode_queries: tuple[int, ...] = ()
    draft_tokens: int = 0
    # Sequences that sample a token this step (decodes + prompts whose last chunk this is);
    # None = every decode and every prefill chunk.
    samples: int | None = None


# Bytes the sampler moves per vocabulary entry of one sequence's logits. `vllm bench serve`
# asks for greedy decoding (temperature 0) and vLLM applies the model's generation_config
# (Qwen2.5: repetition_penalty 1.05): the logits are cast to fp32 (read 2 B, write 4 B), the
# penalty counts the prompt's and output's tokens into vocabulary-sized masks (about 5 B)
# and rescales the logits through them (read 4 + 2, write 4 B), and argmax reads them once
# X
SAMPLER_BYTES_PER_LOGIT = 30.0

# Query rows of one FlashAttention-2 tile in its split-KV kernel, the one paged KV runs on
# (kBlockM = 64 for every head size, flash_fwd_launch_template.h): the rows a decode
# sequence's single query occupies per head when its batch also carries a prompt.
ATTENTION_QUERY_TILE = 64


class StepCostModel:
    """Step duration = max(bytes / effective bandwidth, FLOPs / effective peak) + overhead."""

    def __init__(self, config: SimConfig) -> None:
        self.gpu = get_gpu(config.gpu)
        self.model = get_model(config.model)
        self.fmt = get_weight_format(config.dtype)
        self.kv_dtype = get_kv_dtype(config.resolved_kv_dtype)
        self.num_gpu_blocks = int(
            num_gpu_blocks(
                self.gpu,
                self.model,
                self.fmt,
                self.kv_dtype,
                config.gpu_memory_utilization,
                block_size=config.block_size,
                max_num_batched_tokens=config.max_num_batched_tokens,
                max_num_seqs=config.max_num_seqs,
            )
        )
        self.kv_bytes_per_token = float(kv_bytes_per_token(self.model, self.kv_dtype))
        self._bandwidth = self.gpu.bandwidth_bytes_per_s * config.bandwidth_efficiency
        self._flops = peak_flops(self.gpu, self.fmt) * config.compute_efficiency
        self._decode_flops = peak_flops(self.gpu, self.fmt) * config.decode_compute_efficiency
        self._overhead_s = config.step_overhead_ms / 1000.0
        self._per_seq_s = config.engine_us_per_seq / 1e6
        # Elementwise kernels between the GEMMs are separate launches that stream their
        # activations through memory, one token at a time, and overlap with nothing: per token
        # and layer two fused residual-add + RMSNorms (read x and the residual, write both:
        # 4 x hidden each), rotary embedding on q and k (read and write q + k), and
        # SiLU-and-mul (read gate and up, write their product: 3 x intermediate). In the
        # activation dtype (2 B): 187 KB per token per layer, 5.25 MB per token for Qwen2.5-7B.
        m = self.model
        q, kv = m.num_attention_heads * m.head_dim, m.num_kv_heads * m.head_dim
        elements = 8 * m.hidden_size + 2 * (q + kv) + 3 * m.intermediate_size
        self.activation_bytes_per_token = float(m.num_layers * elements * 2)
        self.sampler_bytes_per_sequence = float(m.vocab_size) * SAMPLER_BYTES_PER_LOGIT
        # Weights (and LM head) are streamed once per step whatever the batch; KV is per token.
        empty = decode_step_bytes(self.model, self.fmt, self.kv_dtype, 1, 0.0)
        self._weight_bytes = float(empty.weights_bytes + empty.lm_head_bytes)
        self._param_flops = float(decode_step_flops(self.model, 1, 0.0))  # 2 x params per token
        self._attention_pair_flops = (
            float(decode_step_flops(self.model, 1, 1.0)) - self._param_flops
        )
        # An EAGLE-style draft model: one decoder layer of the target's shape that shares the
        # target's LM head. Each draft token is one sequential pass of it over the batch,
        # memory-bound like any decode: it streams that layer and the whole LM head again.
        # An n-gram drafter matches the context on the CPU while the GPU works: no GPU cost.
        layers = self.model.num_layers
        head = float(self.model.params_lm_head)
        eagle = config.speculative_method == "eagle"
        self._draft_bytes = float(empty.weights_bytes) / layers + float(empty.lm_head_bytes)
        self._draft_flops = 2.0 * ((self._param_flops / 2.0 - head) / layers + head)
        self._draft_kv_share = 1.0 / layers  # the draft layer reads its own KV only
        if not eagle:
            self._draft_bytes = self._draft_flops = self._draft_kv_share = 0.0

    def _mixed_step_seconds(self, work: StepWork, decode_kv: float, decode_rows: int) -> float:
        """The roofline of a step with a query longer than one token (a prompt's chunk, or
        drafts to verify): its weight GEMMs, then its attention.

        The GEMMs carry every scheduled token (M = decode rows + chunk tokens): a tall M,
        compute-bound at the large-GEMM rate, with the weight read hidden under it. The
        attention is another kernel per layer, after the QKV GEMM and before o_proj, so its
        time adds to theirs. vLLM V1 runs one FlashAttention varlen call over the whole
        batch (paged KV: FA2's split-KV kernel on Ampere). A decode-only batch (every query
        one token long) has its query heads packed into the rows of one tile per KV head,
        and reads each sequence's KV once. A batch with a prompt in it (or drafts to verify:
        k + 1 queries a sequence) has queries longer than one token, so the packing is off:
        every (sequence, query head) gets a tile of its own, a decode row fills 1 of its
        ATTENTION_QUERY_TILE rows (the tensor cores compute them all), and each of the query
        heads that share a KV head reads that head's K and V again (7 on Qwen2.5-7B: 28
        query heads over 4 KV heads). The grid runs the heads one after another, each over
        the whole batch, so a query head finds its KV head's blocks in L2 only while one
        head's KV of the whole batch fits there (6 MB on an RTX 3090: 32 sequences of 350
        tokens at 512 B a token and layer); the model takes none from L2, an upper bound at
        short contexts. So each step that admits a prompt costs the running batch its KV
        read times the query group, or its tiles' FLOPs, whichever is longer: more with
        every running sequence and every token of their contexts, i.e. prefill interference
        that grows with the load. At one stream only the prompt's own attention is left, no
        longer hidden under the weight read (0.5 ms for 71 tokens after 1,024 cached ones,
        tens of microseconds for an uncached prompt).
        """
        pair = self._attention_pair_flops
        prefill_pairs = sum(c * k + c * (c + 1) / 2 for c, k in work.prefill_chunks)
        prefill_linear = (
            sum(float(prefill_flops(self.model, c, k)) for c, k in work.prefill_chunks)
            - pair * prefill_pairs
        )
        verify = sum(q - 1 for q in work.decode_queries)  # speculative drafts verified
        linear = (decode_rows * self._param_flops) + prefill_linear
        gemm_s = max(
            self._weight_bytes / self._bandwidth,
            linear / self._flops,
            decode_rows * self._param_flops / self._decode_flops,
        )
        group = self.model.num_attention_heads / self.model.num_kv_heads
        prefill_kv = sum(c + k for c, k in work.prefill_chunks) + verify
        attention_bytes = (decode_kv * group + prefill_kv) * self.kv_bytes_per_token
        attention_flops = pair * (ATTENTION_QUERY_TILE * decode_kv + prefill_pairs)
        attention_s = max(attention_bytes / self._bandwidth, attention_flops / self._flops)
        return gemm_s + attention_s + self._overhead_s

    def step_seconds(self, work: StepWork) -> float:
        """Wall time of one step; zero for an empty step."""
        batch = len(work.decode_contexts)
        if batch == 0 and not work.prefill_chunks:
            return 0.0
        decode_kv = float(sum(work.decode_contexts))
        kv_tokens = decode_kv
        flops = 0.0
        if batch:
            flops += float(decode_step_flops(self.model, batch, kv_tokens / batch))
        for q, context in zip(work.decode_queries, work.decode_contexts, strict=False):
            # Verifying q - 1 drafts: q query tokens through every weight (one read of them
            # serves all), attending to the context and to each other; their KV is written.
            extra = q - 1
            flops += extra * self._param_flops
            flops += self._attention_pair_flops * (extra * context + q * (q - 1) / 2)
            kv_tokens += extra
        decode_rows = sum(work.decode_queries) if work.decode_queries else batch
        if work.prefill_chunks or any(q > 1 for q in work.decode_queries):
            # A query longer than one token (a prompt's chunk, or drafts to verify) unpacks
            # the batch's attention, a kernel the GEMMs do not hide (_mixed_step_seconds).
            seconds = self._mixed_step_seconds(work, decode_kv, decode_rows)
        else:
            total_bytes = self._weight_bytes + kv_tokens * self.kv_bytes_per_token
            # Three ceilings: the bytes, all FLOPs at the large-GEMM rate, and the decode
            # rows' weight GEMMs at the skinny-GEMM rate (SimConfig.decode_compute_efficiency):
            # a decode-only step above the ridge (32 sequences on the reference case) is set
            # by the third. Its attention reads the KV once per KV head (packed, see
            # _mixed_step_seconds), memory-bound like the GEMMs under the ridge, so the bytes
            # add up inside one ceiling.
            compute_s = max(
                flops / self._flops, decode_rows * self._param_flops / self._decode_flops
            )
            seconds = max(total_bytes / self._bandwidth, compute_s) + self._overhead_s
        tokens = decode_rows
        tokens += sum(chunk for chunk, _ in work.prefill_chunks)
        sequences = batch + len(work.prefill_chunks)
        samples = sequences if work.samples is None else work.samples
        # verifying drafts samples (argmax of) every verified position's logits
        samples += sum(q - 1 for q in work.decode_queries)
        serial_bytes = (
            tokens * self.activation_bytes_per_token + samples * self.sampler_bytes_per_sequence
        )
        seconds += serial_bytes / self._bandwidth + sequences * self._per_seq_s
        if work.draft_tokens and self._draft_bytes:
            drafting = sum(1 for q in work.decode_queries if q > 1)
            pass_bytes = (
                self._draft_bytes + decode_kv * self._draft_kv_share * self.kv_bytes_per_token
            )
            pass_flops = drafting * self._draft_flops
            seconds += work.draft_tokens * max(
                pass_bytes / self._bandwidth, pass_flops / self._flops
            )
        return seconds
