"""The handshake (``probe.interpreter``): what a real interpreter answers is what it sees, read
back exactly, however odd its paths; and the script stays light (no ``json``, no ``platform``),
as it runs first on the examination's chain of children."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from ipex_doctor.probe import interpreter

# NOTE: the interpreter's own view, with the modules the handshake does without: the reference
# its hand-written answer is held to.
_OWN_VIEW = (
    "import json, platform, sys\n"
    "print(json.dumps({'executable': sys.executable, 'version': list(sys.version_info[:3]),\n"
    "    'version_text': sys.version.split()[0],\n"
    "    'implementation': platform.python_implementation(), 'prefix': sys.prefix,\n"
    "    'base_prefix': sys.base_prefix, 'path': [p for p in sys.path if p]}))\n"
)

_ODD_NAMES = (
    'a "quoted" dir',
    "back\\slash",
    "tab\there, new\nline, bell\x07, unit\x1fseparator, delete\x7f",
    "caf\u00e9 \u4e2d\u6587",
    "astral \U0001f600 \U00010348",
    "undecodable \udcff\udcfe",
)


def test_the_handshake_answers_what_the_interpreter_sees(tmp_path: Path) -> None:
    """A real interpreter with odd directories on its path (quotes, a backslash, control
    characters, non-ASCII, characters beyond the BMP, bytes that are not UTF-8): the handshake's
    answer, read back, is every fact the interpreter's own ``json`` and ``platform`` give."""
    odd = [str(tmp_path / name) for name in _ODD_NAMES]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(odd)}
    own = subprocess.run(
        [sys.executable, "-c", _OWN_VIEW], env=env, capture_output=True, text=True,
        errors="surrogateescape", check=True, timeout=60,
    )  # fmt: skip
    seen = json.loads(own.stdout)
    assert [p for p in seen["path"] if p in odd] == odd  # NOTE: the path holds them, in order
    target = interpreter.inspect(sys.executable, env=env)
    facts = target.interpreter
    assert list(target.sys_path) == seen["path"]
    assert (facts.executable, facts.version, facts.implementation, facts.prefix) == (
        seen["executable"], seen["version_text"], seen["implementation"], seen["prefix"],
    )  # fmt: skip
    assert list(target.version_info) == seen["version"]
    assert facts.virtualenv is (seen["prefix"] != seen["base_prefix"])


def test_the_handshake_imports_neither_json_nor_platform() -> None:
    """The handshake script itself imports nothing beyond ``sys`` where the interpreter is
    CPython (``json`` and ``platform`` were half of its CPU in a torch environment); what the
    interpreter's start imported is not the script's."""
    runner = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "script, sys.argv = sys.argv[1], ['-c', 'nonce']\n"
        "exec(compile(script, '<handshake>', 'exec'), {'__name__': '__main__'})\n"
        "sys.stderr.write(' '.join(sorted(set(sys.modules) - before)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", runner, interpreter._HANDSHAKE],
        capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    assert done.stdout.startswith('IPEX-DOCTOR-HANDSHAKE {"nonce": "nonce", ')
    assert done.stderr.split() == []
