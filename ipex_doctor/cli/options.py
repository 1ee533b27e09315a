"""The options the commands share, each declared once and typed once, where Click parses it.

A group of options that make one value (what to examine, the output options, the sanity
run's) is an ``option_group``: the command receives the built value under one name, and the
builder must take every option of the group and need no other, checked when the command is
declared, so an option nothing consumes cannot vanish. ``as_request`` hands a command the
request of app/ built from its values. ``refuse`` checks a command's usage rules
(``usage_rules``) before it runs. What the values become is app/'s (``request_parts``, whose
builders import the rest lazily): ``--help`` and the light commands load only this module,
Click, those builders and the model's vocabulary.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import operator
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from ipex_doctor.app import request_parts as parts
from ipex_doctor.errors import DoctorError
from ipex_doctor.model.device_spec import DeviceSpec
from ipex_doctor.model.terms import AMP_DTYPES, SANITY_PROFILES, Isolation
from ipex_doctor.usage_rules import Refuse, first_broken, unknown_names

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
            # NOTE: on a request's run only; --help and light commands never. By hand rather
            # than pkgutil.resolve_name, whose import and name regex (compiled at its first
            # call) cost every command run about 3 ms of CPU for a "module:name" this splits
            module, _, name = target.partition(":")
            found: Any = importlib.import_module(module)
            for attribute in name.split("."):
                found = getattr(found, attribute)
            build: Callable[..., Any] = found
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

    params: list[click.Parameter] = getattr(stack(*options)(probe), "__click_params__", [])
    return {p.name for p in params if p.name is not None}


def parsed(parse: Callable[[Any], Any]) -> Callable[[click.Context, click.Parameter, Any], Any]:
    """A callback handing the command ``parse(value)`` (``None``, an option left out, stays
    ``None``); what ``parse`` raises ends the run as it would anywhere else."""
    return lambda ctx, param, value: None if value is None else parse(value)


inverted = parsed(operator.not_)
"""A ``--no-X`` flag as the request's ``X``: ``False`` when it was given."""


def _device(value: str) -> DeviceSpec:
    """A ``--device`` value, parsed once into the ``DeviceSpec`` every use receives; refused as
    Click's usage error for the option (exit 2, the accepted forms named)."""
    from ipex_doctor.runs.device_selection import parse_device_spec

    try:
        return parse_device_spec(value)
    except DoctorError as exc:
        raise click.BadParameter(f"{value!r} is not a device ({exc.tip})") from None


def device_option(help: str) -> Decorator:
    """``--device``: ``None`` when left out (each command decides the default, and says it)."""
    return click.option("--device", metavar="DEVICE", callback=parsed(_device), help=help)


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
    return click.option(
        "--python", "python", metavar="PATH", callback=parsed(parts.interpreter), help=help
    )


PYTHON = python_option(
    "Interpreter of the environment to examine (default: the one running the doctor)."
)
TIMEOUT = click.option(
    "--timeout", "timeout_s", type=click.FloatRange(min=1.0), default=180.0, show_default=True,
    metavar="SECONDS",
    help="Limit for each step in the spawned interpreter (the imports, each probe or check): "
    "the time it may go without progress.",
)  # fmt: skip
PROBE = option_group("probe", parts.probe_options, PYTHON, TIMEOUT)
AS_JSON = click.option("--json", "as_json", is_flag=True, help="Print it as JSON, not as text.")
_OUTPUT_OPTIONS = (
    # NOTE: --json alone writes to stdout, as explain's --json prints JSON (a bare --json was
    # refused as a usage error); a value that starts with "-" other than "-" is the next option
    click.option("--json", "json_path", metavar="PATH", is_flag=False, flag_value="-",
                 help="Write the JSON report to PATH ('-', or --json alone: stdout; human output "
                 "then goes to stderr)."),
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
OUTPUT = option_group("out", parts.output_options, *_OUTPUT_OPTIONS)
OUTPUT_SCAN = option_group(
    "out",
    parts.output_options,
    *_OUTPUT_OPTIONS,
    click.option("--sarif", "sarif_path", metavar="PATH",
                 help="Write a SARIF 2.1.0 log of the code findings, for code scanning ('-': stdout)."),
)  # fmt: skip
"""The output options of scan: the others, and SARIF."""
BASELINE = click.option(
    "--baseline", "baseline", metavar="REPORT.json", callback=parsed(parts.baseline),
    help="Compare with a saved JSON report of this machine: findings that appeared or resolved, "
    "versions that changed, throughput that fell beyond the runs' noise.",
)  # fmt: skip
CHECK_RUN = stack(
    device_option("Where to run the checks: auto (the default: cpu and every accelerator), all, cpu, "
                  "xpu, xpu:N, cuda, cuda:N; local (the default under --distributed): this rank's "
                  "accelerator, and the cpu on each node's first rank."),
    click.option("--isolation", type=click.Choice([i.value for i in Isolation]), default="worker",
                 show_default=True, callback=parsed(Isolation),
                 help="worker: one interpreter runs every check (replaced if one breaks it); "
                 "process: a fresh interpreter per check."),
    click.option("--checks-dir", "checks_dirs", metavar="DIR", multiple=True,
                 help="Directory of your own check scripts (a --kb entry can name them). Repeatable."),
)  # fmt: skip
SANITY = option_group(
    "sanity_options", parts.sanity_options,
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
