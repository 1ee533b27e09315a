"""``ipex-unbound-alias``: a chain on IPEX's usual alias ``ipex`` that nothing binds where it is
read (the import removed or commented out), in the forms projects write it; and the project's
own ``ipex`` names, which something binds, kept quiet."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from scan_rules import found, scan, write

from ipex_doctor.knowledge import code_rules

SHIPPED = code_rules.load()
RULE = "ipex-unbound-alias"


def _alias_hits(tmp_path: Path, files: dict[str, str], **options: object) -> list[tuple]:
    write(tmp_path, {name: textwrap.dedent(text) for name, text in files.items()})
    result = scan(tmp_path, SHIPPED, **options)
    return [(path, line, symbol) for path, line, rule, symbol in found(result) if rule == RULE]


def test_a_call_whose_import_is_commented_out_is_found(tmp_path: Path) -> None:
    """pytorch/serve's torchprep (runtime.py, trimmed): ``# import ipex`` at the top, an enum
    member named ``ipex`` in a class body (which the method does not see), and
    ``ipex.optimize(model)`` in the branch the project's switch selects. The switch is found
    too, now that its branch holds an IPEX finding."""
    source = """\
        import torch
        # import ipex
        from enum import Enum

        class Runtime(str, Enum):
            ipex = "ipex"

        def _export_to_runtime(model, runtime):
            if runtime == Runtime.ipex:
                optimized_model = ipex.optimize(model)
            torch.save(optimized_model, "optimized_model.pt")
        """
    write(tmp_path, {"runtime.py": textwrap.dedent(source)})
    result = scan(tmp_path, SHIPPED)
    assert [(line, rule) for _, line, rule, _ in found(result)] == [
        (9, "ipex-path-switch"),
        (10, RULE),
    ]
    (match,) = [m for m in result.matches if m.rule_id == RULE]
    assert match.symbol == "intel_extension_for_pytorch.optimize"
    at = match.location
    assert match.snippet[at.column : at.end_column] == "ipex.optimize"


def test_the_forms_projects_hand_it_on_in_are_found(tmp_path: Path) -> None:
    """A callback, ``functools.partial``, a lambda, a dict of functions for dispatch, an
    attribute chain, a function of the module and a nested one: each reads the alias."""
    source = """\
        import functools
        import torch

        def apply(fn, model):
            return fn(model)

        model = apply(ipex.optimize, torch.nn.Linear(2, 2))
        bf16 = functools.partial(ipex.optimize, dtype=torch.bfloat16)
        lazy = lambda m: ipex.llm.optimize(m)
        BACKENDS = {"ipex": ipex.optimize, "none": lambda m: m}

        def outer():
            def inner():
                return ipex.xpu.is_available()
            return inner
        """
    assert _alias_hits(tmp_path, {"backends.py": source}) == [
        ("backends.py", 7, "intel_extension_for_pytorch.optimize"),
        ("backends.py", 8, "intel_extension_for_pytorch.optimize"),
        ("backends.py", 9, "intel_extension_for_pytorch.llm.optimize"),
        ("backends.py", 10, "intel_extension_for_pytorch.optimize"),
        ("backends.py", 14, "intel_extension_for_pytorch.xpu.is_available"),
    ]


def test_an_import_inside_one_function_binds_the_alias_there_alone(tmp_path: Path) -> None:
    """oap-project/cloudtik's copy of the DLRM script (dlrm_s_pytorch.py, trimmed) imports IPEX
    inside ``run()`` under its own ``--ipex`` flag; the model's method reads the module's
    ``ipex``, which nothing binds. The read inside ``run()`` is the import's."""
    source = """\
        import torch

        class DLRM_Net(torch.nn.Module):
            def interact_features(self, T, args):
                if args.ipex and args.ipex_interaction:
                    return ipex.nn.functional.interaction(*T)

        def run(args, dlrm):
            if args.ipex:
                import intel_extension_for_pytorch as ipex
                dlrm = ipex.optimize(dlrm, inplace=True)
        """
    assert _alias_hits(tmp_path, {"dlrm_s_pytorch.py": source}) == [
        ("dlrm_s_pytorch.py", 6, "intel_extension_for_pytorch.nn.functional.interaction"),
    ]


