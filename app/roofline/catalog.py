"""The GPU, model, weight-format and KV-dtype catalogue, read from resources/catalog/*.json."""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

from app import jsonfile
from app.paths import resources_dir

SCHEMA = 1
GIB = 1024**3


class CatalogError(ValueError):
    """An unknown id, or a catalogue / config.json file that cannot be used; one-line message."""


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


@dataclass(frozen=True)
class ModelArch:
    id: str
    name: str
    params_total: int
    params_embedding: int
    num_layers: int
    hidden_size: int
    intermediate_size: int
    num_attention_heads: int
    num_kv_heads: int
    head_dim: int
    vocab_size: int
    tie_word_embeddings: bool
    params_active: int
    source: str
    model_type: str = ""
    attention_bias: bool = False
    qk_norm: bool = False
    norms_per_layer: int = 2
    num_experts: int = 0
    experts_per_tok: int = 0
    moe_intermediate_size: int = 0
    shared_expert_intermediate_size: int = 0
    params_reported_b: float | None = None
    params_active_reported_b: float | None = None

    @property
    def is_moe(self) -> bool:
        return self.num_experts > 0

    def attention_linears(self) -> list[tuple[int, int]]:
        """(in_features, out_features) of one layer's q, k, v, o projections."""
        h, q = self.hidden_size, self.num_attention_heads * self.head_dim
        kv = self.num_kv_heads * self.head_dim
        return [(h, q), (h, kv), (h, kv), (q, h)]

    def mlp_linears(self) -> list[tuple[int, int]]:
        """(in, out) of the dense gated MLP of one layer: gate, up, down."""
        h, i = self.hidden_size, self.intermediate_size
        return [(h, i), (h, i), (i, h)]

    def expert_linears(self) -> list[tuple[int, int]]:
        """(in, out) of one routed expert: gate, up, down."""
        h, i = self.hidden_size, self.moe_intermediate_size
        return [(h, i), (h, i), (i, h)]

    def shared_expert_linears(self) -> list[tuple[int, int]]:
        h, i = self.hidden_size, self.shared_expert_intermediate_size
        return [(h, i), (h, i), (i, h)] if i else []

    def other_params_per_layer(self) -> int:
        """Norm weights, attention biases and the MoE router: small, kept in 16 bit."""
        n = self.norms_per_layer * self.hidden_size
        if self.attention_bias:
            n += (self.num_attention_heads + 2 * self.num_kv_heads) * self.head_dim
        if self.qk_norm:
            n += 2 * self.head_dim
        if self.is_moe:
            n += self.hidden_size * self.num_experts
            if self.shared_expert_intermediate_size:
                n += self.hidden_size  # the shared expert's sigmoid gate
        return n

    @property
    def params_lm_head(self) -> int:
        return self.vocab_size * self.hidden_size


def _pairs(linears: list[tuple[int, int]]) -> int:
    return sum(a * b for a, b in linears)


def _count_params(arch: ModelArch) -> tuple[int, int]:
    """(total, active) parameters from the architecture numbers."""
    attn = _pairs(arch.attention_linears())
    other = arch.other_params_per_layer()
    if arch.is_moe:
        shared = _pairs(arch.shared_expert_linears())
        expert = _pairs(arch.expert_linears())
        per_layer_total = attn + other + shared + arch.num_experts * expert
        per_layer_active = attn + other + shared + arch.experts_per_tok * expert
    else:
        per_layer_total = per_layer_active = attn + other + _pairs(arch.mlp_linears())
    tail = arch.params_embedding + arch.hidden_size  # input table + final norm
    if not arch.tie_word_embeddings:
        tail += arch.params_lm_head
    return (
        arch.num_layers * per_layer_total + tail,
        arch.num_layers * per_layer_active + tail,
    )


# transformers' per-architecture defaults for keys a config.json may leave out
_TIED_DEFAULT = {"gemma": True, "gemma2": True, "gemma3_text": True}
_BIAS_DEFAULT = {"qwen2": True, "qwen2_moe": True}
_QK_NORM = {"qwen3", "qwen3_moe", "gemma3_text"}
_FOUR_NORMS = {"gemma2", "gemma3_text"}
# Far past any real model (hidden sizes are ~1e4, vocabularies ~1e6): a larger value is a typo
# and would only make the byte sums meaningless.
_MAX_DIMENSION = 10**9


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


_REQUIRED = (
    "hidden_size",
    "num_hidden_layers",
    "num_attention_heads",
    "vocab_size",
)


