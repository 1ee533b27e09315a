"""Python files: names resolved through imports, aliases, attributes and simple assignments;
the longest matching name reported once; strings and comments never match."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

import pytest
from scan_rules import SAMPLE, found, in_code, rule, scan, write

from ipex_doctor.knowledge import code_rules
from ipex_doctor.knowledge.code_rules import CodeRules


def _symbols(source: str, tmp_path: Path, rules: CodeRules = SAMPLE) -> list[tuple[int, str, str]]:
    matches = in_code(textwrap.dedent(source), rules, tmp=tmp_path)
    return [(m.location.line, m.rule_id, m.symbol) for m in matches]


@pytest.mark.parametrize(
    "source",
    [
        "import intel_extension_for_pytorch as ipex\nipex.optimize(m)\n",
        "from intel_extension_for_pytorch import optimize as o\no(m)\n",
        "from intel_extension_for_pytorch import optimize\noptimize(m)\n",
        "import intel_extension_for_pytorch\nintel_extension_for_pytorch.optimize(m)\n",
        "import intel_extension_for_pytorch.cpu\nintel_extension_for_pytorch.optimize(m)\n",
        "import intel_extension_for_pytorch as ipex\nopt = ipex.optimize\nopt(m)\n",
    ],
)
def test_every_alias_form_resolves_to_the_full_name(source: str, tmp_path: Path) -> None:
    """``ipex.optimize``, ``o`` and ``optimize`` all stand for the same API."""
    rules = CodeRules((rule("optimize", symbols=["intel_extension_for_pytorch.optimize"]),))
    assert _symbols(source, tmp_path, rules)[-1:] == [
        (2 if "opt = " not in source else 3, "optimize", "intel_extension_for_pytorch.optimize")
    ]


@pytest.mark.parametrize(
    "source",
    [
        "import torch\ntorch.xpu.amp.autocast()\n",
        "from torch.xpu import amp\namp.autocast()\n",
        "import torch.xpu.amp as A\nA.autocast()\n",
        "from torch import xpu\nxpu.amp.autocast()\n",
        "import torch\nx = torch.xpu\nx.amp.autocast()\n",
        "import torch as T\ny: object = T.xpu.amp\ny.autocast()\n",
    ],
)
def test_torch_xpu_amp_through_any_alias(source: str, tmp_path: Path) -> None:
    """Attribute chains extend what their base stands for, one assignment deep."""
    rules = CodeRules((rule("xpu-amp", symbols=["torch.xpu.amp.autocast"]),))
    assert [(r, s) for _, r, s in _symbols(source, tmp_path, rules)] == [
        ("xpu-amp", "torch.xpu.amp.autocast")
    ]


def test_the_longest_matching_name_is_reported_once(tmp_path: Path) -> None:
    """``torch.xpu.amp.autocast()`` is reported as its whole name (``torch.xpu.amp.*``), not
    also as the ``torch.xpu.amp`` inside it; ``torch.xpu.amp`` alone is that rule's."""
    matches = _symbols("import torch\ntorch.xpu.amp.autocast()\ntorch.xpu.amp\n", tmp_path)
    assert matches == [
        (2, "xpu-amp", "torch.xpu.amp.autocast"),
        (3, "xpu-amp-module", "torch.xpu.amp"),
    ]


def test_an_exact_rule_beats_a_wildcard_on_the_same_name(tmp_path: Path) -> None:
    """``ipex.optimize`` is ``ipex-optimize``, not also ``ipex-api`` (``intel_extension_for_pytorch.*``)."""
    matches = _symbols(
        "import intel_extension_for_pytorch as ipex\nipex.optimize(m)\nipex.llm\n", tmp_path
    )
    assert matches == [
        (1, "ipex-import", "intel_extension_for_pytorch"),
        (2, "ipex-optimize", "intel_extension_for_pytorch.optimize"),
        (3, "ipex-api", "intel_extension_for_pytorch.llm"),
    ]


def test_the_span_is_the_matched_chain(tmp_path: Path) -> None:
    """Columns count characters (not UTF-8 bytes) and cover the matched name."""
    write(tmp_path, {"a.py": "import torch\né = 'ü'; torch.xpu.amp.autocast()\n"})
    (match,) = scan(tmp_path).matches
    at = match.location
    assert (at.path, at.line, at.column, at.end_line, at.end_column) == ("a.py", 2, 9, 0, 31)
    assert match.snippet[at.column : at.end_column] == "torch.xpu.amp.autocast"


