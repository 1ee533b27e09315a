"""The ``launcher`` fix: IPEX's CPU launcher -> ``python -m torch.backends.xeon.run_cpu``.

``ipexrun`` (IPEX's console script; ``ipexrun cpu ...`` and plain ``ipexrun ...`` both run the
CPU launcher) and ``python -m intel_extension_for_pytorch.cpu.launch`` are the launcher that
was upstreamed as ``torch.backends.xeon.run_cpu``. Both pin threads and NUMA nodes the same
way by default: one instance on all physical cores, tcmalloc else jemalloc preloaded when
found, Intel OpenMP preloaded when found, numactl else taskset. Their options have diverged,
though (IPEX 2.8 has ``--memory-allocator``, ``--omp-runtime``, ``--nodes-list``, distributed
options...; run_cpu has ``--enable-tcmalloc``, ``--node-id``...), so a command is rewritten
only when every launcher option it passes means the same to run_cpu (``LAUNCH_FLAGS``,
``LAUNCH_COUNTS``, ``LAUNCH_VALUES``), and is otherwise reported with the option named.

Shell scripts and Dockerfiles have no syntax tree to work on: their commands are found with
line-anchored regular expressions (a command word at the start of a line or after ``&&``,
``||``, ``;``, ``|``, ``$(``, a Dockerfile instruction, ``exec``/``env``/``sudo`` or variable
assignments), and only the launcher word itself is replaced, so the rest of the line stays
byte for byte. Commented-out lines are never touched; other mentions are reported. In Python,
the fix rewrites only command lists and strings passed to ``subprocess``, ``os.system`` /
``os.popen`` and ``asyncio``'s subprocess functions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import cast

import libcst as cst

from ipex_doctor.scan.fix.codemods.base import CodemodContext, NameCodemod
from ipex_doctor.scan.fix.codemods.syntax import quote_of, string_value
from ipex_doctor.scan.match.launch_text import (
    IPEX_LAUNCH,
    IPEXRUN,
    MENTION,
    RUN_CPU,
    LaunchNote,
    check_launch_args,
    rewrite_launch_text,
)

SUBPROCESS_CALLS = {
    "subprocess.run": "args",
    "subprocess.call": "args",
    "subprocess.check_call": "args",
    "subprocess.check_output": "args",
    "subprocess.Popen": "args",
    "subprocess.getoutput": "cmd",
    "subprocess.getstatusoutput": "cmd",
    "os.system": "command",
    "os.popen": "cmd",
    "asyncio.create_subprocess_shell": "cmd",
    "asyncio.create_subprocess_exec": "",
}
"""The functions whose command the fix rewrites, to the name of their command parameter
(``""``: the command is the positional arguments themselves)."""


class Launcher(NameCodemod):
    """``launcher`` in Python: a command list (``["ipexrun", "--ninstances", "2", "x.py"]``,
    ``[sys.executable, "-m", "intel_extension_for_pytorch.cpu.launch", ...]``) or command string
    passed to ``subprocess`` / ``os.system`` / ``os.popen`` / ``asyncio``'s subprocess
    functions, also through ``shlex.split("...")``. The ``"ipexrun"`` element becomes ``"python",
    "-m", "torch.backends.xeon.run_cpu"`` and the module name becomes run_cpu's; in a string,
    the same rewrite as in shell scripts. Any other string that mentions the launcher (a
    message, a command built elsewhere) is reported, not changed.
    """

    FIX_ID = "launcher"
    ORDER = 45
    DESCRIPTION = (
        # ipex-doctor: ignore[ipex-launcher] what this rewrite replaces, in its own words
        "ipexrun / python -m intel_extension_for_pytorch.cpu.launch -> python -m "
        "torch.backends.xeon.run_cpu"
    )
    TRIGGERS = (IPEXRUN, IPEX_LAUNCH)
    READS = (*NameCodemod.READS, *(call.rsplit(".", 1)[-1] for call in SUBPROCESS_CALLS))

    def plan(self, ctx: CodemodContext) -> None:
        """Plan each command, then report the mentions left."""
        handled: set[cst.CSTNode] = set()
        for node, parameter in ctx.references(SUBPROCESS_CALLS):
            call = ctx.names.call_of(node)
            if call is None:
                continue
            if parameter == "":
                self._plan_args(ctx, call, handled)
                continue
            command = _command_arg(call, parameter)
            if command is not None:
                self._plan_command(ctx, command, handled)
        for found in ctx.names.nodes(cst.SimpleString, cst.FormattedStringText):
            if found in handled:
                continue
            if MENTION.search(cast("cst.SimpleString | cst.FormattedStringText", found).value):
                ctx.records.refuse(
                    found,
                    "the launcher is mentioned outside a command passed to subprocess here: "
                    "rewrite by hand if it is run",
                )

    def _plan_command(
        self, ctx: CodemodContext, node: cst.BaseExpression, handled: set[cst.CSTNode]
    ) -> None:
        if (
            isinstance(node, cst.Call)
            and node.args
            and ctx.names.qualified_names(node.func) == {"shlex.split"}
        ):
            self._plan_command(ctx, node.args[0].value, handled)
        elif isinstance(node, (cst.List, cst.Tuple)):
            self._plan_elements(ctx, list(node.elements), handled)
        elif isinstance(node, cst.SimpleString) and string_value(node) is not None:
            self._plan_string(ctx, node, handled)
        elif isinstance(node, cst.FormattedString):
            self._plan_fstring(ctx, node, handled)

    def _plan_args(self, ctx: CodemodContext, call: cst.Call, handled: set[cst.CSTNode]) -> None:
        """``asyncio.create_subprocess_exec("ipexrun", ...)``: the arguments are the command."""
        positional = [a for a in call.args if a.keyword is None]
        self._plan_elements(ctx, positional, handled)

    def _plan_elements(
        self,
        ctx: CodemodContext,
        elements: Sequence[cst.BaseElement | cst.Arg],
        handled: set[cst.CSTNode],
    ) -> None:
        words: list[str | None] = [
            None
            if isinstance(e, cst.StarredElement) or (isinstance(e, cst.Arg) and e.star)
            else string_value(e.value)
            for e in elements
        ]
        for at, word in enumerate(words):
            if word == IPEXRUN:
                why = check_launch_args(words[at + 1 :], after_ipexrun=True)
                self._plan_element(ctx, elements[at], why, handled, expand=True)
                if why is None and words[at + 1 : at + 2] == ["cpu"]:
                    # NOTE: `ipexrun cpu ARGS` names IPEX's CPU launcher; run_cpu has none.
                    ctx.records.replace(elements[at + 1], _remove)
            elif word == IPEX_LAUNCH and at > 0 and words[at - 1] == "-m":
                why = check_launch_args(words[at + 1 :], after_ipexrun=False)
                self._plan_element(ctx, elements[at], why, handled, expand=False)

    def _plan_element(
        self,
        ctx: CodemodContext,
        element: cst.BaseElement | cst.Arg,
        why: str | None,
        handled: set[cst.CSTNode],
        *,
        expand: bool,
    ) -> None:
        literal = cast(cst.SimpleString, element.value)
        handled.add(literal)
        if why is not None:
            ctx.records.refuse(element, why)
            return
        quote = quote_of(literal)

        def word(text: str) -> cst.SimpleString:
            return cst.SimpleString(f"{quote}{text}{quote}")

        def edit(
            updated: cst.Element | cst.Arg,
        ) -> cst.CSTNode | cst.FlattenSentinel[cst.Element | cst.Arg]:
            if not expand:
                return updated.with_changes(value=word(RUN_CPU))
            space = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
            kind = type(updated)
            return cst.FlattenSentinel(
                [
                    kind(value=word("python"), comma=space),
                    kind(value=word("-m"), comma=space),
                    updated.with_changes(value=word(RUN_CPU)),
                ]
            )

        old = f'"{IPEXRUN}"' if expand else f'"{IPEX_LAUNCH}"'
        new = f'"python", "-m", "{RUN_CPU}"' if expand else f'"{RUN_CPU}"'
        ctx.records.rewrite(element, edit, f"{old} -> {new}")

    def _plan_string(
        self, ctx: CodemodContext, node: cst.SimpleString, handled: set[cst.CSTNode]
    ) -> None:
        handled.add(node)
        start = len(node.prefix) + len(node.quote)
        inner = node.value[start : len(node.value) - len(node.quote)]
        new_inner, notes = rewrite_launch_text(inner)
        self._note(ctx, node, notes)
        if new_inner != inner:
            value = node.value[:start] + new_inner + node.quote

            def edit(updated: cst.SimpleString) -> cst.SimpleString:
                return updated.with_changes(value=value)

            ctx.records.replace(node, edit)

    def _plan_fstring(
        self, ctx: CodemodContext, node: cst.FormattedString, handled: set[cst.CSTNode]
    ) -> None:
        """An f-string command: its expressions stand in the text as markers the rewrite
        never touches (and treats as unknown words), then go back where they were."""
        text = ""
        expressions: list[cst.BaseFormattedStringContent] = []
        for part in node.parts:
            if isinstance(part, cst.FormattedStringText):
                handled.add(part)
                text += part.value
            else:
                text += f"\x00{len(expressions)}\x00"
                expressions.append(part)
        new_text, notes = rewrite_launch_text(text)
        self._note(ctx, node, notes)
        if new_text == text:
            return
        pieces = re.split(r"\x00(\d+)\x00", new_text)
        parts: list[cst.BaseFormattedStringContent] = []
        for i, piece in enumerate(pieces):
            if i % 2:
                parts.append(expressions[int(piece)])
            elif piece:
                parts.append(cst.FormattedStringText(piece))

        def edit(updated: cst.FormattedString) -> cst.FormattedString:
            return updated.with_changes(parts=parts)

        ctx.records.replace(node, edit)

    def _note(self, ctx: CodemodContext, node: cst.CSTNode, notes: Sequence[LaunchNote]) -> None:
        """The text rewrite's notes, at their lines within the (possibly multi-line) string."""
        base = ctx.records.line_of(node) - 1
        for note in notes:
            if note.applied:
                ctx.records.record_at(base + note.line, note.message)
            else:
                ctx.records.refuse_at(base + note.line, note.message)


def _remove(_: cst.CSTNode) -> cst.RemovalSentinel:
    return cst.RemoveFromParent()


def _command_arg(call: cst.Call, parameter: str) -> cst.BaseExpression | None:
    """The command argument of a subprocess-like call: by keyword, else the first positional."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == parameter:
            return arg.value
    first = call.args[0] if call.args else None
    if first is not None and first.keyword is None and not first.star:
        return first.value
    return None