def arch_from_config(
    cfg: dict[str, Any], model_id: str, name: str = "", source: str = "", where: str = "config"
) -> ModelArch:
    """Build a ModelArch from the keys of a Hugging Face config.json (raises CatalogError)."""
    if not isinstance(cfg, dict):
        raise CatalogError(f"{where}: expected a JSON object like a Hugging Face config.json")
    if isinstance(cfg.get("text_config"), dict):  # multimodal wrappers keep the LM inside
        cfg = {**cfg["text_config"], **{k: v for k, v in cfg.items() if k == "model_type"}}
    missing = [k for k in _REQUIRED if k not in cfg]
    if missing:
        raise CatalogError(
            f"{where}: not a decoder-only transformer config (missing {', '.join(missing)}); "
            "pass the model's Hugging Face config.json"
        )

    def num(key: str, default: Any = None, low: int = 1) -> int:
        value = cfg.get(key, default)
        if (
            isinstance(value, bool)
            or not isinstance(value, int)
            or not low <= value <= _MAX_DIMENSION
        ):
            kind = "a positive integer" if low else "a whole number, 0 or more"
            raise CatalogError(f"{where}: '{key}' must be {kind}, got {_short(value)}")
        return value

    def optional(key: str) -> int:
        return num(key, 0, low=0) if cfg.get(key) is not None else 0

    def flag(key: str, default: bool) -> bool:
        value = cfg.get(key, default)
        if not isinstance(value, bool):
            raise CatalogError(f"{where}: '{key}' must be true or false, got {_short(value)}")
        return value

    def reported(key: str) -> float | None:
        value = cfg.get(key)
        if value is None or (
            isinstance(value, int | float) and not isinstance(value, bool) and 0 < value < 1e6
        ):
            return value
        raise CatalogError(f"{where}: '{key}' must be a number of billions, got {_short(value)}")

    mtype = cfg.get("model_type", "")
    if not isinstance(mtype, str):
        raise CatalogError(f"{where}: 'model_type' must be a string, got {_short(mtype)}")
    hidden, heads = num("hidden_size"), num("num_attention_heads")
    n_experts = optional("num_experts") or optional("num_local_experts")
    inter = num("intermediate_size") if "intermediate_size" in cfg or not n_experts else 0
    moe_inter = 0
    if n_experts:
        moe_inter = num("moe_intermediate_size", cfg.get("intermediate_size"))
        if cfg.get("mlp_only_layers") or num("decoder_sparse_step", 1) != 1:
            raise CatalogError(f"{where}: MoE layouts with dense-only layers are not supported")
    head_dim = num("head_dim") if cfg.get("head_dim") else hidden // heads
    if head_dim < 1:
        raise CatalogError(
            f"{where}: 'num_attention_heads' ({heads}) is larger than 'hidden_size' ({hidden})"
        )
    arch = ModelArch(
        id=model_id,
        name=name or model_id,
        params_total=0,
        params_embedding=num("vocab_size") * hidden,
        num_layers=num("num_hidden_layers"),
        hidden_size=hidden,
        intermediate_size=inter,
        num_attention_heads=heads,
        num_kv_heads=num("num_key_value_heads", heads),
        head_dim=head_dim,
        vocab_size=num("vocab_size"),
        tie_word_embeddings=flag("tie_word_embeddings", _TIED_DEFAULT.get(mtype, False)),
        params_active=0,
        source=source or where,
        model_type=mtype,
        attention_bias=flag("attention_bias", _BIAS_DEFAULT.get(mtype, False)),
        qk_norm=mtype in _QK_NORM,
        norms_per_layer=4 if mtype in _FOUR_NORMS else 2,
        num_experts=n_experts,
        experts_per_tok=num("num_experts_per_tok") if n_experts else 0,
        moe_intermediate_size=moe_inter,
        shared_expert_intermediate_size=optional("shared_expert_intermediate_size"),
        params_reported_b=reported("params_reported_b"),
        params_active_reported_b=reported("params_active_reported_b"),
    )
    total, active = _count_params(arch)
    return replace(arch, params_total=total, params_active=active)


def load_hf_config(path: str | Path) -> ModelArch:
    """A ModelArch from a Hugging Face config.json on disk (or the folder holding one)."""
    p = Path(path).expanduser()
    if p.is_dir():
        p = p / "config.json"
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise CatalogError(f"cannot read {p}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise CatalogError(f"{p}: not a text file (not UTF-8)") from None
    try:
        cfg = jsonfile.loads(text)
    except jsonfile.JSONProblem as exc:
        raise CatalogError(f"{p}: {exc}") from None
    if not isinstance(cfg, dict):
        raise CatalogError(f"{p}: expected a JSON object like a Hugging Face config.json")
    model_id = p.parent.name.lower() or p.stem
    return arch_from_config(
        cfg, model_id, name=p.parent.name, source=f"config.json at {p}", where=str(p)
    )


# ---------------------------------------------------------------------------------- files


def catalog_dir() -> Path:
    return resources_dir() / "catalog"


def user_gpu_file() -> Path:
    """Where custom GPUs live: gpus.json in the app's config folder (TPOTBENCH_CONFIG_DIR wins)."""
    from app.profiles import config_dir

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
        raise CatalogError(f"{where}: a GPU entry is {_short(e)}, expected an object")
    for key in ("id", "source"):
        if not isinstance(e.get(key), str) or not e[key].strip():
            raise CatalogError(
                f"{where}: GPU entry {_short(e.get('id', '?'))}: '{key}' must be a non-empty "
                "text; an entry needs id, memory_gib, bandwidth_gb_s, bf16_tflops and source"
            )
    name = e.get("name")
    if name is not None and not isinstance(name, str):
        raise CatalogError(f"{where}: GPU {e['id']!r}: 'name' must be a text, got {_short(name)}")

    def amount(key: str) -> float:
        value = e.get(key)
        # Positive and finite: an infinite bandwidth would divide every floor by infinity.
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not 0 < value < _MAX_GPU_AMOUNT
        ):
            raise CatalogError(
                f"{where}: GPU {e['id']!r}: '{key}' must be a positive number, got {_short(value)}"
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
