"""The sweep form as shell commands a user can paste: the `tpotbench sweep`/`search` line the
window would run (from the same argv builder), and the matching `vllm bench serve` line per point
where vLLM has the same workload. Never the key: its variable's name only."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field, replace

from app.bench.datasets.sharegpt import default_sharegpt_path
from app.bench.http.endpoint import EndpointError, resolve_endpoint
from app.bench.results.naming import point_filename, rate_label
from app.commands.argv import KEY_ENV, SweepSpec, build_sweep_argv, dataset_args
from app.paths import cli_command
from app.profiles import Target

# The variable a pasted command reads the key from: the one vLLM's own client reads too.
USER_KEY_ENV = "OPENAI_API_KEY"


@dataclass
class CopiedCommands:
    """What "Copy as command" puts on the clipboard, and what it could not translate."""

    tpotbench: str
    vllm: list[str] = field(default_factory=list)
    vllm_missing: str = ""  # why there is no vLLM line ('' when there are)
    needs_key: bool = False

    def text(self) -> str:
        """The clipboard's text: a key reminder (never the key), our line, vLLM's lines."""
        lines = []
        if self.needs_key:
            lines.append(f"# the key is not copied: export {USER_KEY_ENV}=<your key> first")
        lines.append(self.tpotbench)
        if self.vllm:
            lines.append("# the same points with vLLM's own client (no SLO verdicts there):")
            lines += self.vllm
        elif self.vllm_missing:
            lines.append(f"# no vllm bench serve line: {self.vllm_missing}")
        return "\n".join(lines) + "\n"


def _user_argv(spec: SweepSpec, target: Target) -> list[str]:
    """The window's argv as a user types it: `tpotbench` for the interpreter, no event stream,
    the key's variable named as the user's."""
    argv = build_sweep_argv(spec, target)
    prefix = len(cli_command())
    out = ["tpotbench", *argv[prefix:]]
    i = out.index("--events")
    del out[i : i + 2]
    if "--api-key-env" in out:
        out[out.index("--api-key-env") + 1] = USER_KEY_ENV
    assert KEY_ENV not in out
    return out


def _vllm_dataset(spec: SweepSpec) -> list[str] | None:
    """The window's own dataset flags, which are vLLM's names, where vLLM has the dataset."""
    if spec.dataset not in ("random", "prefix", "sharegpt", "synthetic"):
        return None
    args = dataset_args(spec)
    if spec.dataset == "prefix":
        args[1] = "prefix_repetition"  # vLLM's --dataset-name for the same generator
    if spec.dataset == "synthetic":  # our shipped file, which vLLM's client must be given
        args += ["--dataset-path", str(default_sharegpt_path())]
    return args


def _vllm_lines(spec: SweepSpec, target: Target) -> tuple[list[str], str]:
    """One `vllm bench serve` line per point, or ([], why not)."""
    if spec.search is not None:
        return [], "vLLM has no capacity search"
    if target.headers:
        return [], "vLLM's client cannot send the extra headers"
    if target.ray_address:
        return [], "vLLM's client runs in one process"
    dataset = _vllm_dataset(spec)
    if dataset is None:
        return [], f"vLLM has no {spec.dataset} dataset"
    api = "chat" if target.api == "chat" else "completions"
    try:
        resolved = resolve_endpoint(target.base_url, api=api)
    except EndpointError as exc:
        return [], str(exc)
    if not resolved.url.startswith(resolved.root_url) or "?" in resolved.url:
        return [], "vLLM's client cannot send a query string"
    endpoint = resolved.url[len(resolved.root_url) :]
    common = [
        "vllm",
        "bench",
        "serve",
        "--backend",
        "openai-chat" if api == "chat" else "openai",
        "--base-url",
        resolved.root_url,
        "--endpoint",
        endpoint,
    ]
    if target.model:
        common += ["--model", target.model]
    common += [*dataset, "--num-prompts", str(spec.num_prompts), "--seed", str(spec.seed)]
    if spec.ignore_eos:
        common.append("--ignore-eos")
    lines = []
    for rate in spec.request_rates:
        for conc in spec.max_concurrencies:
            lines.append(
                shlex.join(
                    [
                        *common,
                        "--request-rate",
                        rate_label(rate),
                        "--max-concurrency",
                        str(conc),
                        "--save-result",
                        "--result-dir",
                        spec.result_dir,
                        "--result-filename",
                        point_filename(spec.label, rate, conc),
                    ]
                )
            )
    return lines, ""


def copied_commands(spec: SweepSpec, target: Target, result_dir: str) -> CopiedCommands:
    """The commands for the form's settings, results under `result_dir`; shell-quoted, with
    the key's variable name (OPENAI_API_KEY) in place of the key."""
    spec = replace(spec, result_dir=result_dir)
    ours = shlex.join(_user_argv(spec, target))
    vllm, why = _vllm_lines(spec, target)
    return CopiedCommands(ours, vllm, why, needs_key=bool(target.api_key))
