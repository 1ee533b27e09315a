"""The options the commands share, as lists of Click decorators applied by one helper."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from ipex_doctor.model.terms import AMP_DTYPES, SANITY_PROFILES

F = TypeVar("F", bound=Callable[..., Any])


def stack(*decorators: Callable[[Any], Any]) -> Callable[[F], F]:
    """One decorator applying ``decorators`` in the order written (the first is outermost)."""

    def apply(func: F) -> F:
        for decorator in reversed(decorators):
            func = decorator(func)
        return func

    return apply


KB = click.option(
    "--kb", "kb_overlays", metavar="FILE", multiple=True,
    help="Knowledge-base overlay; an entry with an existing id replaces it. Repeatable.",
)  # fmt: skip
DIAGNOSIS = stack(
    click.option("--python", "python", metavar="PATH",
                 help="Interpreter of the environment to examine (default: the one running the doctor)."),
    KB,
    click.option("--timeout", type=click.FloatRange(min=1.0), default=180.0, show_default=True,
                 metavar="SECONDS",
                 help="Limit for each step in the spawned interpreter (the imports, each check): "
                 "the time it may go without progress."),
)  # fmt: skip
OUTPUT = stack(
    click.option("--json", "json_path", metavar="PATH",
                 help="Write the JSON report to PATH ('-' for stdout; human output then goes to stderr)."),
    click.option("--junit-xml", "junit_path", metavar="PATH", help="Write a JUnit XML report ('-': stdout)."),
    click.option("--markdown", "markdown_path", metavar="PATH",
                 help="Write a Markdown report for an issue tracker ('-': stdout)."),
    click.option("--html", "html_path", metavar="PATH",
                 help="Write a self-contained HTML report with charts ('-': stdout)."),
    click.option("--fail-on", type=click.Choice(["fail", "warn", "never"]), default=None,
                 help="Exit 1 on fail/error findings (default), also on warnings, or never."),
    click.option("--ignore", "ignores", metavar="ID[=REASON]", multiple=True,
                 help="Ignore a finding (shown as skipped, with the reason). Repeatable."),
    click.option("--policy", "policy_file", metavar="FILE",
                 help="Policy file (fail_on, ignores with reason and expiry); default ./.ipex-doctor.yaml."),
    click.option("-q", "--quiet", is_flag=True, help="Print only the problems and the summary."),
    click.option("-v", "--verbose", count=True, help="Also show passes, skips and evidence."),
)  # fmt: skip
BASELINE = click.option(
    "--baseline", "baseline_path", metavar="REPORT.json",
    help="Compare with a saved JSON report of this machine: findings that appeared or resolved, "
    "versions that changed, throughput that fell beyond the runs' noise.",
)  # fmt: skip
CHECK_RUN = stack(
    click.option("--device", default=None,
                 help="Where to run the checks: auto (the default: cpu and every accelerator), all, cpu, xpu, xpu:N, "
                 "cuda, cuda:N; local (the default under --distributed): this rank's accelerator, and the cpu "
                 "on each node's first rank."),
    click.option("--isolation", type=click.Choice(["worker", "process"]), default="worker", show_default=True,
                 help="worker: one interpreter runs every check (replaced if one breaks it); "
                 "process: a fresh interpreter per check."),
    click.option("--checks-dir", "checks_dirs", metavar="DIR", multiple=True,
                 help="Directory of your own check scripts (a --kb entry can name them). Repeatable."),
)  # fmt: skip
SANITY = stack(
    click.option("--profile", type=click.Choice(SANITY_PROFILES), default="quick", show_default=True,
                 help="Sanity run: quick (trains on 64x64; about 20 s on 2 CPU cores) or full "
                 "(224x224, more steps, JIT trace + freeze; about a minute)."),
    click.option("--amp-dtype", type=click.Choice(AMP_DTYPES), default="bfloat16",
                 show_default=True, help="Sanity run: autocast dtype (float16 trains with a GradScaler)."),
    click.option("--lr", type=click.FloatRange(min=0.0, min_open=True), default=None,
                 help="Sanity run: SGD learning rate (default 0.005)."),
    click.option("--weights", type=click.Path(exists=True, dir_okay=False), default=None,
                 help="Sanity run: a local ResNet-50 state dict to load (never downloaded)."),
    click.option("--data", type=click.Path(exists=True, file_okay=False), default=None,
                 help="Sanity run: a local ImageFolder to take the batch from (default: synthetic)."),
    click.option("--no-ipex", is_flag=True, help="Sanity run: skip the ipex.optimize training path."),
)  # fmt: skip
