"""`tpotbench roofline`: the decode floor, bytes per step, MBU, ridge point and KV capacity."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Literal

from app.bench.schema.codec import to_json_obj
from app.bench.schema.roofline_report import RooflineReport, RooflineSources
from app.commands import flags
from app.roofline.catalog import (
    CatalogError,
    add_custom_gpu,
    get_gpu,
    get_kv_dtype,
    get_model,
    get_weight_format,
    list_gpus,
    list_kv_dtypes,
    list_models,
    list_weight_formats,
    user_gpu_file,
)
from app.roofline.decode_step import (
    arithmetic_intensity,
    decode_floor,
    decode_step_bytes,
    decode_step_flops,
    mbu,
    mfu,
    prefill_floor,
    ridge_point,
)
from app.roofline.kv_capacity import KVCapacity, kv_capacity

_GPU_FIGURE = flags.number(0.0, 1e7, above=True)  # GiB, GB/s, TFLOPS: a rack is ~1e6


def _utilisation(text: str) -> float:
    return flags.number(0.0, 1.0, above=True)(text)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--gpu", default="rtx3090", help="GPU id or name (default: rtx3090)")
    parser.add_argument(
        "--model",
        default="qwen2.5-7b",
        help="model id, Hugging Face repo name, or a path to a config.json (default: qwen2.5-7b)",
    )
    parser.add_argument(
        "--dtype",
        default="bf16",
        help="weight format: bf16 fp16 fp8 int8 awq-int4 gptq-int4 q8_0 q4_k_m (default: bf16)",
    )
    parser.add_argument("--kv-dtype", default="fp16", help="KV-cache dtype: fp16 bf16 fp8")
    parser.add_argument(
        "--batch", type=flags.whole(1, flags.MAX_BATCH), default=1, help="running sequences"
    )
    parser.add_argument(
        "--context", type=flags.whole(0), default=512, help="cached tokens per sequence"
    )
    parser.add_argument(
        "--tpot-ms", type=flags.number(0.0, 1e7, above=True), help="a measured TPOT, for MBU/MFU"
    )
    parser.add_argument(
        "--prompt-tokens", type=flags.whole(1), help="also print the prefill floor for this prompt"
    )
    parser.add_argument(
        "--gpu-memory-utilization", type=_utilisation, default=0.85, help="as vLLM's flag"
    )
    parser.add_argument("--block-size", type=flags.whole(1, 4096), default=16, help="KV block size")
    parser.add_argument(
        "--num-gpu-blocks",
        type=flags.whole(0, 10**10),
        help="the server's num_gpu_blocks (vllm:cache_config_info) instead of the estimate",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--list",
        choices=["gpus", "models", "formats"],
        help="list the catalogue instead of computing",
    )
    custom = parser.add_argument_group(
        "adding a GPU to your catalogue (gpus.json in the config dir)"
    )
    custom.add_argument("--add-gpu", metavar="ID", help="save a custom GPU under this id")
    custom.add_argument("--gpu-name", help="display name of the custom GPU")
    custom.add_argument("--memory-gib", type=_GPU_FIGURE, help="memory size in GiB")
    custom.add_argument("--bandwidth-gb-s", type=_GPU_FIGURE, help="peak bandwidth, GB/s")
    custom.add_argument("--bf16-tflops", type=_GPU_FIGURE, help="dense BF16/FP16 TFLOPS")
    custom.add_argument("--fp8-tflops", type=_GPU_FIGURE, help="dense FP8 TFLOPS")
    custom.add_argument("--int8-tops", type=_GPU_FIGURE, help="dense INT8 TOPS")
    custom.add_argument("--source", help="where the numbers come from (datasheet, URL)")


def compute(args: argparse.Namespace) -> RooflineReport:
    """Every figure the command prints (raises CatalogError)."""
    gpu, model = get_gpu(args.gpu), get_model(args.model)
    fmt, kv = get_weight_format(args.dtype), get_kv_dtype(args.kv_dtype)
    step = decode_step_bytes(model, fmt, kv, args.batch, args.context)
    floor = decode_floor(gpu, model, fmt, kv, args.batch, args.context)
    single = decode_floor(gpu, model, fmt, kv, 1, args.context)
    cap_source: Literal["server", "estimate"]
    if args.num_gpu_blocks is not None:
        cap = KVCapacity(
            args.num_gpu_blocks, args.block_size, args.num_gpu_blocks * args.block_size
        )
        cap_source = "server"
    else:
        cap = kv_capacity(gpu, model, fmt, kv, args.gpu_memory_utilization, args.block_size)
        cap_source = "estimate"
    flops = decode_step_flops(model, args.batch, args.context)
    seconds = None if args.tpot_ms is None else args.tpot_ms / 1e3
    prefill = prefill_floor(gpu, model, fmt, args.prompt_tokens) if args.prompt_tokens else None
    return RooflineReport(
        gpu=gpu.id,
        model=model.id,
        dtype=fmt.id,
        kv_dtype=kv.id,
        batch=args.batch,
        context=args.context,
        floor_tpot_ms=floor.seconds * 1e3,
        memory_ms=floor.memory_s * 1e3,
        compute_ms=floor.compute_s * 1e3,
        bound=floor.bound,
        bytes_per_step=step.total_bytes,
        weights_bytes=step.weights_bytes,
        lm_head_bytes=step.lm_head_bytes,
        kv_bytes=step.kv_bytes,
        flops_per_step=flops,
        arithmetic_intensity=arithmetic_intensity(model, fmt, kv, args.batch, args.context),
        ridge_flops_per_byte=ridge_point(gpu, fmt),
        best_single_stream_tok_s=1.0 / single.seconds,
        kv_capacity_tokens=cap.tokens,
        num_gpu_blocks=cap.num_gpu_blocks,
        block_size=cap.block_size,
        kv_capacity_source=cap_source,
        max_concurrency_at_context=cap.concurrency(args.context) if args.context else None,
        tpot_ms=args.tpot_ms,
        mbu=None if seconds is None else mbu(step.total_bytes, seconds, gpu),
        mfu=None if seconds is None else mfu(flops, seconds, gpu, fmt),
        sources=RooflineSources(gpu=gpu.source, model=model.source, dtype=fmt.source),
        prefill_floor_ms=None if prefill is None else prefill.seconds * 1e3,
    )


def _gb(n: float) -> str:
    return f"{n / 1e9:.3f} GB"


def _text(r: RooflineReport) -> str:
    lines = [
        f"{r.model} ({r.dtype}, KV {r.kv_dtype}) on {r.gpu}, batch {r.batch}, context {r.context}",
        f"  floor TPOT       {r.floor_tpot_ms:.2f} ms ({r.bound}-bound: memory "
        f"{r.memory_ms:.2f} ms, compute {r.compute_ms:.2f} ms)",
        f"  bytes per step   {_gb(r.bytes_per_step)} = weights {_gb(r.weights_bytes)} "
        f"+ LM head {_gb(r.lm_head_bytes)} + KV {_gb(r.kv_bytes)}",
        f"  best single-stream {r.best_single_stream_tok_s:.1f} tok/s",
        f"  ridge point      {r.ridge_flops_per_byte:.1f} FLOP/byte "
        f"(this step: {r.arithmetic_intensity:.2f} FLOP/byte)",
        f"  KV capacity      {r.kv_capacity_tokens:,} tokens ({r.num_gpu_blocks:,} blocks "
        f"of {r.block_size}, {r.kv_capacity_source})",
    ]
    if r.max_concurrency_at_context is not None:
        lines.append(
            f"  concurrency      {r.max_concurrency_at_context:.1f} sequences of {r.context} tokens"
        )
    if r.prefill_floor_ms is not None:
        lines.append(f"  prefill floor    {r.prefill_floor_ms:.2f} ms")
    if r.mbu is not None and r.mfu is not None:
        lines.append(
            f"  measured {r.tpot_ms:g} ms: MBU {r.mbu * 100:.1f} %, MFU {r.mfu * 100:.2f} %"
        )
    return "\n".join(lines)


def _listing(kind: str) -> str:
    if kind == "gpus":
        return "\n".join(
            f"{g.id:<16} {g.memory_bytes / 2**30:>5.0f} GiB {g.bandwidth_bytes_per_s / 1e9:>6.0f} "
            f"GB/s {g.flops_dense_bf16 / 1e12:>7.1f} TFLOPS  {g.name}"
            for g in list_gpus()
        )
    if kind == "models":
        return "\n".join(
            f"{m.id:<16} {m.params_total / 1e9:>7.2f}B  {m.name}" for m in list_models()
        )
    fmts = [f"{f.id:<10} {f.bytes_per_param:.4f} B/weight  {f.name}" for f in list_weight_formats()]
    kvs = [f"kv {k.id:<7} {k.bytes:g} B/element" for k in list_kv_dtypes()]
    return "\n".join(fmts + kvs)


def _add_gpu(args: argparse.Namespace) -> int:
    needed = {
        "--memory-gib": args.memory_gib,
        "--bandwidth-gb-s": args.bandwidth_gb_s,
        "--bf16-tflops": args.bf16_tflops,
        "--source": args.source,
    }
    missing = [flag for flag, value in needed.items() if not value]
    if missing:
        print(
            f"tpotbench roofline: error: --add-gpu also needs {', '.join(missing)}", file=sys.stderr
        )
        return 2
    gpu = add_custom_gpu(
        args.add_gpu,
        args.gpu_name or args.add_gpu,
        args.memory_gib,
        args.bandwidth_gb_s,
        args.bf16_tflops,
        args.source,
        args.fp8_tflops,
        args.int8_tops,
    )
    print(f"saved GPU {gpu.id!r} to {user_gpu_file()}; use it with --gpu {gpu.id}")
    return 0


def run(args: argparse.Namespace) -> int:
    try:
        if args.add_gpu:
            return _add_gpu(args)
        if args.list:
            print(_listing(args.list))
            return 0
        result = compute(args)
    except CatalogError as exc:
        print(f"tpotbench roofline: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"tpotbench roofline: error: cannot save the GPU: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(to_json_obj(result), indent=1) if args.json else _text(result))
    return 0
