"""``scan --fix``: each fix id on small samples written for it (with comments and odd spacing),
what each refuses and why, idempotence and parsing for every case, and the file layer on real
files (diffs, atomic writes, files that changed on disk, notebooks)."""

from __future__ import annotations

import ast
import json
import os
import shutil
import stat
import subprocess
from pathlib import Path
from textwrap import dedent

import pytest

from ipex_doctor.errors import DoctorError
from ipex_doctor.model.code import FileKind
from ipex_doctor.scan.fix.codemods.registry import CODEMODS, FIX_IDS, TEXT_FIXES
from ipex_doctor.scan.fix.files import fix_file, unified_diff, write_fix
from ipex_doctor.scan.fix.notebook import fix_notebook
from ipex_doctor.scan.fix.rewrite import WHOLE_FILE, FixError, FixOutcome, fix_source, fix_text


def fix(source: str, *fix_ids: str) -> FixOutcome:
    """``fix_source`` on a dedented sample."""
    return fix_source(dedent(source), fix_ids)


# -- each fix: before -> after ---------------------------------------------------------------

CASES: dict[str, tuple[str, str, str]] = {
    "autocast-xpu: with, odd spacing, trailing comment": (
        "autocast-xpu",
        """\
        import torch
        with torch.xpu.amp.autocast(enabled=True,   dtype=torch.float16):  # amp on
            y = model(x)
        """,
        """\
        import torch
        with torch.amp.autocast("xpu", enabled=True,   dtype=torch.float16, cache_enabled=True):  # amp on
            y = model(x)
        """,
    ),
    "autocast-xpu: alias, decorator, positional argument": (
        "autocast-xpu",
        """\
        import torch as t

        @t.xpu.amp.autocast(False)
        def f(x):
            return x
        """,
        """\
        import torch as t

        @t.amp.autocast("xpu", enabled=False, dtype=t.bfloat16, cache_enabled=True)
        def f(x):
            return x
        """,
    ),
    "autocast-xpu: from-import, one argument per line, comments": (
        "autocast-xpu",
        '''\
        """Train."""
        from torch.xpu.amp import autocast as ac  # IPEX AMP

        def step(model, x):
            with ac(
                dtype=torch_dtype,  # chosen by the caller
            ):
                return model(x)
        ''',
        '''\
        """Train."""
        import torch

        def step(model, x):
            with torch.amp.autocast(
                "xpu",
                dtype=torch_dtype,  # chosen by the caller
                cache_enabled=True,
            ):
                return model(x)
        ''',
    ),
    "autocast-cpu": (
        "autocast-cpu",
        """\
        import torch
        with torch.cpu.amp.autocast(dtype=torch.bfloat16), torch.no_grad():
            y = model(x)
        """,
        """\
        import torch
        with torch.amp.autocast("cpu", dtype=torch.bfloat16, cache_enabled=True), torch.no_grad():
            y = model(x)
        """,
    ),
    "autocast-xpu-state: the four functions": (
        "autocast-xpu-state",
        """\
        import torch
        if torch.xpu.is_autocast_xpu_enabled():
            d = torch.xpu.get_autocast_xpu_dtype()  # current
        torch.xpu.set_autocast_xpu_enabled(enabled=False)
        torch.xpu.set_autocast_xpu_dtype( torch.float16 )
        """,
        """\
        import torch
        if torch.is_autocast_enabled("xpu"):
            d = torch.get_autocast_dtype("xpu")  # current
        torch.set_autocast_enabled("xpu", False)
        torch.set_autocast_dtype( "xpu", torch.float16 )
        """,
    ),
    "grad-scaler-xpu": (
        "grad-scaler-xpu",
        """\
        import torch
        scaler = torch.xpu.amp.GradScaler(2.0**10, enabled=use_amp)  # fp16 only
        """,
        """\
        import torch
        scaler = torch.amp.GradScaler("xpu", 2.0**10, enabled=use_amp)  # fp16 only
        """,
    ),
    "with-and: calls": (
        "with-and",
        """\
        import torch
        with torch.no_grad()  and  torch.autocast("xpu") as ctx:  # both meant
            pass
        async def f():
            async with a() and b() and c():
                pass
        """,
        """\
        import torch
        with torch.no_grad(),  torch.autocast("xpu") as ctx:  # both meant
            pass
        async def f():
            async with a(), b(), c():
                pass
        """,
    ),
    "device-properties: the three queries": (
        "device-properties",
        """\
        import torch
        fp64 = torch.xpu.has_fp64_dtype()
        xmx = torch.xpu.has_xmx(device=1)  # second card
        ok = (torch.xpu.has_2d_block_array())
        """,
        """\
        import torch
        fp64 = torch.xpu.get_device_properties().has_fp64
        xmx = torch.xpu.get_device_properties(device=1).has_subgroup_matrix_multiply_accumulate  # second card
        ok = (torch.xpu.get_device_properties(0).has_subgroup_2d_block_io)
        """,
    ),
    "mem-get-info: adds import torch": (
        "mem-get-info",
        """\
        import intel_extension_for_pytorch as ipex

        free,   total = ipex.xpu.mem_get_info(0)  # bytes
        """,
        """\
        import intel_extension_for_pytorch as ipex
        import torch

        free,   total = torch.xpu.mem_get_info(0)  # bytes
        """,
    ),
    "ccl-to-xccl: keyword, positional, guarded import": (
        "ccl-to-xccl",
        """\
        import torch
        import torch.distributed as dist
        # registers the ccl backend
        import oneccl_bindings_for_pytorch  # noqa: F401

        def main():
            dist.init_process_group(backend='ccl', rank=0, world_size=1)
            torch.distributed.init_process_group("ccl")
        """,
        """\
        import torch
        import torch.distributed as dist
        # registers the ccl backend
        if not getattr(torch.distributed, "is_xccl_available", lambda: False)():
            import oneccl_bindings_for_pytorch  # noqa: F401

        def main():
            dist.init_process_group(backend='xccl' if getattr(torch.distributed, 'is_xccl_available', lambda: False)() else 'ccl', rank=0, world_size=1)
            torch.distributed.init_process_group("xccl" if getattr(torch.distributed, "is_xccl_available", lambda: False)() else "ccl")
        """,
    ),
    "ccl-to-xccl: import torch added before the guard that needs it": (
        "ccl-to-xccl",
        """\
        import oneccl_bindings_for_pytorch
        import torch.distributed as dist
        dist.init_process_group("ccl")
        """,
        """\
        import torch
        if not getattr(torch.distributed, "is_xccl_available", lambda: False)():
            import oneccl_bindings_for_pytorch
        import torch.distributed as dist
        dist.init_process_group("xccl" if getattr(torch.distributed, "is_xccl_available", lambda: False)() else "ccl")
        """,
    ),
    "launcher: command list and string": (
        "launcher",
        """\
        import os
        import subprocess
        subprocess.run(["ipexrun", "cpu", "--ninstances", "2", "train.py"], check=True)
        subprocess.run([sys.executable, '-m', 'intel_extension_for_pytorch.cpu.launch', 'a.py'])
        os.system("ipexrun --latency-mode bench.py && echo done")
        """,
        """\
        import os
        import subprocess
        subprocess.run(["python", "-m", "torch.backends.xeon.run_cpu", "--ninstances", "2", "train.py"], check=True)
        subprocess.run([sys.executable, '-m', 'torch.backends.xeon.run_cpu', 'a.py'])
        os.system("python -m torch.backends.xeon.run_cpu --latency-mode bench.py && echo done")
        """,
    ),
    "qconv-op-rename: named overloads and a 17-argument call": (
        "qconv-op-rename",
        """\
        import torch
        ops = torch.ops
        y = torch.ops.onednn.qconv2d_pointwise.default(*args)
        t = torch.ops.onednn.qconv2d_pointwise.tensor
        w = torch.ops.onednn.qconv2d_pointwise(
            qx, 1.0, 0, qw, ws, wz, None, [1, 1], [0, 0], [1, 1], 1, 1.0, 0, None, "none", [], ""
        )
        """,
        """\
        import torch
        ops = torch.ops
        y = torch.ops.onednn.qconv_pointwise.default(*args)
        t = torch.ops.onednn.qconv_pointwise.tensor
        w = torch.ops.onednn.qconv_pointwise(
            qx, 1.0, 0, qw, ws, wz, None, [1, 1], [0, 0], [1, 1], 1, 1.0, 0, None, "none", [], ""
        )
        """,
    ),
    "ipex-side-effect-import: comment above moves down": (
        "ipex-side-effect-import",
        """\
        import torch

        # IPEX used to be needed for "xpu"
        import intel_extension_for_pytorch as ipex  # noqa: F401

        x = torch.ones(2, device="xpu")
        """,
        """\
        import torch

        # IPEX used to be needed for "xpu"

        x = torch.ones(2, device="xpu")
        """,
    ),
    "ipex-side-effect-import: one name of several": (
        "ipex-side-effect-import",
        """\
        import os, intel_extension_for_pytorch, sys; print(os.sep, sys.argv)
        """,
        """\
        import os, sys; print(os.sep, sys.argv)
        """,
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_each_fix_rewrites_its_sample(case: str) -> None:
    """The sample becomes the expected text, comments and spacing kept, and the result parses."""
    fix_id, before, after = CASES[case]
    outcome = fix(before, fix_id)
    assert outcome.source == dedent(after)
    assert outcome.changed
    assert outcome.rewrites and {r.fix_id for r in outcome.rewrites} == {fix_id}
    assert not outcome.refusals, outcome.refusals
    ast.parse(outcome.source)


@pytest.mark.parametrize("case", list(CASES))
def test_a_second_pass_changes_nothing(case: str) -> None:
    """Idempotence, per case, with the case's own fix and with every fix at once."""
    fix_id, before, _ = CASES[case]
    for ids in ({fix_id}, FIX_IDS):
        first = fix_source(dedent(before), ids)
        second = fix_source(first.source, ids)
        assert second.source == first.source
        assert not second.changed and not second.rewrites


def test_every_fix_id_has_a_case() -> None:
    """Each codemod is exercised above (the launcher's text form below), and registered under
    its own id."""
    assert {fix_id for fix_id, _, _ in CASES.values()} == set(CODEMODS)
    assert all(codemod.FIX_ID == fix_id for fix_id, codemod in CODEMODS.items())
    assert set(TEXT_FIXES) <= FIX_IDS


KITCHEN_SINK = '''\
"""Everything at once; strings and comments mention torch.xpu.amp.autocast() and ipexrun."""
import subprocess
import torch as t
import intel_extension_for_pytorch as ipex  # torch.xpu.amp.autocast()
from torch.xpu.amp import autocast as ac

MESSAGE = "torch.xpu.amp.autocast() and torch.xpu.has_xmx() are gone"


@t.cpu.amp.autocast(False)
def f(x):
    with ac(enabled=True,  # yes
            dtype=t.bfloat16):
        with t.no_grad() and t.autocast("xpu"):
            pass
    t.xpu.set_autocast_xpu_enabled(False)
    s = t.xpu.amp.GradScaler(init_scale=1024)
    free, total = ipex.xpu.mem_get_info()
    subprocess.run(["ipexrun", "x.py"])
    return t.xpu.has_fp64_dtype() and t.ops.onednn.qconv2d_pointwise.default
'''


def test_all_fixes_together_and_strings_untouched() -> None:
    """Every fix on one module: strings and comments are byte for byte the same, the result
    parses, and a second pass changes nothing."""
    outcome = fix_source(KITCHEN_SINK, FIX_IDS)
    # NOTE: the docstring mentions the launcher: reported, not changed.
    assert [(r.fix_id, r.line) for r in outcome.refusals] == [("launcher", 1)]
    assert '"torch.xpu.amp.autocast() and torch.xpu.has_xmx() are gone"' in outcome.source
    assert outcome.source.startswith('"""Everything at once; strings and comments mention')
    assert "import intel_extension_for_pytorch" not in outcome.source
    assert "from torch.xpu.amp" not in outcome.source
    assert "xpu.amp" not in outcome.source.replace("torch.xpu.amp.autocast() and", "")
    assert "# yes" in outcome.source
    ast.parse(outcome.source)
    assert fix_source(outcome.source, FIX_IDS).source == outcome.source


def test_lines_are_those_of_the_original() -> None:
    """Records point at the user's lines even after an earlier fix added or removed lines."""
    source = dedent(
        """\
        from torch.xpu.amp import autocast
        import torch
        import intel_extension_for_pytorch

        with autocast():
            pass
        with a() and b():
            pass
        """
    )
    outcome = fix_source(source, FIX_IDS)
    lines = {r.summary.split(" ")[0]: r.line for r in outcome.rewrites}
    assert lines["removed"] in (1, 3)
    assert next(r.line for r in outcome.rewrites if r.fix_id == "with-and") == 7
    assert next(r.line for r in outcome.rewrites if r.summary.startswith("autocast(")) == 5
    assert {r.line for r in outcome.rewrites if r.fix_id == "ipex-side-effect-import"} == {3}


# -- what each fix refuses -------------------------------------------------------------------

REFUSALS: dict[str, tuple[str, str, int, str]] = {
    "autocast: *args": (
        "autocast-xpu",
        "import torch\nwith torch.xpu.amp.autocast(*opts):\n    pass\n",
        2,
        "* or **",
    ),
    "autocast: not called": (
        "autocast-xpu",
        "import torch\nctx = torch.xpu.amp.autocast\n",
        2,
        "without being called",
    ),
    "autocast: torch means something else": (
        "autocast-xpu",
        "from torch.xpu.amp import autocast\ntorch = None\nwith autocast():\n    pass\n",
        3,
        "torch means something else",
    ),
    "autocast: a name bound twice": (
        "autocast-xpu",
        "import torch\nif old:\n    from torch.xpu.amp import autocast\nelse:\n    autocast = None\n"
        "with autocast():\n    pass\n",
        6,
        "bound more than once",
    ),
    "state: wrong number of arguments": (
        "autocast-xpu-state",
        "import torch\ntorch.xpu.set_autocast_xpu_dtype()\n",
        2,
        "takes 1 argument",
    ),
    "grad scaler: device keyword": (
        "grad-scaler-xpu",
        "import torch\ns = torch.xpu.amp.GradScaler(device='xpu')\n",
        2,
        "device=",
    ),
    "with-and: names": (
        "with-and",
        "with lock and other:\n    pass\n",
        1,
        "not every operand",
    ),
    "device-properties: two arguments": (
        "device-properties",
        "import torch\ntorch.xpu.has_xmx(0, 1)\n",
        2,
        "at most one argument",
    ),
    "qconv: binary overload": (
        "qconv-op-rename",
        "import torch\nz = torch.ops.onednn.qconv2d_pointwise.binary(*a)\n",
        2,
        "overload .binary",
    ),
    "qconv: packet call with *args": (
        "qconv-op-rename",
        "import torch\nz = torch.ops.onednn.qconv2d_pointwise(*a)\n",
        2,
        "binary overload",
    ),
    "qconv: op as a value": (
        "qconv-op-rename",
        "import torch\nop = torch.ops.onednn.qconv2d_pointwise\n",
        2,
        "used as a value",
    ),
    "ccl: import kept while ccl is used elsewhere": (
        "ccl-to-xccl",
        "import torch\nimport oneccl_bindings_for_pytorch\n"
        "torch.distributed.init_process_group('ccl')\n"
        "CHOICES = ['ccl', 'gloo']\n",
        2,
        '"ccl" is still used at line 4',
    ),
    "ccl: a backend given to another call": (
        "ccl-to-xccl",
        "import torch\ng = torch.distributed.new_group(backend='ccl')\n",
        2,
        "rewrites only torch.distributed.init_process_group",
    ),
    "ccl: a backend kept as a value": (
        "ccl-to-xccl",
        "class Backend(Base):\n    def __init__(self):\n        self.dist_backend = 'ccl'\n",
        3,
        '"ccl" kept as a backend stays',
    ),
    "ccl: import kept without init_process_group here": (
        "ccl-to-xccl",
        "import oneccl_bindings_for_pytorch\n",
        1,
        "may serve another",
    ),
    "ccl: import kept when its name is used": (
        "ccl-to-xccl",
        "import torch\nimport oneccl_bindings_for_pytorch as occl\n"
        "torch.distributed.init_process_group('ccl')\nprint(occl.__version__)\n",
        2,
        "uses the name occl",
    ),
    "launcher: option run_cpu lacks": (
        "launcher",
        "import subprocess\nsubprocess.run(['ipexrun', '--memory-allocator', 'jemalloc', 'a.py'])\n",
        2,
        "--memory-allocator",
    ),
    "launcher: a variable among the options": (
        "launcher",
        "import subprocess\nsubprocess.run(f'ipexrun --ninstances {n} a.py', shell=True)\n",
        2,
        "not written out",
    ),
    "launcher: mentioned in a message": (
        "launcher",
        "print('run it with ipexrun')\n",
        1,
        "outside a command",
    ),
    "mem-get-info: assigned to": (
        "mem-get-info",
        "import intel_extension_for_pytorch as ipex\nipex.xpu.mem_get_info = fake\n",
        2,
        "assigned to",
    ),
    "with-and: parenthesized": (
        "with-and",
        "with (a() and b()):\n    pass\n",
        1,
        "in parentheses",
    ),
    "side effect: names reached dynamically": (
        "ipex-side-effect-import",
        "import intel_extension_for_pytorch as ipex\nm = globals()['ipex']\n",
        1,
        "globals()",
    ),
    "side effect: IPEX still needed": (
        "ipex-side-effect-import",
        "import torch\nimport intel_extension_for_pytorch\nm = torch.xpu.optimize(m)\n",
        2,
        "torch.xpu.optimize (line 3)",
    ),
    "side effect: listed in __all__": (
        "ipex-side-effect-import",
        "import intel_extension_for_pytorch as ipex\n__all__ = ['ipex']\n",
        1,
        "__all__",
    ),
    "side effect: only statement of its block": (
        "ipex-side-effect-import",
        "if ready:\n    import intel_extension_for_pytorch\n",
        2,
        "only statement of its block",
    ),
    "side effect: guarded by try/except ImportError": (
        "ipex-side-effect-import",
        "try:\n    import intel_extension_for_pytorch\n    HAS_IPEX = True\n"
        "except ImportError:\n    HAS_IPEX = False\n",
        2,
        "catches its ImportError",
    ),
    "side effect: the name is used": (
        "ipex-side-effect-import",
        "import intel_extension_for_pytorch as ipex\nmodel = ipex.optimize(model)\n",
        1,
        "the module uses ipex (line 2)",
    ),
    "side effect: another spelling": (
        "ipex-side-effect-import",
        "from intel_extension_for_pytorch.xpu import cpp_extension\n",
        1,
        "removes only an unused `import intel_extension_for_pytorch`",
    ),
}


@pytest.mark.parametrize("case", list(REFUSALS))
def test_each_refusal_leaves_the_code_and_says_why(case: str) -> None:
    """A place that cannot be proven equivalent is left as written and reported at its line."""
    fix_id, source, line, why = REFUSALS[case]
    outcome = fix_source(source, {fix_id})
    assert [(r.fix_id, r.line) for r in outcome.refusals] == [(fix_id, line)]
    assert why in outcome.refusals[0].reason
    if fix_id == "ccl-to-xccl":
        # NOTE: the backend is still rewritten; the import line is what stays.
        kept = source.splitlines()[line - 1]
        assert kept in outcome.source.splitlines()
    else:
        assert outcome.source == source
    assert fix_source(outcome.source, {fix_id}).source == outcome.source


@pytest.mark.slow
def test_this_repository_is_left_alone() -> None:
    """Real code that uses no IPEX API (this project's own, which names those APIs in strings
    and comments throughout) comes back unchanged, and no fix fails on it."""
    repo = Path(__file__).resolve().parents[3]
    paths = [p for d in ("ipex_doctor", "checks", "tools") for p in (repo / d).rglob("*.py")]
    assert len(paths) > 50
    for path in paths:
        source = path.read_text(encoding="utf-8")
        outcome = fix_source(source, FIX_IDS)
        assert outcome.source == source, path
        assert not [r for r in outcome.refusals if "bug" in r.reason], path


def test_what_is_not_a_target_is_not_touched() -> None:
    """Shadowed names, strings, comments and upstream APIs are never rewritten."""
    source = dedent(
        """\
        import torch
        # torch.xpu.amp.autocast() in a comment
        def f(torch):
            return torch.xpu.amp.autocast()
        doc = "torch.xpu.has_fp64_dtype()"
        with torch.amp.autocast("xpu"):
            free = torch.xpu.mem_get_info()
        with x and y:
            pass
        """
    )
    outcome = fix_source(source, FIX_IDS - {"with-and"})
    assert outcome.source == source
    assert not outcome.changed and not outcome.rewrites and not outcome.refusals


def test_autocast_keeps_the_side_effect_import_when_it_is_used() -> None:
    """A from-import stays while the name is still used somewhere that could not be rewritten."""
    source = "import torch\nfrom torch.xpu.amp import autocast\nctx = autocast\nwith autocast():\n    pass\n"
    outcome = fix_source(source, {"autocast-xpu"})
    assert "from torch.xpu.amp import autocast\n" in outcome.source
    assert 'with torch.amp.autocast("xpu"' in outcome.source


def test_a_file_that_does_not_parse_is_left_alone() -> None:
    """Nothing applied, one refusal about the whole file."""
    outcome = fix_source("import torch\nwith torch.xpu.amp.autocast(:\n", FIX_IDS)
    assert outcome.source == "import torch\nwith torch.xpu.amp.autocast(:\n"
    assert [r.fix_id for r in outcome.refusals] == [WHOLE_FILE]
    assert "does not parse" in outcome.refusals[0].reason


def test_an_unknown_fix_id_is_a_one_line_error_with_a_tip() -> None:
    """A rule naming a fix that does not exist is refused before anything runs."""
    with pytest.raises(FixError) as caught:
        fix_source("x = 1\n", {"autocast-xpus"})
    assert isinstance(caught.value, DoctorError)
    assert caught.value.message == "unknown fix id 'autocast-xpus'"
    assert caught.value.tip is not None and "autocast-xpu" in caught.value.tip


# -- shell scripts and Dockerfiles -----------------------------------------------------------

SHELL = """\
#!/bin/bash
# ipexrun --ninstances 2 commented.py
ipexrun --ninstances 2 --ncores-per-instance 4 train.py --epochs 3
OMP_NUM_THREADS=4 ipexrun cpu bench.py
cd x && ipexrun \\
   --latency-mode infer.py
python -m intel_extension_for_pytorch.cpu.launch --throughput-mode run.py
python3 -m intel_extension_for_pytorch.cpu.launch --nnodes 2 dist.py
ipexrun xpu a.py
ipexrun $OPTS a.py
echo "ipexrun is gone"
ipexrun --ninstances 0 a.py
"""

SHELL_FIXED = """\
#!/bin/bash
# ipexrun --ninstances 2 commented.py
python -m torch.backends.xeon.run_cpu --ninstances 2 --ncores-per-instance 4 train.py --epochs 3
OMP_NUM_THREADS=4 python -m torch.backends.xeon.run_cpu bench.py
cd x && python -m torch.backends.xeon.run_cpu \\
   --latency-mode infer.py
python -m torch.backends.xeon.run_cpu --throughput-mode run.py
python3 -m intel_extension_for_pytorch.cpu.launch --nnodes 2 dist.py
ipexrun xpu a.py
ipexrun $OPTS a.py
echo "ipexrun is gone"
ipexrun --ninstances 0 a.py
"""


def test_shell_launcher_commands() -> None:
    """What moves is rewritten (``ipexrun cpu`` loses its subcommand), what cannot is reported
    with the reason, comments are not touched, and a second pass changes nothing."""
    outcome = fix_text(SHELL, FileKind.SHELL, {"launcher"})
    assert outcome.source == SHELL_FIXED
    assert [r.line for r in outcome.rewrites] == [3, 4, 5, 7]
    assert outcome.rewrites[1].summary == "ipexrun cpu -> python -m torch.backends.xeon.run_cpu"
    reasons = {r.line: r.reason for r in outcome.refusals}
    assert set(reasons) == {8, 9, 10, 11, 12}
    assert "--nnodes" in reasons[8] and "XPU launcher" in reasons[9]
    assert "not written out" in reasons[10] and "positive number" in reasons[12]
    assert not fix_text(outcome.source, FileKind.SHELL, {"launcher"}).changed


def test_dockerfile_launcher_commands() -> None:
    """Shell form and JSON exec form, in one Dockerfile."""
    dockerfile = dedent(
        """\
        FROM python:3.11
        RUN pip install torch
        CMD ["ipexrun", "cpu", "--ninstances", "2", "app.py"]
        ENTRYPOINT ["python", "-m", "intel_extension_for_pytorch.cpu.launch", "serve.py"]
        RUN ipexrun --throughput-mode app.py
        """
    )
    outcome = fix_text(dockerfile, FileKind.DOCKERFILE, {"launcher"})
    assert outcome.source == dedent(
        """\
        FROM python:3.11
        RUN pip install torch
        CMD ["python", "-m", "torch.backends.xeon.run_cpu", "--ninstances", "2", "app.py"]
        ENTRYPOINT ["python", "-m", "torch.backends.xeon.run_cpu", "serve.py"]
        RUN python -m torch.backends.xeon.run_cpu --throughput-mode app.py
        """
    )
    assert [r.line for r in outcome.rewrites] == [3, 4, 5] and not outcome.refusals


def test_text_fixes_are_for_text_files() -> None:
    """Python fixes do nothing to text; Python and notebooks are refused by fix_text."""
    assert not fix_text("ipexrun a.py\n", FileKind.SHELL, {"autocast-xpu"}).changed
    assert not fix_text("ipexrun a.py\n", FileKind.REQUIREMENTS, {"launcher"}).changed
    with pytest.raises(FixError):
        fix_text("x = 1\n", FileKind.PYTHON, {"launcher"})


# -- files -----------------------------------------------------------------------------------

SAMPLE = "import torch\nwith torch.xpu.amp.autocast():\n    pass\n"
SAMPLE_FIXED = (
    'import torch\nwith torch.amp.autocast("xpu", dtype=torch.bfloat16, cache_enabled=True):\n'
    "    pass\n"
)


def test_dry_run_gives_a_diff_and_leaves_the_file(tmp_path: Path) -> None:
    """write=False reads only; the diff is a unified diff of the change."""
    path = tmp_path / "train.py"
    path.write_text(SAMPLE)
    result = fix_file(path, {"autocast-xpu"}, write=False)
    assert result.changed and path.read_text() == SAMPLE
    assert result.diff.startswith(f"--- a/{path.as_posix().lstrip('/')}\n+++ b/")
    assert "-with torch.xpu.amp.autocast():\n" in result.diff
    assert '+with torch.amp.autocast("xpu", dtype=torch.bfloat16, cache_enabled=True):\n' in (
        result.diff
    )


def test_write_is_in_place_and_keeps_the_file(tmp_path: Path) -> None:
    """The new text goes into the same file (same inode), which keeps its mode; no temporary
    file is left; a second fix changes nothing."""
    path = tmp_path / "train.py"
    path.write_text(SAMPLE)
    path.chmod(0o640)
    inode = path.stat().st_ino
    result = fix_file(path, {"autocast-xpu"}, write=True)
    assert result.changed and path.read_text() == SAMPLE_FIXED
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert path.stat().st_ino == inode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train.py"]
    again = fix_file(path, {"autocast-xpu"}, write=True)
    assert not again.changed and again.diff == ""


def test_write_through_a_symlink_keeps_the_link(tmp_path: Path) -> None:
    """The link's target is fixed; the link stays a link."""
    target = tmp_path / "real.py"
    target.write_text(SAMPLE)
    link = tmp_path / "link.py"
    link.symlink_to(target)
    fix_file(link, {"autocast-xpu"}, write=True)
    assert link.is_symlink() and target.read_text() == SAMPLE_FIXED


@pytest.mark.parametrize("change", ["content", "mtime"])
def test_a_file_changed_since_it_was_read_is_not_written(tmp_path: Path, change: str) -> None:
    """Another editor's change (new bytes, or only a new modification time) wins: the write is
    refused with one line and the file keeps what the other editor wrote."""
    path = tmp_path / "train.py"
    path.write_text(SAMPLE)
    planned = fix_file(path, {"autocast-xpu"}, write=False)
    if change == "content":
        path.write_text(SAMPLE + "# edited meanwhile\n")
    else:
        seen = path.stat()
        os.utime(path, ns=(seen.st_atime_ns, seen.st_mtime_ns + 1_000_000_000))
    edited = path.read_bytes()
    with pytest.raises(FixError) as caught:
        write_fix(planned)
    assert "changed on disk since it was read" in str(caught.value)
    assert "\n" not in caught.value.message
    assert path.read_bytes() == edited
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train.py"]


def test_line_endings_and_byte_order_mark_survive(tmp_path: Path) -> None:
    """A CRLF file with a BOM keeps both."""
    path = tmp_path / "win.py"
    path.write_bytes(b"\xef\xbb\xbf" + SAMPLE.replace("\n", "\r\n").encode())
    fix_file(path, {"autocast-xpu"}, write=True)
    assert path.read_bytes() == b"\xef\xbb\xbf" + SAMPLE_FIXED.replace("\n", "\r\n").encode()


def test_files_that_cannot_be_fixed_are_one_line_errors(tmp_path: Path) -> None:
    """No fixes for the kind, missing: FixError naming the file. Not UTF-8: the file is
    left alone, and the refusal says why."""
    latin = tmp_path / "latin.py"
    latin.write_bytes(b"# caf\xe9\nimport torch\n")
    readme = tmp_path / "README.md"
    readme.write_text("ipexrun\n")
    for path in (readme, tmp_path / "missing.py"):
        with pytest.raises(FixError) as caught:
            fix_file(path, {"launcher"}, write=True)
        assert str(path) in caught.value.message and "\n" not in caught.value.message
    left = fix_file(latin, {"launcher"}, write=True)
    assert not left.changed and "not UTF-8" in left.outcome.refusals[0].reason
    assert latin.read_bytes() == b"# caf\xe9\nimport torch\n"


@pytest.mark.parametrize(
    "name", ["odd\nname.py", 'café "q".py', "with space.py", "tab\t.py", "back\\slash.py"]
)
def test_diff_headers_name_files_as_git_does(tmp_path: Path, name: str) -> None:
    """A name with a newline, a quote, a byte outside ASCII, a space, a tab or a backslash is
    written in the diff header exactly as ``git diff`` writes it, so the header stays one
    line and names that file alone."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    (tmp_path / name).write_text("a\n")
    (tmp_path / "other.py").write_text("b\n")
    done = subprocess.run(
        ["git", "diff", "--no-index", "--", name, "other.py"],
        capture_output=True, text=True, cwd=tmp_path, check=False,
    )  # fmt: skip
    header = next(line for line in done.stdout.split("\n") if line.startswith("--- "))
    ours = unified_diff("a\n", "b\n", name).split("\n")[0]
    assert ours == header


def test_shell_script_and_dockerfile_files(tmp_path: Path) -> None:
    """The kind comes from the name: *.sh, Dockerfile."""
    script = tmp_path / "run.sh"
    script.write_text("ipexrun a.py\n")
    script.chmod(0o755)
    docker = tmp_path / "Dockerfile"
    docker.write_text("RUN ipexrun a.py\n")
    fix_file(script, {"launcher"}, write=True)
    fix_file(docker, {"launcher"}, write=True)
    assert script.read_text() == "python -m torch.backends.xeon.run_cpu a.py\n"
    assert stat.S_IMODE(script.stat().st_mode) == 0o755
    assert docker.read_text() == "RUN python -m torch.backends.xeon.run_cpu a.py\n"


def test_a_script_without_a_suffix_is_fixed_by_its_shebang(tmp_path: Path) -> None:
    """A name without a suffix is a shell script where its ``#!`` line names a shell, a Python
    module where it names Python 3, as the scan read it: rewritten as one; one whose ``#!``
    names Python 2, or that has none, has no fixes (the scan did not read it)."""
    script = tmp_path / "run_xpu"
    script.write_text("#!/usr/bin/env bash\nipexrun a.py\n")
    fix_file(script, {"launcher"}, write=True)
    assert script.read_text() == "#!/usr/bin/env bash\npython -m torch.backends.xeon.run_cpu a.py\n"
    entry = tmp_path / "train"
    entry.write_text("#!/usr/bin/env python3\n" + SAMPLE)
    fix_file(entry, {"autocast-xpu"}, write=True)
    assert entry.read_text() == "#!/usr/bin/env python3\n" + SAMPLE_FIXED
    for text in ("#!/usr/bin/python2\nipexrun a.py\n", "ipexrun a.py\n"):
        other = tmp_path / "tool"
        other.write_text(text)
        with pytest.raises(FixError, match="no fixes apply to this kind of file"):
            fix_file(other, {"launcher"}, write=True)
        assert other.read_text() == text


# -- notebooks -------------------------------------------------------------------------------


def _notebook(*cells: tuple[str, str | list[str]]) -> dict[str, object]:
    return {
        "cells": [
            {
                "cell_type": kind,
                "execution_count": None,
                "metadata": {},
                "outputs": [],
                "source": src,
            }
            if kind == "code"
            else {"cell_type": kind, "metadata": {}, "source": src}
            for kind, src in cells
        ],
        "metadata": {"kernelspec": {"display_name": "Python 3", "name": "python3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


NOTEBOOK = _notebook(
    ("markdown", ["# Migration ü\n", "`torch.xpu.amp.autocast()` is text here"]),
    (
        "code",
        ["%matplotlib inline\n", "import torch\n", "import intel_extension_for_pytorch as ipex"],
    ),
    (
        "code",
        [
            "!ipexrun --ninstances 2 train.py\n",
            "with torch.xpu.amp.autocast(dtype=torch.float16):\n",
            "    y = 1",
        ],
    ),
    ("code", ["%%bash\n", "ipexrun --throughput-mode x.py\n"]),
    ("code", "free, total = ipex.xpu.mem_get_info()"),
    ("code", ["print(1"]),
)


def test_notebook_cells_are_fixed_together_and_located_by_cell(tmp_path: Path) -> None:
    """Cells see the imports above them; magics survive; ``!`` and ``%%bash`` get the text fix;
    a cell that does not parse is reported and left; the JSON keeps Jupyter's layout."""
    path = tmp_path / "nb.ipynb"
    original = json.dumps(NOTEBOOK, indent=1, ensure_ascii=False) + "\n"
    path.write_text(original, encoding="utf-8")
    result = fix_file(path, FIX_IDS, write=True)
    written = path.read_text(encoding="utf-8")
    cells = json.loads(written)["cells"]
    assert cells[0] == NOTEBOOK["cells"][0]  # type: ignore[index]
    assert cells[1]["source"] == ["%matplotlib inline\n", "import torch"]
    assert cells[2]["source"] == [
        "!python -m torch.backends.xeon.run_cpu --ninstances 2 train.py\n",
        'with torch.amp.autocast("xpu", dtype=torch.float16, cache_enabled=True):\n',
        "    y = 1",
    ]
    assert cells[3]["source"] == [
        "%%bash\n",
        "python -m torch.backends.xeon.run_cpu --throughput-mode x.py\n",
    ]
    assert cells[4]["source"] == "free, total = torch.xpu.mem_get_info()"
    assert cells[5]["source"] == ["print(1"]
    assert written == json.dumps(json.loads(written), indent=1, ensure_ascii=False) + "\n"
    assert "ü" in written
    # NOTE: cells are numbered as the scan's findings number them: among all the cells (the
    # Markdown cell is 1).
    where = {(r.fix_id, r.cell, r.line) for r in result.outcome.rewrites}
    assert {
        ("ipex-side-effect-import", 2, 3),
        ("launcher", 3, 1),
        ("autocast-xpu", 3, 2),
        ("launcher", 4, 2),
        ("mem-get-info", 5, 1),
    } <= where
    assert [(r.fix_id, r.cell) for r in result.outcome.refusals] == [(WHOLE_FILE, 6)]
    assert not fix_file(path, FIX_IDS, write=False).changed


def test_a_notebook_json_cannot_rewrite_exactly_is_refused() -> None:
    """Hand-written JSON (compact, other spacing): fixing would reformat every cell."""
    text = json.dumps(
        _notebook(("code", "import torch\ntorch.xpu.has_xmx()\n")), separators=(",", ":")
    )
    outcome = fix_notebook(text, {"device-properties"})
    assert outcome.source == text and not outcome.changed
    assert "layout" in outcome.refusals[0].reason


def test_every_fix_a_rule_names_is_implemented() -> None:
    """The rules (data, below the scanner) name their fixes by id; each id is a codemod or a
    text fix here, and every implemented fix is named by some rule."""
    from ipex_doctor.knowledge import code_rules
    from ipex_doctor.scan.fix.codemods.registry import FIX_IDS

    named = {rule.fix for rule in code_rules.load().rules if rule.fix}
    assert named == set(FIX_IDS)


def test_the_diff_of_generated_code_removes_only_the_changed_lines() -> None:
    """Every function of a generated module rewritten on one line: the diff removes those lines
    and no other (difflib's matcher, which the diff once fell back to, removes and re-adds
    unchanged lines here, and is quadratic on such files)."""
    body = (
        "def step_{n}(model, x):\n    with torch.xpu.amp.autocast():\n        return model(x)\n\n"
    )
    old = "".join(body.format(n=n) for n in range(400))
    new = old.replace("torch.xpu.amp.autocast()", 'torch.autocast("xpu")')
    removed = [
        line
        for line in unified_diff(old, new, "m.py").splitlines()
        if line.startswith("-") and not line.startswith("---")
    ]
    assert removed == ["-    with torch.xpu.amp.autocast():"] * 400