def test_strings_comments_and_unbound_names_are_not_matches(tmp_path: Path) -> None:
    """A docstring, a comment, a string and a name no import binds mention IPEX; none resolves
    to a name a ``symbols`` rule matches (IPEX's alias read where nothing binds it is a pattern
    of its own, ``test_unbound_ipex_alias.py``)."""
    source = '''
        """Call ipex.optimize(model) and torch.xpu.amp.autocast() here."""
        # import intel_extension_for_pytorch as ipex
        print("intel_extension_for_pytorch.optimize")
        ipex.optimize(model)
        torch.xpu.amp.autocast()
    '''
    assert _symbols(source, tmp_path) == []


def test_scopes_hide_and_reach_as_python_does(tmp_path: Path) -> None:
    """A parameter hides the module's import; a function's own import is seen inside it; a
    class body's names are not seen by its methods; an import in ``try`` with ``ipex = None``
    in ``except`` still stands for IPEX."""
    source = """
        try:
            import intel_extension_for_pytorch as ipex
        except ImportError:
            ipex = None

        def hidden(ipex):
            ipex.optimize(1)

        def own():
            import torch.xpu.amp as amp
            amp.autocast()

        def outer():
            def inner():
                return ipex.optimize(2)

        class C:
            from torch.xpu import amp
            def method(self):
                amp.autocast()

        ipex.optimize(3)
    """
    assert _symbols(source, tmp_path) == [
        (3, "ipex-import", "intel_extension_for_pytorch"),
        (12, "xpu-amp", "torch.xpu.amp.autocast"),
        (16, "ipex-optimize", "intel_extension_for_pytorch.optimize"),
        (23, "ipex-optimize", "intel_extension_for_pytorch.optimize"),
    ]


def test_global_and_nonlocal_bind_where_python_does(tmp_path: Path) -> None:
    """The lazy-import idiom: ``global ipex`` in a function binds the module's ``ipex``."""
    source = """
        ipex = None

        def load():
            global ipex
            import intel_extension_for_pytorch as ipex

        def outer():
            amp = None
            def inner():
                nonlocal amp
                from torch.xpu import amp
            amp.autocast()

        def use(model):
            return ipex.optimize(model)
    """
    rules = CodeRules(
        (
            rule("xpu-autocast", symbols=["torch.xpu.amp.autocast"]),
            rule("ipex-optimize", symbols=["intel_extension_for_pytorch.optimize"]),
        )
    )
    assert _symbols(source, tmp_path, rules) == [
        (13, "xpu-autocast", "torch.xpu.amp.autocast"),
        (16, "ipex-optimize", "intel_extension_for_pytorch.optimize"),
    ]


def test_a_methods_receiver_reads_what_its_class_assigns_through_it(tmp_path: Path) -> None:
    """``self.ipex = ipex`` in one method: ``self.ipex.optimize`` in any method of that class
    (and in a lambda or function inside one) stands for IPEX's; the assignment is the one
    finding of the hand-off, so ``self.ipex`` set again, tested or returned is none of its own.
    Another class, another receiver's name, a static method's first parameter, an inner
    function's own ``self`` and any other object's attribute stand for nothing."""
    source = """
        import torch

        class Engine:
            def __init__(self):
                try:
                    import intel_extension_for_pytorch as ipex
                    self.ipex = ipex
                except ImportError:
                    self.ipex = None
                self.amp: object = torch.xpu.amp

            def run(self, model):
                if self.ipex:
                    model = self.ipex.optimize(model)
                with self.amp.autocast():
                    return model

            def later(self):
                return lambda m: self.ipex.optimize(m)

            def hides(self):
                def inner(self):
                    return self.ipex.optimize(1)
                return inner

            @staticmethod
            def static(self):
                return self.ipex.optimize(2)

            def handed(self):
                return self.ipex

        class Other:
            def run(self, model):
                return self.ipex.optimize(model)

        class Holder:
            @classmethod
            def load(cls):
                from torch.xpu import amp
                cls.amp = amp

            @classmethod
            def run(klass):
                return klass.amp.autocast()

        def outside(engine):
            return engine.ipex.optimize(3)
    """
    rules = CodeRules(
        (
            rule("xpu-autocast", symbols=["torch.xpu.amp.autocast"]),
            rule("ipex-optimize", symbols=["intel_extension_for_pytorch.optimize"]),
            rule("ipex-module", symbols=["intel_extension_for_pytorch"]),
        )
    )
    assert _symbols(source, tmp_path, rules) == [
        (8, "ipex-module", "intel_extension_for_pytorch"),
        (15, "ipex-optimize", "intel_extension_for_pytorch.optimize"),
        (16, "xpu-autocast", "torch.xpu.amp.autocast"),
        (20, "ipex-optimize", "intel_extension_for_pytorch.optimize"),
        (46, "xpu-autocast", "torch.xpu.amp.autocast"),
    ]