def test_a_documents_snippet_that_assumes_the_import_is_found(tmp_path: Path) -> None:
    """A README's Python block written as if ``import intel_extension_for_pytorch as ipex`` had
    run, in a document that holds no such import; where a block of the same document holds it,
    the use is the import's (a document's blocks are read as one notebook's cells)."""
    snippet = "```python\nmodel = ipex.optimize(model)\n```\n"
    imported = "```python\nimport intel_extension_for_pytorch as ipex\n```\n"
    files = {"README.md": "# Speed\n\n" + snippet, "docs/cpu.md": imported + "\n" + snippet}
    assert _alias_hits(tmp_path, files, docs=True) == [
        ("README.md", 4, "intel_extension_for_pytorch.optimize"),
    ]


@pytest.mark.parametrize(
    ("why", "source"),
    [
        (
            "a parameter of the project's own (an options object named ipex)",
            "def run(model, ipex):\n    return ipex.enabled and ipex.level\n",
        ),
        (
            "a project's own --ipex flag read into a variable",
            "import argparse\n"
            "parser = argparse.ArgumentParser()\n"
            'parser.add_argument("--ipex", action="store_true")\n'
            "args = parser.parse_args()\n"
            "ipex = args\n"
            "print(ipex.ipex)\n",
        ),
        (
            "an attribute of an object, and an enum member",
            "class Runtime:\n"
            '    ipex = "ipex"\n'
            "    def run(self, model):\n"
            "        return self.ipex.upper(), Runtime.ipex\n",
        ),
        (
            "a name a star import may bind",
            "from .backends import *\nmodel = ipex.optimize(model)\n",
        ),
        (
            "a name exec binds",
            'exec("import intel_extension_for_pytorch as ipex")\nipex.optimize(1)\n',
        ),
        (
            "a name globals() binds",
            'globals()["ipex"] = __import__("intel_extension_for_pytorch")\nipex.optimize(1)\n',
        ),
        (
            "a name the module puts among the builtins (ipex-llm's importer, trimmed)",
            "import builtins\n"
            "def directly_import_ipex():\n"
            "    import intel_extension_for_pytorch as ipex\n"
            "    builtins.ipex = ipex\n"
            "def import_ipex(self):\n"
            "    directly_import_ipex()\n"
            "    self.ipex_version = ipex.__version__\n",
        ),
        (
            "a lazy import into a global of the module",
            "def load():\n"
            "    global ipex\n"
            '    ipex = __import__("intel_extension_for_pytorch")\n'
            "def run(model):\n"
            "    return ipex.optimize(model)\n",
        ),
        (
            "an enclosing function's binding",
            "def outer(load):\n"
            "    ipex = load()\n"
            "    def inner(model):\n"
            "        return ipex.optimize(model)\n"
            "    return inner\n",
        ),
        (
            "prose: a docstring, a comment, a message",
            '"""Call ipex.optimize(model) when IPEX is there."""\n'
            "# ipex.optimize(model)\n"
            'print("ipex.optimize is gone; use torch.compile")\n',
        ),
        (
            "the bare name tested (no use of it)",
            "if ipex:\n    pass\n",
        ),
    ],
)
def test_what_something_binds_or_only_mentions_the_alias_is_quiet(
    why: str, source: str, tmp_path: Path
) -> None:
    assert _alias_hits(tmp_path, {"code.py": source}) == [], why


def test_an_alias_that_an_import_binds_is_the_other_rules(tmp_path: Path) -> None:
    """Bound by its import, ``ipex.optimize`` is ``ipex-optimize``'s, never this rule's."""
    source = "import intel_extension_for_pytorch as ipex\nmodel = ipex.optimize(model)\n"
    write(tmp_path, {"code.py": source})
    assert [rule for _, _, rule, _ in found(scan(tmp_path, SHIPPED))] == [
        "ipex-import",
        "ipex-optimize",
    ]
