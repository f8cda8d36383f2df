"""The GPU, model, weight-format and KV-dtype catalogue, read from resources/catalog/*.json."""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from app import jsonfile
from app.paths import config_dir, resources_dir

# CatalogError is the catalogue's error, defined beside the config reader that raises it too
from app.roofline.arch import CatalogError as CatalogError
from app.roofline.arch import ModelArch, arch_from_config, load_hf_config, short

SCHEMA = 1
GIB = 1024**3


@dataclass(frozen=True)
class GPU:
    id: str
    name: str
    memory_bytes: int
    bandwidth_bytes_per_s: float
    flops_dense_bf16: float
    flops_dense_fp8: float | None
    ops_dense_int8: float | None
    source: str
    custom: bool = False


@dataclass(frozen=True)
class WeightFormat:
    id: str
    name: str
    linear_bits: float  # bits per weight of the quantised linear layers, before scale overhead
    embedding_bits: float
    lm_head_bits: float
    compute: str  # which tensor rate the matmuls run at: 'bf16', 'fp8' or 'int8'
    source: str
    group_size: int | None = None
    group_scale_bits: float = 0.0
    group_zero_bits: float = 0.0
    per_channel_scale_bits: float = 0.0
    other_bits: float = 16.0  # norms, biases, MoE routers: kept in 16 bit by every format here

    @property
    def bytes_per_param(self) -> float:
        """Effective bytes per linear-layer weight including group scales and zeros."""
        overhead = 0.0
        if self.group_size:
            overhead = (self.group_scale_bits + self.group_zero_bits) / self.group_size
        return (self.linear_bits + overhead) / 8

    def linear_bytes(self, in_features: int, out_features: int) -> float:
        """Bytes one linear layer's weight occupies, scales and zeros included."""
        weights = in_features * out_features * self.linear_bits / 8
        if self.group_size:
            groups = -(-in_features // self.group_size) * out_features
            weights += groups * (self.group_scale_bits + self.group_zero_bits) / 8
        if self.per_channel_scale_bits:
            weights += out_features * self.per_channel_scale_bits / 8
        return weights


@dataclass(frozen=True)
class KVDtype:
    id: str
    name: str
    bytes: float
    source: str


# ---------------------------------------------------------------------------------- files


def catalog_dir() -> Path:
    return resources_dir() / "catalog"


def user_gpu_file() -> Path:
    """Where custom GPUs live: gpus.json in the app's config folder (TPOTBENCH_CONFIG_DIR wins)."""
    return config_dir() / "gpus.json"


def _read_json(path: Path, key: str) -> list[dict[str, Any]]:
    try:
        data = jsonfile.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CatalogError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise CatalogError(f"{path}: not a text file (not UTF-8)") from None
    except jsonfile.JSONProblem as exc:
        raise CatalogError(f"{path}: {exc}") from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise CatalogError(f'{path}: expected a JSON object with "schema": {SCHEMA}')
    items = data.get(key)
    if not isinstance(items, list):
        raise CatalogError(f'{path}: expected a list under "{key}"')
    return items


_MAX_GPU_AMOUNT = 1e9  # GiB, GB/s or TFLOPS: a million times today's largest GPU


def _norm(text: str) -> str:
    return re.sub(r"[\s_]+", "-", text.strip().lower())


def _gpu_from_entry(e: Any, where: str, custom: bool = False) -> GPU:
    """A GPU from one gpus.json entry; CatalogError naming the file, the entry and the field."""
    if not isinstance(e, dict):
        raise CatalogError(f"{where}: a GPU entry is {short(e)}, expected an object")
    for key in ("id", "source"):
        if not isinstance(e.get(key), str) or not e[key].strip():
            raise CatalogError(
                f"{where}: GPU entry {short(e.get('id', '?'))}: '{key}' must be a non-empty "
                "text; an entry needs id, memory_gib, bandwidth_gb_s, bf16_tflops and source"
            )
    name = e.get("name")
    if name is not None and not isinstance(name, str):
        raise CatalogError(f"{where}: GPU {e['id']!r}: 'name' must be a text, got {short(name)}")

    def amount(key: str) -> float:
        value = e.get(key)
        # Positive and finite: an infinite bandwidth would divide every floor by infinity.
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not 0 < value < _MAX_GPU_AMOUNT
        ):
            raise CatalogError(
                f"{where}: GPU {e['id']!r}: '{key}' must be a positive number, got {short(value)}"
            )
        return float(value)

    def optional(key: str) -> float | None:
        return amount(key) if e.get(key) is not None else None

    memory, bandwidth = amount("memory_gib"), amount("bandwidth_gb_s")
    tflops, fp8, int8 = amount("bf16_tflops"), optional("fp8_tflops"), optional("int8_tops")
    return GPU(
        id=_norm(e["id"]),
        name=name or e["id"],
        memory_bytes=round(memory * GIB),
        bandwidth_bytes_per_s=bandwidth * 1e9,
        flops_dense_bf16=tflops * 1e12,
        flops_dense_fp8=fp8 * 1e12 if fp8 else None,
        ops_dense_int8=int8 * 1e12 if int8 else None,
        source=e["source"],
        custom=custom,
    )


@cache
def _builtin_gpus() -> tuple[dict[str, GPU], dict[str, str]]:
    path = catalog_dir() / "gpus.json"
    gpus: dict[str, GPU] = {}
    aliases: dict[str, str] = {}
    for e in _read_json(path, "gpus"):
        gpu = _gpu_from_entry(e, str(path))
        gpus[gpu.id] = gpu
        for a in [gpu.id, gpu.name, *e.get("aliases", [])]:
            aliases[_norm(a)] = gpu.id
    return gpus, aliases


