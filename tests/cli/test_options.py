"""Options are typed once, where Click parses them: groups build one value, and a group whose
builder does not take exactly its options is refused when the command is declared."""

from __future__ import annotations

import inspect
import pkgutil
import re
from dataclasses import dataclass
from typing import Any, get_type_hints

import click
import pytest
from click.testing import CliRunner
from conftest import run_doctor

from ipex_doctor.cli.commands import cli
from ipex_doctor.cli.options import as_request, device_option, option_group, refuse
from ipex_doctor.model.device_spec import DeviceSpec
from ipex_doctor.usage_rules import Refuse


def test_a_group_whose_builder_ignores_an_option_is_refused() -> None:
    """An option added to a group but not to its builder cannot vanish silently."""

    def build(a: str | None) -> str:
        return a or ""

    with pytest.raises(TypeError, match="options"):
        option_group("value", build, click.option("--a"), click.option("--b"))


def test_a_group_whose_builder_needs_a_value_no_option_gives_is_refused() -> None:
    """A builder parameter no option gives must have a default (scan's ``sarif_path``), else
    the group is refused when declared; with one, the group builds with the default."""

    def needs(a: str | None, b: str | None) -> str:
        return f"{a}{b}"

    def may(a: str | None, b: str | None = "-") -> str:
        return f"{a}{b}"

    with pytest.raises(TypeError, match="options"):
        option_group("value", needs, click.option("--a"))

    @click.command()
    @option_group("value", may, click.option("--a"))
    def command(value: str) -> None:
        click.echo(value)

    assert CliRunner().invoke(command, ["--a", "x"]).output.strip() == "x-"


def test_a_group_hands_the_command_one_built_value() -> None:
    """The command sees the built value under the group's name, and none of the raw options."""

    def build(a: str | None, b: int) -> tuple[str | None, int]:
        return a, b

    @click.command()
    @option_group("pair", build, click.option("--a"), click.option("--b", type=int, default=3))
    def command(pair: tuple[str | None, int]) -> None:
        click.echo(repr(pair))

    done = CliRunner().invoke(command, ["--a", "x"])
    assert done.exit_code == 0 and done.output.strip() == "('x', 3)"


def test_every_command_callback_names_each_parameter_it_receives() -> None:
    """No command takes ``**params``: each typed value is a named parameter of its callback."""
    commands = dict(cli.commands)
    for group in [c for c in commands.values() if isinstance(c, click.Group)]:
        commands.update({f"kb {n}": c for n, c in group.commands.items()})
    for name, command in commands.items():
        if command.callback is None or isinstance(command, click.Group):
            continue
        target = inspect.unwrap(command.callback)
        kinds = {p.kind for p in inspect.signature(target).parameters.values()}
        assert inspect.Parameter.VAR_KEYWORD not in kinds, name


def test_a_usage_rule_naming_an_option_the_command_lacks_is_refused() -> None:
    """A rule about ``--dif`` (a typo) fails when the command is declared, not never."""
    with pytest.raises(TypeError, match="unknown parameters \\['dif'\\]"):

        @refuse(Refuse("fix", "choose one", with_any=("dif",)))
        @click.option("--fix", is_flag=True)
        @click.option("--diff", is_flag=True)
        def command(fix: bool, diff: bool) -> None:  # pragma: no cover - never declared
            return None


