"""The options the commands share, each declared once and typed once, where Click parses it.

A group of options that make one value (what to examine, the output options, the sanity
run's) is an ``option_group``: the command receives the built value under one name, and the
builder must take every option of the group and need no other, checked when the command is
declared, so an option nothing consumes cannot vanish. ``as_request`` hands a command the
request of app/ built from its values. ``refuse`` checks a command's usage rules
(``usage_rules``) before it runs. Builders import the rest of the package lazily:
``--help`` and the light commands load only this module, Click and the model's vocabulary.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from ipex_doctor.errors import DoctorError
from ipex_doctor.model.device_spec import DeviceSpec
from ipex_doctor.model.terms import AMP_DTYPES, SANITY_PROFILES, Isolation
from ipex_doctor.usage_rules import Refuse, first_broken, unknown_names

if TYPE_CHECKING:
    from ipex_doctor.probe.options import ProbeOptions
    from ipex_doctor.reporting.output_options import OutputOptions
    from ipex_doctor.reporting.saved_reports import SavedReport
    from ipex_doctor.runs.sanity_options import SanityOptions

F = TypeVar("F", bound=Callable[..., Any])
Decorator = Callable[[Any], Any]


def stack(*decorators: Decorator) -> Callable[[F], F]:
    """One decorator applying ``decorators`` in the order written (the first is outermost)."""

    def apply(func: F) -> F:
        for decorator in reversed(decorators):
            func = decorator(func)
        return func

    return apply


def option_group(name: str, build: Callable[..., Any], *options: Decorator) -> Callable[[F], F]:
    """Apply ``options`` and hand the command one argument, ``name``, built from their values by
    ``build`` (called with one keyword argument per option, at invocation).

    ``build`` must take every option by name and need nothing else (a parameter no option
    gives has a default): checked here, when the command is declared, so a group cannot grow
    an option its builder ignores, nor a builder a value no option gives.
    """
    declared = _param_names(options)
    parameters = inspect.signature(build).parameters
    expected = set(parameters)
    needed = {n for n, p in parameters.items() if p.default is inspect.Parameter.empty}
    if not needed <= declared <= expected:
        raise TypeError(f"{name}: options {sorted(declared)} but builder takes {sorted(expected)}")

    def apply(func: F) -> F:
        @functools.wraps(func)
        def command(*args: Any, **kwargs: Any) -> Any:
            values = {key: kwargs.pop(key) for key in declared}
            return func(*args, **kwargs, **{name: build(**values)})

        # NOTE: what each group folds into one value, for the tests of as_request (wraps keeps it)
        command.__dict__["groups"] = {**command.__dict__.get("groups", {}), name: declared}
        return stack(*options)(command)  # type: ignore[return-value]

    return apply


def as_request(target: str) -> Callable[[F], F]:
    """Hand the command one argument, ``request``, built at invocation by ``target`` (``module:
    name`` of app/: a request dataclass, or a function returning one) from the values it takes
    by name; the command receives the others under their own names. Applied last, above the
    ``def``, so it receives what the option groups built.

    ``target`` is named, not imported, so the commands' module stays light; what cannot be
    checked when the command is declared (the target's parameters) a test checks per command.
    """

    def apply(func: F) -> F:
        @functools.wraps(func)
        def command(*args: Any, **kwargs: Any) -> Any:
            import pkgutil  # NOTE: on a request's run only; --help and light commands never

            build = pkgutil.resolve_name(target)
            taken = inspect.signature(build).parameters.keys() & kwargs.keys()
            values = {key: kwargs.pop(key) for key in taken}
            return func(*args, **kwargs, request=build(**values))

        command.__dict__["request_target"] = target
        return command  # type: ignore[return-value]

    return apply


def refuse(*rules: Refuse) -> Callable[[F], F]:
    """Check ``rules`` in order before the command runs: the first broken one is raised, as a
    usage error (exit 2, with the usage line) or, for a ``one_line`` rule, a ``DoctorError``.

    Applied above a command's options (below ``@cli.command()``), so each name a rule reads
    is checked against the command's parameters when the command is declared: a rule cannot
    name an option the command does not have.
    """

    def apply(func: F) -> F:
        unknown = unknown_names(rules, (p.name for p in getattr(func, "__click_params__", [])))
        if unknown:
            raise TypeError(f"{func.__name__}: rules name unknown parameters {sorted(unknown)}")

        @functools.wraps(func)
        def command(*args: Any, **kwargs: Any) -> Any:
            broken = first_broken(rules, click.get_current_context().params)
            if broken is not None:
                raise (DoctorError if broken.one_line else click.UsageError)(broken.message)
            return func(*args, **kwargs)

        return command  # type: ignore[return-value]

    return apply


def _param_names(options: tuple[Decorator, ...]) -> set[str]:
    """The parameter names the Click ``options`` give a command."""

    def probe() -> None:  # pragma: no cover - only its __click_params__ is read
        return None

    for option in options:
        option(probe)
    params: list[click.Parameter] = getattr(probe, "__click_params__", [])
    return {p.name for p in params if p.name is not None}


def _device(ctx: click.Context, param: click.Parameter, value: str | None) -> DeviceSpec | None:
    """A ``--device`` value, parsed once into the ``DeviceSpec`` every use receives."""
    if value is None:
        return None
    from ipex_doctor.runs.device_selection import parse_device_spec

    try:
        return parse_device_spec(value)
    except DoctorError as exc:
        raise click.BadParameter(f"{value!r} is not a device ({exc.tip})") from None


def device_option(help: str) -> Decorator:
    """``--device``: ``None`` when left out (each command decides the default, and says it)."""
    return click.option("--device", metavar="DEVICE", callback=_device, help=help)


def inverted(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    """A ``--no-X`` flag as the request's ``X``: ``False`` when it was given."""
    return not value


def _isolation(ctx: click.Context, param: click.Parameter, value: str) -> Isolation:
    return Isolation(value)


def _baseline(ctx: click.Context, param: click.Parameter, value: str | None) -> SavedReport | None:
    """The ``--baseline`` report, read and validated once (a bad file is a one-line error)."""
    if value is None:
        return None
    from ipex_doctor.reporting.saved_reports import SavedReport

    return SavedReport.read(value)


def _output_options(
    json_path: str | None, junit_path: str | None, markdown_path: str | None,
    html_path: str | None, fail_on: str | None, ignores: tuple[str, ...],
    policy_file: str | None, quiet: bool, verbose: int, sarif_path: str | None = None,
) -> OutputOptions:  # fmt: skip
    """The output options (``sarif_path``: scan's alone)."""
    from ipex_doctor.reporting.formats.kinds import Format
    from ipex_doctor.reporting.output_options import FailOn, OutputOptions

    kinds = (Format.JSON, Format.JUNIT, Format.MARKDOWN, Format.HTML, Format.SARIF)
    paths = zip(kinds, (json_path, junit_path, markdown_path, html_path, sarif_path), strict=True)
    return OutputOptions(
        sinks=tuple((kind, path) for kind, path in paths if path is not None),
        fail_on=FailOn(fail_on) if fail_on else None,
        ignores=ignores,
        policy_file=policy_file,
        verbosity=-1 if quiet else verbose,
    )


def _interpreter_path(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """``--python`` as typed, ``None`` when it was left out; an empty or blank path is refused
    (it would otherwise fall back, silently, to the doctor's own interpreter)."""
    if value is not None and not value.strip():
        raise DoctorError(
            f"--python {value!r} names no interpreter; give the path of the environment's "
            "python, or leave --python out to examine the one running the doctor"
        )
    return value


def _probe_options(python: str | None, timeout_s: float) -> ProbeOptions:
    import sys

    from ipex_doctor.probe.options import ProbeOptions

    return ProbeOptions(python=sys.executable if python is None else python, timeout_s=timeout_s)


def _sanity_options(
    profile: str,
    amp_dtype: str,
    lr: float | None,
    weights: str | None,
    data: str | None,
    no_ipex: bool,
) -> SanityOptions:
    from ipex_doctor.runs.sanity_options import SanityOptions

    return SanityOptions(profile, amp_dtype, lr, weights, data, use_ipex=not no_ipex)


FILE = click.Path(dir_okay=False, path_type=Path)
"""A file's path, typed ``Path`` where Click parses it (it need not exist yet)."""
EXISTING = click.Path(exists=True, path_type=Path)
"""A file or directory that must exist."""
KB = click.option(
    "--kb", "kb_overlays", metavar="FILE", multiple=True,
    help="Knowledge-base overlay; an entry with an existing id replaces it. Repeatable.",
)  # fmt: skip


def python_option(help: str) -> Decorator:
    """``--python``: the path as typed, ``None`` when left out (each use case decides the
    default, and says it in ``help``); a blank path is refused."""
    return click.option("--python", "python", metavar="PATH", callback=_interpreter_path, help=help)


PYTHON = python_option(
    "Interpreter of the environment to examine (default: the one running the doctor)."
)
TIMEOUT = click.option(
    "--timeout", "timeout_s", type=click.FloatRange(min=1.0), default=180.0, show_default=True,
    metavar="SECONDS",
    help="Limit for each step in the spawned interpreter (the imports, each probe or check): "
    "the time it may go without progress.",
)  # fmt: skip
PROBE = option_group("probe", _probe_options, PYTHON, TIMEOUT)
AS_JSON = click.option("--json", "as_json", is_flag=True, help="Print it as JSON, not as text.")
_OUTPUT_OPTIONS = (
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
OUTPUT = option_group("out", _output_options, *_OUTPUT_OPTIONS)
OUTPUT_SCAN = option_group(
    "out",
    _output_options,
    *_OUTPUT_OPTIONS,
    click.option("--sarif", "sarif_path", metavar="PATH",
                 help="Write a SARIF 2.1.0 log of the code findings, for code scanning ('-': stdout)."),
)  # fmt: skip
"""The output options of scan: the others, and SARIF."""
BASELINE = click.option(
    "--baseline", "baseline", metavar="REPORT.json", callback=_baseline,
    help="Compare with a saved JSON report of this machine: findings that appeared or resolved, "
    "versions that changed, throughput that fell beyond the runs' noise.",
)  # fmt: skip
CHECK_RUN = stack(
    device_option("Where to run the checks: auto (the default: cpu and every accelerator), all, cpu, "
                  "xpu, xpu:N, cuda, cuda:N; local (the default under --distributed): this rank's "
                  "accelerator, and the cpu on each node's first rank."),
    click.option("--isolation", type=click.Choice([i.value for i in Isolation]), default="worker",
                 show_default=True, callback=_isolation,
                 help="worker: one interpreter runs every check (replaced if one breaks it); "
                 "process: a fresh interpreter per check."),
    click.option("--checks-dir", "checks_dirs", metavar="DIR", multiple=True,
                 help="Directory of your own check scripts (a --kb entry can name them). Repeatable."),
)  # fmt: skip
SANITY = option_group(
    "sanity_options", _sanity_options,
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