def test_a_call_through_an_objects_attribute_named_as_ipex_is_ipex(tmp_path: Path) -> None:
    """``config.ipex.optimize(model)``, the object set elsewhere (or the project's own module:
    ``hardware.ipex``): the attribute's name (IPEX's usual alias, the unbound-alias pattern's
    ``names``) and the IPEX API called on it are IPEX's, in a file with no IPEX import. Not called, or with nothing of IPEX's after it
    (``args.ipex``, ``cfg.ipex.enabled``), or named only by IPEX's catch-all (a dict's
    ``env.runtime.ipex.get``), or with no alias rule, it is nothing; and never mechanical (the
    object is not the module's)."""
    plain = rule("alias", pattern="unbound-ipex-alias")
    alias_rule = dataclasses.replace(plain, match=dataclasses.replace(plain.match, names=("ipex",)))
    source = """
        from backend import hardware
        def train(model, optimizer, config, args, cfg):
            if hasattr(config, "ipex"):
                model, optimizer = config.ipex.optimize(model, optimizer=optimizer)
            flag = config.ipex
            handed = config.ipex.optimize
            if args.ipex and cfg.ipex.enabled:
                return config.ipex.llm.optimize(model), self.ipex.xpu.synchronize()
            return hardware.ipex.optimize(model), env.runtime.ipex.get("version")
    """
    rules = CodeRules(
        (
            rule("ipex-optimize", symbols=["intel_extension_for_pytorch.optimize"]),
            rule("ipex-llm", symbols=["intel_extension_for_pytorch.llm.optimize"]),
            rule("ipex-xpu", symbols=["intel_extension_for_pytorch.xpu.*"]),
            rule("ipex-any", symbols=["intel_extension_for_pytorch.*"]),
            alias_rule,
        )
    )
    matches = in_code(textwrap.dedent(source), rules, tmp=tmp_path)
    assert [(m.location.line, m.rule_id, m.symbol) for m in matches] == [
        (5, "ipex-optimize", "intel_extension_for_pytorch.optimize"),
        (9, "ipex-llm", "intel_extension_for_pytorch.llm.optimize"),
        (9, "ipex-xpu", "intel_extension_for_pytorch.xpu.synchronize"),
        (10, "ipex-optimize", "intel_extension_for_pytorch.optimize"),
    ]
    shipped = in_code(
        "import torch\nimport intel_extension_for_pytorch as ipex\n"
        "with ipex.xpu.amp.autocast():\n    pass\n"
        "def run(config):\n"
        "    with config.ipex.xpu.amp.autocast():\n        pass\n",
        code_rules.load(),
        tmp=tmp_path,
    )
    autocast = [(m.location.line, m.mechanical) for m in shipped if m.symbol.endswith("autocast")]
    assert autocast == [(3, True), (6, False)]
    without_alias = CodeRules(rules.rules[:4])
    assert in_code(textwrap.dedent(source), without_alias, tmp=tmp_path) == []


def test_what_resolution_does_not_follow(tmp_path: Path) -> None:
    """Two assignments deep, star imports, relative imports, attributes of objects (but for a
    method's receiver, above), getattr with a string (but on a module only a package has,
    below): unresolved, so no match (the documented limits)."""
    source = """
        import torch
        from torch.xpu import *
        from .compat import ipex
        x = torch.xpu
        y = x.amp
        y.autocast()
        amp.autocast()
        ipex.optimize(m)
        getattr(torch, "xpu").amp.autocast()
        self.amp = torch.xpu.amp
        self.amp.autocast()
    """
    rules = CodeRules(
        (
            rule("xpu-autocast", symbols=["torch.xpu.amp.autocast"]),
            rule("ipex-optimize", symbols=["intel_extension_for_pytorch.optimize"]),
        )
    )
    assert _symbols(source, tmp_path, rules) == []