def test_usage_rules_are_checked_in_order_before_the_command_runs() -> None:
    """The first broken rule is the error (exit 2, its message); a command whose options
    break none runs; a flag left out, an empty repeatable option, count 0 are not given."""
    ran: list[str] = []

    @click.command()
    @refuse(
        Refuse("a", "a and b", with_any=("b",)),
        Refuse("b", "b needs c", without=("c",)),
        Refuse(None, "give one of a, c", without=("a", "c")),
    )
    @click.option("--a", is_flag=True)
    @click.option("--b", multiple=True)
    @click.option("--c", count=True)
    def command(a: bool, b: tuple[str, ...], c: int) -> None:
        ran.append("ran")

    said = {
        args: CliRunner().invoke(command, list(args)).output.strip().splitlines()[-1:]
        for args in [("--a", "--b", "x"), ("--b", "x"), (), ("--a",), ("--b", "x", "--c")]
    }
    assert said == {
        ("--a", "--b", "x"): ["Error: a and b"],
        ("--b", "x"): ["Error: b needs c"],
        (): ["Error: give one of a, c"],
        ("--a",): [],
        ("--b", "x", "--c"): [],
    }
    assert ran == ["ran", "ran"]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["scan", "--undo", "r.json", "."], "scan [OPTIONS] [PATH]..."),
        (["scan", "--undo", "r.json", "--sarif", "out.sarif"], "scan [OPTIONS]"),
        (["scan", "--yes", "."], "scan [OPTIONS]"),
        (["repro"], "repro [OPTIONS]"),
        (["fix", "--undo", "s.json", "--rollback-on-regression"], "fix [OPTIONS]"),
    ],
)
def test_each_declared_usage_check_is_its_usage_error_exit_2(args: list[str], said: str) -> None:
    """Each check moved out of a command body still answers with the command's usage line
    and one error line, exit 2, no traceback, before anything runs."""
    done = run_doctor(*args)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert (
        lines[0].startswith("Usage: ")
        and said in lines[0]
        and lines[-1].startswith("Error: ")
        and "Traceback" not in done.stderr
    )
    assert len([line for line in lines if line.startswith("Error:")]) == 1


def test_explain_report_and_python_together_is_one_line_exit_2() -> None:
    """A rule may keep its command's own one-line error (explain has always said this so)."""
    done = run_doctor("explain", "x", "--report", "r.json", "--python", "python3")
    assert done.returncode == 2
    assert done.stderr.splitlines() == ["ipex-doctor: error: give --report or --python, not both"]


@click.command()
@device_option("where")
def _placed(device: DeviceSpec | None) -> None:
    click.echo(repr(device))


@pytest.mark.parametrize("value", ["cuda:1", " CUDA:1 ", "Cuda:1"])
def test_device_spec_normalises(value: str) -> None:
    """The command receives the parsed spec, whatever the case and spaces typed."""
    done = CliRunner().invoke(_placed, ["--device", value])
    assert done.exit_code == 0 and done.output.strip() == repr(DeviceSpec("cuda", 1))
    assert CliRunner().invoke(_placed, []).output.strip() == "None"


@pytest.mark.parametrize("value", ["gpu", "cpu:1", "all:0", "xpu:", ""])
def test_device_spec_refuses_with_the_accepted_forms(value: str) -> None:
    """A usage error (exit 2) naming the option, the value and the accepted forms."""
    done = CliRunner().invoke(_placed, ["--device", value])
    assert done.exit_code == 2
    assert re.search(
        rf"Invalid value for '--device': {re.escape(repr(value))} is not a device .*cuda:N",
        done.output,
    )


@pytest.mark.parametrize("command", ["check", "env", "fix", "explain"])
@pytest.mark.parametrize("value", ["", "   ", "\t"])
def test_a_blank_python_is_a_usage_error_not_the_doctors_own(command: str, value: str) -> None:
    """``--python ''`` names nothing: one line, exit 2, in a real process; never a silent
    fall-back to the doctor's own interpreter."""
    done = run_doctor(command, "--python", value)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        f"ipex-doctor: error: --python {value!r} names no interpreter; give the path of the "
        "environment's python, or leave --python out to examine the one running the doctor"
    ]


def test_an_empty_report_path_is_refused_not_ignored() -> None:
    """``fix --report ''`` names the current directory, refused in one line before anything
    runs; never read as "no report" (which would diagnose the doctor's own interpreter)."""
    done = run_doctor("fix", "--report", "")
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == ["ipex-doctor: error: .: is a directory, not a report file"]


