"""Python strings as commands and requirements: the literals an installer builds pip command
lines from are read by the same requirement and index rules as text files; the strings that
run nothing (docstrings, messages, a parser's own options, a tested value, a probe's package
name) are not. The snippets are the shapes real installers use (krita-ai-diffusion's server
installer, accelerate's launch environment, llm-on-ray's accelerate settings)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from scan_rules import found, scan, write

from ipex_doctor.knowledge import code_rules
from ipex_doctor.scan.match.python.names import NameTable
from ipex_doctor.scan.match.python.strings import fragments, quiet_strings
from ipex_doctor.scan.read.source import split_lines

SHIPPED = code_rules.load()


def _read(tmp_path: Path, source: str) -> list[tuple[int, str, str]]:
    write(tmp_path, {"installer.py": source})
    return [(line, rule, symbol) for _, line, rule, symbol in found(scan(tmp_path, SHIPPED))]


def test_an_installer_that_builds_the_pip_command_in_python_is_read(tmp_path: Path) -> None:
    """The wheel index kept in a variable and the pinned XPU build in the argument list are
    both found; the variable joined into the list is not a second finding."""
    source = (
        "def install(pip):\n"
        '    idx_url = "https://pytorch-extension.intel.com/release-whl/stable/xpu/us/"\n'
        '    cmd = ["intel-extension-for-pytorch==2.6.10+xpu", "--extra-index-url", idx_url]\n'
        "    pip(*cmd)\n"
    )
    assert _read(tmp_path, source) == [
        (2, "ipex-wheel-index", "pytorch-extension.intel.com"),
        (3, "ipex-install-string", "intel-extension-for-pytorch"),
    ]


@pytest.mark.parametrize(
    "source",
    [
        'subprocess.run(["pip", "install", "intel-extension-for-pytorch"])\n',
        'os.system(f"{sys.executable} -m pip install intel-extension-for-pytorch=={version}")\n',
        'cmd = os.environ.get("IPEX_INSTALL", "pip install intel_extension_for_pytorch")\n',
        'req = "intel-extension-for-pytorch" + "==2.8.10+xpu"\n',
        'setup(extras_require={"ipex": ["intel_extension_for_pytorch>=2.7.0"]})\n',
        'url = "https://download.example/intel_extension_for_pytorch-2.1.10+xpu-cp310-cp310-linux_x86_64.whl"\n',
    ],
    ids=["subprocess-list", "f-string", "environment-default", "concatenation", "extras", "wheel"],
)
def test_install_strings_are_found(tmp_path: Path, source: str) -> None:
    assert [rule for _, rule, _ in _read(tmp_path, source)] == ["ipex-install-string"]


@pytest.mark.parametrize(
    "source",
    [
        '"""Install with: pip install intel-extension-for-pytorch."""\n',
        'print("pip install intel-extension-for-pytorch")\n',
        'logger.warning(f"IPEX missing: pip install intel-extension-for-pytorch=={v}")\n',
        'raise ImportError("pip install intel-extension-for-pytorch")\n',
        'warnings.warn("intel-extension-for-pytorch is deprecated", FutureWarning)\n',
        'assert ok, "pip install intel-extension-for-pytorch"\n',
        'parser.add_argument("--ipex", help="pip install intel-extension-for-pytorch first")\n',
        'if name == "intel-extension-for-pytorch":\n    pass\n',
        'spec = importlib.util.find_spec("intel_extension_for_pytorch")\n',
        'IMAGE = "intel/intel-extension-for-pytorch:2.3.110-xpu"\n',
        'URL = "https://github.com/intel/intel-extension-for-pytorch/blob/main/README.md"\n',
        'subprocess.run(["pip", "uninstall", "-y", "intel-extension-for-pytorch"])\n',
        "# pip install intel-extension-for-pytorch\n",
    ],
    ids=[
        "docstring", "print", "log", "raise", "warn", "assert", "help", "compared", "probe",
        "docker-image", "repository-url", "uninstall", "comment",
    ],
)  # fmt: skip
def test_strings_that_install_nothing_are_not_requirements(tmp_path: Path, source: str) -> None:
    """A message, a docstring, a tested value, a probe's package name, an image or repository
    path and an uninstall run nothing that installs IPEX (the probe is the probe rule's)."""
    assert [r for _, r, _ in _read(tmp_path, source) if r == "ipex-install-string"] == []


def test_a_command_list_written_over_lines_is_judged_whole(tmp_path: Path) -> None:
    """A project's own runner given a pip command's words over several lines (time-serie-
    explo's deploy.py): the package alone on its line is an install because the list says
    ``pip install`` on another line; the same words of an uninstall install nothing."""
    source = (
        "run_command([\n"
        '    sys.executable, "-m", "uv", "pip", "install",\n'
        '    "torch", "torchaudio", "torchvision", "intel-extension-for-pytorch"\n'
        "])\n"
        "subprocess.run([\n"
        '    "pip", "uninstall", "-y",\n'
        '    "intel-extension-for-pytorch",\n'
        "])\n"
        "OPTIONAL = [\n"
        '    "deepspeed",\n'
        '    "intel-extension-for-pytorch",\n'
        "]\n"
    )
    assert _read(tmp_path, source) == [(3, "ipex-install-string", "intel-extension-for-pytorch")]


def test_setup_py_strings_are_read_as_any_module_s(tmp_path: Path) -> None:
    """AMI-PREDICT's setup.py writes a check script that imports IPEX and runs it: setup.py is
    Python, so the rules of Python strings read it (its install strings are the requirement
    rule's there, as in every file pip reads)."""
    source = (
        'CHECK = """\n'
        "import torch\n"
        "import intel_extension_for_pytorch as ipex\n"
        '"""\n'
        'subprocess.run(["python", "-c", CHECK])\n'
        'subprocess.run(["pip", "install", "intel-extension-for-pytorch"])\n'
        "TrainingArguments(out, use_ipex=True)\n"
    )
    write(tmp_path, {"setup.py": source})
    assert [(line, rule) for _, line, rule, _ in found(scan(tmp_path, SHIPPED))] == [
        (3, "ipex-python-command"),
        (6, "ipex-requirement"),
        (7, "use-ipex-flag"),
    ]


def test_literal_settings_are_read_as_written(tmp_path: Path) -> None:
    """A keyword argument and a dict item with literals read as ``name=value`` and
    ``"key": value`` (transformers' use_ipex, accelerate's environment switch)."""
    source = (
        "args = TrainingArguments(out, use_ipex=True)\n"
        'env = {"ACCELERATE_USE_IPEX": "true", "OMP_NUM_THREADS": "4"}\n'
        'os.environ["ACCELERATE_USE_IPEX"] = "false"\n'
        "args = TrainingArguments(out, use_ipex=False)\n"
    )
    assert _read(tmp_path, source) == [
        (1, "use-ipex-flag", "use_ipex=True"),
        (2, "accelerate-ipex-env", "ACCELERATE_USE_IPEX"),
        (3, "accelerate-ipex-env", "ACCELERATE_USE_IPEX"),
    ]


def test_a_projects_own_ipex_flag_is_not_transformers_argument(tmp_path: Path) -> None:
    """kohya_ss defines --use-ipex for its own GUI; defining it, testing for it and a
    variable named like it are the project's, not transformers' use_ipex."""
    source = (
        'parser.add_argument("--use-ipex", action="store_true", help="Use IPEX environment")\n'
        'if "--use-ipex" in sys.argv:\n'
        "    USE_IPEX = True\n"
        'subprocess.run(["python", "train.py", "--use_ipex"])\n'
    )
    assert _read(tmp_path, source) == [(4, "use-ipex-flag", "--use_ipex")]


def test_fragments_keep_their_columns_and_skip_what_is_quiet() -> None:
    """Each fragment is the literal's own text at its column (characters, not bytes); a
    multi-line string gives one fragment per line."""
    source = (
        'é = "pip install intel-extension-for-pytorch"\n'
        'print("not this")\n'
        'script = """\nsource setvars.sh\n"""\n'
        "f(flag=True)\n"
    )
    lines = split_lines(source)
    table = NameTable()
    facts = table.read(ast.parse(source))
    pieces = [(f.line, f.column, f.text) for f in fragments(facts, lines)]
    assert pieces == [
        (1, 4, '"pip install intel-extension-for-pytorch"'),
        (3, 9, '"""'),
        (4, 0, "source setvars.sh"),
        (5, 0, '"""'),
        (6, 2, "flag=True"),
    ]
    printed = next(s for s in facts.strings if getattr(s, "value", "") == "not this")
    assert id(printed) in quiet_strings(facts)