def test_getattr_of_a_literal_name_on_a_package_only_module_is_that_name(tmp_path: Path) -> None:
    """``getattr(ccl, "__version__", "unknown")`` reads ``ccl.__version__``: on a module that
    exists only with its package (IPEX, the oneCCL bindings), reported as the attribute is, at
    the call, never as mechanical. The default guards nothing (the module must be imported to
    be asked); a name that is not a literal, a ``getattr`` of the file's own, and ``torch.xpu``
    (there without IPEX: a probe's question) stay as they were."""
    source = """
        import intel_extension_for_pytorch as ipex
        import oneccl_bindings_for_pytorch as ccl
        import torch
        print(getattr(ipex, "__version__", "unknown"))
        print("ccl:", getattr(ccl, "__version__", "unknown"), ccl.__version__)
        getattr(ipex, "optimize")(model)
        getattr(ipex, attribute)
        getattr(torch.xpu, "set_fp32_math_mode", None)
        def f(getattr):
            return getattr(ccl, "cwd")
    """
    rules = CodeRules(
        (
            rule("probe", symbols=["intel_extension_for_pytorch.__version__"]),
            rule("optimize", symbols=["intel_extension_for_pytorch.optimize"]),
            rule("module", symbols=["intel_extension_for_pytorch"]),
            rule("ccl", symbols=["oneccl_bindings_for_pytorch.*"]),
            rule("xpu-math", symbols=["torch.xpu.set_fp32_math_mode"]),
        )
    )
    matches = in_code(textwrap.dedent(source), rules, tmp=tmp_path)
    assert [(m.location.line, m.rule_id, m.symbol) for m in matches] == [
        (5, "probe", "intel_extension_for_pytorch.__version__"),
        (6, "ccl", "oneccl_bindings_for_pytorch.__version__"),
        (6, "ccl", "oneccl_bindings_for_pytorch.__version__"),
        (7, "optimize", "intel_extension_for_pytorch.optimize"),
        (8, "module", "intel_extension_for_pytorch"),
    ]
    first = matches[0].location
    assert (first.column, first.end_column) == (6, 45)  # the whole getattr(...) call
    assert not any(m.mechanical for m in matches)


def test_the_shipped_rules_read_the_bindings_names(tmp_path: Path) -> None:
    """The sixteenth audit's two misses: the oneCCL bindings' version read in a ``try`` that
    imports them, as an attribute and through ``getattr`` (``oneccl-bindings-api``)."""
    source = """
        try:
            import oneccl_bindings_for_pytorch as ccl
            print("oneccl_bindings_for_pytorch.__version__ : " + ccl.__version__)
            print("ipex ok; ccl:", getattr(ccl, "__version__", "unknown"))
        except ImportError:
            print("oneccl_bindings_for_pytorch not installed")
    """
    matches = in_code(textwrap.dedent(source), code_rules.load(), tmp=tmp_path)
    assert [(m.location.line, m.rule_id) for m in matches] == [
        (3, "oneccl-bindings-import"),
        (4, "oneccl-bindings-api"),
        (5, "oneccl-bindings-api"),
    ]


def test_imports_of_a_module_or_submodule(tmp_path: Path) -> None:
    """``imports`` rules match the module and its submodules, in any import form, once per
    statement (and never a relative import)."""
    source = """
        import intel_extension_for_pytorch
        import os, intel_extension_for_pytorch.xpu as X
        from intel_extension_for_pytorch import optimize, cpu
        from intel_extension_for_pytorch.quantization import prepare
        from oneccl_bindings_for_pytorch import *
        import oneccl_bindings_for_pytorch_extra
        from . import intel_extension_for_pytorch
    """
    assert [(line, r) for line, r, _ in _symbols(source, tmp_path) if r.endswith("import")] == [
        (2, "ipex-import"),
        (3, "ipex-import"),
        (4, "ipex-import"),
        (5, "ipex-import"),
        (6, "ccl-import"),
    ]


def test_a_submodule_rule_is_reported_at_its_alias(tmp_path: Path) -> None:
    """``from torch import xpu`` loads ``torch.xpu``: an ``imports`` rule on it matches there."""
    rules = CodeRules((rule("torch-xpu", imports=["torch.xpu"]),))
    write(tmp_path, {"a.py": "from torch import nn, xpu\nimport torch.xpu.amp\nimport torch\n"})
    matches = scan(tmp_path, rules).matches
    assert [(m.location.line, m.location.column, m.symbol) for m in matches] == [
        (1, 22, "torch.xpu"),
        (2, 7, "torch.xpu.amp"),
    ]