def _request_mismatch(command: click.Command) -> str | None:
    """Why ``command``'s values and its ``as_request`` target do not fit, or ``None``: each
    value (an option group's counts as one, under the group's name) reaches the target by its
    name or the command by its own, never both; the target needs nothing no option gives; the
    command's ``request`` is annotated with what the target builds."""
    callback: Any = command.callback
    groups: dict[str, set[str]] = callback.groups if hasattr(callback, "groups") else {}
    parsed = {p.name for p in command.params} - set().union(*groups.values()) | set(groups)
    build = pkgutil.resolve_name(callback.request_target)
    takes = inspect.signature(build).parameters
    needed = {n for n, p in takes.items() if p.default is inspect.Parameter.empty}
    own = dict(inspect.signature(inspect.unwrap(callback)).parameters)
    made = build if isinstance(build, type) else get_type_hints(build)["return"]
    if needed - parsed or parsed - set(takes) != set(own) - {"request"}:
        return f"values {sorted(parsed)}, {callback.request_target} takes {sorted(takes)}"
    if own["request"].annotation != made.__name__:
        return f"request is {own['request'].annotation}, {callback.request_target} builds {made}"
    return None


_REQUESTING = {
    name: command
    for name, command in cli.commands.items()
    if command.callback is not None and hasattr(command.callback, "request_target")
}


def test_the_commands_that_take_one_request_are_known() -> None:
    """The per-command test below covers these (it cannot pass by finding none)."""
    assert sorted(_REQUESTING) == ["check", "env", "explain", "fix", "report", "sanity", "scan"]


@pytest.mark.parametrize("name", sorted(_REQUESTING))
def test_each_value_reaches_the_request_or_the_command(name: str) -> None:
    """Each command's parsed values fit its request: a misspelt option, a field no option
    gives, or a request annotated as another type fails here, not on a user's run."""
    assert _request_mismatch(_REQUESTING[name]) is None


@dataclass(frozen=True)
class _Pair:
    a: str | None
    b: int = 3


@click.command()
@click.option("--a")
@click.option("--b", type=int, default=3)
@click.option("--c", is_flag=True)
@as_request(f"{__name__}:_Pair")
def _paired(request: _Pair, c: bool) -> None:
    click.echo(f"{request!r} {c}")


def test_a_request_is_built_from_the_values_it_takes_by_name() -> None:
    """The request gets the values named as its fields; the command, the others."""
    done = CliRunner().invoke(_paired, ["--a", "x", "--c"])
    assert done.exit_code == 0 and done.output.strip() == "_Pair(a='x', b=3) True"
    assert _request_mismatch(_paired) is None


@dataclass(frozen=True)
class _Needs:
    a: str | None
    d: str


@click.command()
@click.option("--a")
@click.option("--bb", type=int)  # NOTE: a typo of the field b
@as_request(f"{__name__}:_Pair")
def _misspelt(request: _Pair) -> None:  # pragma: no cover - only checked
    return None


@click.command()
@click.option("--a")
@as_request(f"{__name__}:_Needs")
def _lacking(request: _Needs) -> None:  # pragma: no cover - only checked
    return None


@click.command()
@click.option("--a")
@click.option("--c", is_flag=True)
@as_request(f"{__name__}:_Pair")
def _mistyped(request: _Needs, c: bool) -> None:  # pragma: no cover - only checked
    return None


@pytest.mark.parametrize(
    ("command", "said"),
    [(_misspelt, "takes ['a', 'b']"), (_lacking, "takes ['a', 'd']"), (_mistyped, "builds")],
)
def test_a_request_that_does_not_fit_its_command_is_caught(
    command: click.Command, said: str
) -> None:
    """The other side of the per-command test: a value no field takes (``--bb``), a field
    no option gives (``d``), a request annotated as another type are each a mismatch."""
    mismatch = _request_mismatch(command)
    assert mismatch is not None and said in mismatch


def test_trust_snapshot_without_undo_is_a_usage_error() -> None:
    """--trust-snapshot vouches for the snapshot of --undo; alone it means nothing: one error
    line saying so, exit 2."""
    done = run_doctor("fix", "--trust-snapshot", "--yes")
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[-1] == "Error: --trust-snapshot approves the snapshot of --undo"
