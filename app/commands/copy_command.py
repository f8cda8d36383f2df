"""The sweep form as shell commands a user can paste: the `tpotbench sweep`/`search` line of the
RunConfig the window would run (config_argv, the inverse of the CLI's parsing), and the matching
`vllm bench serve` line per point where vLLM has the same workload. Never the key: its
variable's name only."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field, replace

from app.bench.datasets.sharegpt import default_sharegpt_path
from app.bench.http.endpoint import EndpointError, resolve_endpoint
from app.bench.results.naming import point_filename, rate_label
from app.bench.schema.run_config import RunConfig
from app.commands.argv import KEY_ENV, SweepSpec, build_run_config, dataset_config
from app.commands.run_args import config_argv
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


def user_argv(config: RunConfig) -> list[str]:
    """The window's run as a user types it: `tpotbench`, no event stream, the key's variable
    named as the user's."""
    endpoint = config.endpoint
    if endpoint.api_key_env is not None:
        endpoint = replace(endpoint, api_key_env=USER_KEY_ENV)
    mine = replace(config, endpoint=endpoint, output=replace(config.output, events=False))
    out = ["tpotbench", *config_argv(mine)]
    assert KEY_ENV not in out
    return out


def _vllm_dataset(spec: SweepSpec) -> list[str] | None:
    """The window's own dataset settings as vLLM's flags, where vLLM has the dataset."""
    data = dataset_config(spec)
    if spec.dataset == "random":
        return [
            "--dataset-name",
            "random",
            "--random-input-len",
            str(data.random_input_len),
            "--random-output-len",
            str(data.random_output_len),
        ]
    if spec.dataset == "prefix":
        return [
            "--dataset-name",
            "prefix_repetition",  # vLLM's --dataset-name for the same generator
            "--prefix-repetition-prefix-len",
            str(data.prefix_len),
            "--prefix-repetition-suffix-len",
            str(data.suffix_len),
            "--prefix-repetition-num-prefixes",
            str(data.num_prefixes),
            "--prefix-repetition-output-len",
            str(data.prefix_output_len),
        ]
    if spec.dataset == "sharegpt":
        return ["--dataset-name", "sharegpt", "--dataset-path", spec.dataset_path]
    if spec.dataset == "synthetic":  # our shipped file, which vLLM's client must be given
        return ["--dataset-name", "sharegpt", "--dataset-path", str(default_sharegpt_path())]
    return None


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
    ours = shlex.join(user_argv(build_run_config(spec, target)))
    vllm, why = _vllm_lines(spec, target)
    return CopiedCommands(ours, vllm, why, needs_key=bool(target.api_key))