def test_an_op_namespace_chain(tmp_path: Path) -> None:
    """``torch.ops.torch_ipex.qconv2d_pointwise`` is an attribute chain like any other."""
    source = "import torch\ny = torch.ops.torch_ipex.qconv2d_pointwise.default(x)\n"
    assert _symbols(source, tmp_path) == [(2, "qconv", "torch.ops.torch_ipex.qconv2d_pointwise")]


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        (
            'print "intel_extension_for_pytorch"\n',
            "does not parse as Python 3: Missing parentheses",
        ),
        ("import intel_extension_for_pytorch\n\ndef f(:\n", "invalid syntax at line 3"),
    ],
)
def test_python_2_and_syntax_errors_are_skipped_with_the_reason(
    source: str, reason: str, tmp_path: Path
) -> None:
    """A file that ``ast`` cannot parse is a ``SkippedFile`` saying why and where."""
    write(tmp_path, {"old.py": source})
    result = scan(tmp_path)
    assert result.matches == ()
    assert [s.path for s in result.skipped] == ["old.py"]
    assert reason in result.skipped[0].reason


def test_a_coding_cookie_decides_the_encoding(tmp_path: Path) -> None:
    """PEP 263: a Latin-1 file decodes as Latin-1; a file not in its encoding is skipped."""
    latin = "# -*- coding: latin-1 -*-\n# caf\xe9\nimport intel_extension_for_pytorch\n"
    write(
        tmp_path, {"latin.py": latin.encode("latin-1"), "bad.py": b"import torch.xpu.amp\n\xff\n"}
    )
    result = scan(tmp_path)
    assert found(result) == [("latin.py", 3, "ipex-import", "intel_extension_for_pytorch")]
    assert [(s.path, s.reason) for s in result.skipped] == [
        ("bad.py", "cannot be decoded: not valid utf-8 text (byte 0xff at offset 21)")
    ]


def test_setup_py_is_read_as_python_and_as_text(tmp_path: Path) -> None:
    """``setup.py``: Python rules on its code, text rules on its string arguments and list
    items (the import is not a requirement line)."""
    write(
        tmp_path,
        {
            "setup.py": (
                "import intel_extension_for_pytorch\n"
                "setup(install_requires=['intel-extension-for-pytorch==2.8'])\n"
            )
        },
    )
    assert found(scan(tmp_path)) == [
        ("setup.py", 1, "ipex-import", "intel_extension_for_pytorch"),
        ("setup.py", 2, "pip-ipex", "intel-extension-for-pytorch"),
    ]


def test_text_rules_in_python_read_string_literals_that_can_run(tmp_path: Path) -> None:
    """A docstring, a message (printed, logged, raised, a parser's help), a comment, a value
    a comparison tests and an option a parser defines run nothing; a command list, a call
    argument, and a string kept in a variable (a command joined later) may."""
    write(
        tmp_path,
        {
            "setup.py": (
                '"""Runs pip install intel-extension-for-pytorch for you."""\n'
                'NOTE = "pip install intel-extension-for-pytorch"\n'
                "# pip install intel-extension-for-pytorch\n"
                'run(["pip", "install", "intel-extension-for-pytorch"])\n'
                'cmd = ("pip", "install", "intel-extension-for-pytorch")\n'
                'print("pip install intel-extension-for-pytorch")\n'
                'log.warning(f"run: pip install intel-extension-for-pytorch=={v}")\n'
                'raise ImportError("pip install intel-extension-for-pytorch")\n'
                'parser.add_argument("--x", help="pip install intel-extension-for-pytorch")\n'
                'if name == "intel-extension-for-pytorch":\n'
                "    pass\n"
                'run(f"pip install intel-extension-for-pytorch=={v}", shell=True)\n'
            )
        },
    )
    assert found(scan(tmp_path)) == [
        ("setup.py", 2, "pip-ipex", "intel-extension-for-pytorch"),
        ("setup.py", 4, "pip-ipex", "intel-extension-for-pytorch"),
        ("setup.py", 5, "pip-ipex", "intel-extension-for-pytorch"),
        ("setup.py", 12, "pip-ipex", "intel-extension-for-pytorch"),
    ]
