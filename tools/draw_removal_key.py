"""Draft the answer key of one IPEX removal, for tests/assets/scan_removals.yaml.

    python tools/draw_removal_key.py --git-dir DIR --before SHA --after SHA

Prints, for the lines ``git diff before after`` deletes that name IPEX or use a name bound from
an IPEX import, a draft key line ``path:line:kind: text`` each, and, prefixed ``# left out``,
the removed lines that name IPEX but the draft leaves out (comments, docstrings, messages, a
project's own names), so that a reader can check both lists by hand. This is the first step of
the key procedure the corpus's header describes; its output is a draft, read and corrected line
by line before it goes into the corpus, and before any scan of the tree is run.

For Python the kind comes from the syntax tree of the file before (imports, calls and other
uses of the names they bind, probes, conditions, strings); for other files from the path.
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import subprocess
import sys

GIT_ENV = {**os.environ, "GIT_NO_LAZY_FETCH": "1", "GIT_TERMINAL_PROMPT": "0"}
IPEX_TEXT = re.compile(
    r"intel[_-]extension[_-]for[_-](pytorch|deepspeed)|oneccl[_-]bind|torch[_-]ccl|ipex"
    r"|pytorch-extension\.intel\.com|setvars\.sh",
    re.IGNORECASE,
)
IPEX_MODULES = re.compile(
    r"^(intel_extension_for_pytorch|intel_extension_for_deepspeed|oneccl_bindings_for_pytorch"
    r"|torch_ccl|optimum\.intel\.ipex)(\.|$)"
)
INSTALL_TEXT = re.compile(
    r"pip|install|whl|index-url|extra-index|release-whl|==|>=|\+xpu|\+cpu", re.IGNORECASE
)
PROBE_TEXT = re.compile(
    r"find_spec|is_\w*ipex\w*_available|is_\w*ccl\w*_available|hasattr\(|__version__|_has_xpu"
    r"|_has_cpu|importlib\.metadata|version\(",
)
MESSAGE_CALLS = {"print", "warn", "warning", "info", "debug", "error", "exception", "log"}


def git(git_dir: str, *args: str) -> str:
    done = subprocess.run(
        ["git", "--git-dir", git_dir, *args], capture_output=True, env=GIT_ENV, check=False
    )
    return done.stdout.decode("utf-8", "replace")


def removed(git_dir: str, before: str, after: str) -> dict[str, list[int]]:
    """Each path of the before tree -> the line numbers the removal deletes there."""
    out: dict[str, list[int]] = {}
    path = None
    diff = git(git_dir, "diff", "-U0", "--no-color", "--no-renames", before, after)
    for line in diff.splitlines():
        if line.startswith("--- "):
            path = None if line == "--- /dev/null" else line[6:]
        elif line.startswith("@@ ") and path is not None:
            old = line.split()[1][1:]
            start, _, count = old.partition(",")
            n = int(count) if count else 1
            out.setdefault(path, []).extend(range(int(start), int(start) + n))
    return out


def path_kind(path: str) -> str:
    name = path.rsplit("/", 1)[-1].lower()
    if path.startswith((".github/", ".gitlab", ".azure", ".circleci", ".buildkite")) or name in {
        ".gitlab-ci.yml", "azure-pipelines.yml", "tox.ini", "noxfile.py", "makefile", "justfile",
    }:  # fmt: skip
        return "ci"
    if name.endswith(".ipynb"):
        return "notebook"
    if name.endswith((".md", ".rst", ".txt")) and "requirement" not in name:
        return "doc" if not name.endswith(".txt") else "requirement"
    if (
        "requirement" in name
        or name in {"setup.py", "setup.cfg", "pyproject.toml"}
        or (name.startswith("environment") and name.endswith((".yml", ".yaml")))
    ):
        return "requirement"
    if (
        name.endswith((".sh", ".bash", ".ps1", ".psm1", ".bat", ".cmd"))
        or name.startswith("dockerfile")
        or name.endswith(".dockerfile")
    ):
        return "shell"
    return "config"


class PythonFile:
    """What each line of one Python file is, from its syntax tree."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        self.tree = ast.parse(text)
        self.bound: set[str] = set()
        self.imports: dict[int, int] = {}
        self.strings: set[int] = set()
        self.docstrings: set[int] = set()
        self.messages: set[int] = set()
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = (
                    [a.name for a in node.names]
                    if isinstance(node, ast.Import)
                    else [node.module or ""]
                )
                if any(IPEX_MODULES.match(n) for n in names):
                    self.imports[node.lineno] = node.lineno
                    for alias in node.names:
                        self.bound.add((alias.asname or alias.name).split(".")[0])
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                if isinstance(node.value.value, str):
                    self.docstrings.update(range(node.lineno, (node.end_lineno or 0) + 1))
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if INSTALL_TEXT.search(node.value) and IPEX_TEXT.search(node.value):
                    self.strings.update(range(node.lineno, (node.end_lineno or 0) + 1))
            if isinstance(node, ast.Raise) or (
                isinstance(node, ast.Call)
                and (
                    (isinstance(node.func, ast.Name) and node.func.id in MESSAGE_CALLS)
                    or (isinstance(node.func, ast.Attribute) and node.func.attr in MESSAGE_CALLS)
                )
            ):
                self.messages.update(range(node.lineno, (node.end_lineno or 0) + 1))

    def uses(self, number: int) -> tuple[bool, bool]:
        """(a call of an IPEX name starts on the line, the line uses an IPEX name)."""
        called = used = False
        for node in ast.walk(self.tree):
            if getattr(node, "lineno", None) != number:
                continue
            root = node
            while isinstance(root, ast.Attribute | ast.Call):
                root = root.value if isinstance(root, ast.Attribute) else root.func
            if isinstance(root, ast.Name) and root.id in self.bound:
                used = True
                if isinstance(node, ast.Call):
                    called = True
        text = self.lines[number - 1]
        if re.search(r"torch\.ops\.(torch_ipex|ipex_prepack)", text):
            called = used = True
        return called, used

    def kind(self, number: int) -> str | None:
        text = self.lines[number - 1].strip()
        if not text or text.startswith("#") or number in self.docstrings:
            return None
        if number in self.imports:
            return "import"
        if number in self.strings:
            return "string"
        if number in self.messages:
            return None
        called, used = self.uses(number)
        if PROBE_TEXT.search(text) and (used or IPEX_TEXT.search(text)):
            return "probe"
        if called:
            return "call"
        if used:
            return "reference"
        if IPEX_TEXT.search(text) and re.match(r"(el)?if |while |assert ", text):
            return "guard"
        return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--git-dir", required=True)
    parser.add_argument("--before", required=True)
    parser.add_argument("--after", required=True)
    args = parser.parse_args()
    for path, numbers in sorted(removed(args.git_dir, args.before, args.after).items()):
        text = git(args.git_dir, "show", f"{args.before}:{path}")
        lines = text.splitlines()
        python = None
        if path.endswith(".py"):
            try:
                python = PythonFile(text)
            except SyntaxError:
                python = None
        for number in numbers:
            if number > len(lines):
                continue
            line = lines[number - 1].strip()
            kind = python.kind(number) if python is not None else None
            if python is None and IPEX_TEXT.search(line) and not line.startswith(("#", "//")):
                kind = path_kind(path)
            if kind is not None:
                print(f"{path}:{number}:{kind}: {line}")
            elif IPEX_TEXT.search(line):
                print(f"# left out {path}:{number}: {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