def _user_gpus() -> dict[str, GPU]:
    path = user_gpu_file()
    if not path.exists():
        return {}
    return {
        g.id: g for g in (_gpu_from_entry(e, str(path), True) for e in _read_json(path, "gpus"))
    }


def add_custom_gpu(
    gpu_id: str,
    name: str,
    memory_gib: float,
    bandwidth_gb_s: float,
    bf16_tflops: float,
    source: str,
    fp8_tflops: float | None = None,
    int8_tops: float | None = None,
) -> GPU:
    """Add (or replace) a GPU in the user's gpus.json and return it."""
    entry = {
        "id": _norm(gpu_id),
        "name": name,
        "memory_gib": memory_gib,
        "bandwidth_gb_s": bandwidth_gb_s,
        "bf16_tflops": bf16_tflops,
        "fp8_tflops": fp8_tflops,
        "int8_tops": int8_tops,
        "source": source,
    }
    gpu = _gpu_from_entry(entry, "custom GPU", True)
    path = user_gpu_file()
    entries = _read_json(path, "gpus") if path.exists() else []
    entries = [e for e in entries if _norm(str(e.get("id", ""))) != gpu.id] + [entry]
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(
        json.dumps({"schema": SCHEMA, "gpus": entries}, indent=1, allow_nan=False), encoding="utf-8"
    )
    tmp.replace(path)
    return gpu


@cache
def _builtin_models() -> tuple[dict[str, ModelArch], dict[str, str]]:
    path = catalog_dir() / "models.json"
    models: dict[str, ModelArch] = {}
    aliases: dict[str, str] = {}
    for e in _read_json(path, "models"):
        arch = arch_from_config(e, e["id"], e.get("name", ""), e.get("source", ""), str(path))
        models[arch.id] = arch
        for a in [arch.id, arch.name, *e.get("aliases", [])]:
            aliases[_norm(a)] = arch.id
    return models, aliases


_Formats = tuple[dict[str, WeightFormat], dict[str, KVDtype], dict[str, str], dict[str, str]]


@cache
def _formats() -> _Formats:
    path = catalog_dir() / "formats.json"
    fmts: dict[str, WeightFormat] = {}
    fmt_alias: dict[str, str] = {}
    for e in _read_json(path, "weight_formats"):
        fields = {k: v for k, v in e.items() if k != "aliases"}
        f = WeightFormat(**fields)
        fmts[f.id] = f
        for a in [f.id, *e.get("aliases", [])]:
            fmt_alias[_norm(a)] = f.id
    kvs: dict[str, KVDtype] = {}
    kv_alias: dict[str, str] = {}
    for e in _read_json(path, "kv_dtypes"):
        k = KVDtype(id=e["id"], name=e["name"], bytes=float(e["bytes"]), source=e["source"])
        kvs[k.id] = k
        for a in [k.id, *e.get("aliases", [])]:
            kv_alias[_norm(a)] = k.id
    return fmts, kvs, fmt_alias, kv_alias


def _unknown(kind: str, given: str, known: list[str]) -> CatalogError:
    close = difflib.get_close_matches(_norm(given), known, n=3, cutoff=0.5)
    hint = f"did you mean {', '.join(close)}? " if close else ""
    return CatalogError(f"unknown {kind} {given!r}; {hint}known: {', '.join(known)}")


def get_gpu(gpu_id: str) -> GPU:
    """A GPU by id or alias ('rtx3090', 'RTX 3090'); custom GPUs from the user file win."""
    user = _user_gpus()
    key = _norm(gpu_id)
    if key in user:
        return user[key]
    gpus, aliases = _builtin_gpus()
    if key in aliases:
        return gpus[aliases[key]]
    raise _unknown("GPU", gpu_id, sorted({*gpus, *user}))


def list_gpus() -> list[GPU]:
    gpus = dict(_builtin_gpus()[0])
    gpus.update(_user_gpus())
    return list(gpus.values())


def get_model(model_id: str) -> ModelArch:
    """A model by id or Hugging Face repo name, or a path to a config.json (or its folder)."""
    models, aliases = _builtin_models()
    key = _norm(model_id)
    if key in aliases:
        return models[aliases[key]]
    p = Path(model_id).expanduser()
    if model_id.endswith(".json") or p.is_dir() or p.is_file():
        return load_hf_config(p)
    error = _unknown("model", model_id, sorted(models))
    raise CatalogError(f"{error}; or give the path of a Hugging Face config.json")


def list_models() -> list[ModelArch]:
    return list(_builtin_models()[0].values())


def get_weight_format(fmt_id: str) -> WeightFormat:
    fmts, _, alias, _ = _formats()
    key = _norm(fmt_id)
    if key in alias:
        return fmts[alias[key]]
    raise _unknown("weight format", fmt_id, list(fmts))


def list_weight_formats() -> list[WeightFormat]:
    return list(_formats()[0].values())


def get_kv_dtype(kv_id: str) -> KVDtype:
    _, kvs, _, alias = _formats()
    key = _norm(kv_id)
    if key in alias:
        return kvs[alias[key]]
    raise _unknown("KV-cache dtype", kv_id, list(kvs))


def list_kv_dtypes() -> list[KVDtype]:
    return list(_formats()[1].values())
