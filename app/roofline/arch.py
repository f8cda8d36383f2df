"""A model's architecture numbers (layers, heads, experts) and its parameter counts, from a
Hugging Face config.json or a catalogue entry."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from app import jsonfile


class CatalogError(ValueError):
    """An unknown id, or a catalogue / config.json file that cannot be used; one-line message."""


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


def short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


_REQUIRED = (
    "hidden_size",
    "num_hidden_layers",
    "num_attention_heads",
    "vocab_size",
)


class _Keys:
    """Typed reads of a config.json's keys; CatalogError naming the key and the file."""

    def __init__(self, cfg: dict[str, Any], where: str) -> None:
        self.cfg = cfg
        self.where = where

    def num(self, key: str, default: Any = None, low: int = 1) -> int:
        value = self.cfg.get(key, default)
        if (
            isinstance(value, bool)
            or not isinstance(value, int)
            or not low <= value <= _MAX_DIMENSION
        ):
            kind = "a positive integer" if low else "a whole number, 0 or more"
            raise CatalogError(f"{self.where}: '{key}' must be {kind}, got {short(value)}")
        return value

    def optional(self, key: str) -> int:
        return self.num(key, 0, low=0) if self.cfg.get(key) is not None else 0

    def flag(self, key: str, default: bool) -> bool:
        value = self.cfg.get(key, default)
        if not isinstance(value, bool):
            raise CatalogError(f"{self.where}: '{key}' must be true or false, got {short(value)}")
        return value

    def reported(self, key: str) -> float | None:
        value = self.cfg.get(key)
        if value is None or (
            isinstance(value, int | float) and not isinstance(value, bool) and 0 < value < 1e6
        ):
            return value
        raise CatalogError(
            f"{self.where}: '{key}' must be a number of billions, got {short(value)}"
        )


def _decoder_config(cfg: dict[str, Any], where: str) -> dict[str, Any]:
    """The language model's part of a config (a multimodal one keeps it in text_config),
    checked to have the keys of a decoder-only transformer."""
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
    return cfg


def arch_from_config(
    cfg: dict[str, Any], model_id: str, name: str = "", source: str = "", where: str = "config"
) -> ModelArch:
    """Build a ModelArch from the keys of a Hugging Face config.json (raises CatalogError)."""
    cfg = _decoder_config(cfg, where)
    keys = _Keys(cfg, where)
    num, optional, flag, reported = keys.num, keys.optional, keys.flag, keys.reported
    mtype = cfg.get("model_type", "")
    if not isinstance(mtype, str):
        raise CatalogError(f"{where}: 'model_type' must be a string, got {short(mtype)}")
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
