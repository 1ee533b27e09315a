"""Build the real environments the tests examine through ``--python``.

    python tests/testenvs.py [NAME ...]      build (or reuse) and print NAME=PYTHON lines

Each environment is a venv under ``$IPEX_DOCTOR_TEST_ENVS`` (default
``~/.cache/ipex-doctor/test-envs``), named after its recipe's hash so a changed recipe builds a
new one. A ``.complete`` marker is written last: a build interrupted half-way is removed and
redone, never reused.

The recipes are the environments named in DEVELOPERS.md:
- ``bare``: a venv with no torch;
- ``reference``: torch 2.8.0, torchvision 0.23.0, IPEX 2.8.0 from PyPI (about 95 s, 6.8 GB);
- ``torch213-ipex28``: torch 2.13.0+cpu (the machine's local wheel) with IPEX 2.8.0, a real
  major.minor mismatch;
- ``torch213-tv028``: torch 2.13.0+cpu with PyPI torchvision 0.28.0, a CUDA build that cannot
  load next to a CPU torch.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

# Each step is one `pip install` argument list, run in order.
RECIPES: dict[str, list[list[str]]] = {
    "bare": [],
    "reference": [["torch==2.8.0", "torchvision==0.23.0", "intel-extension-for-pytorch==2.8.0"]],
    # NOTE: --no-deps keeps pip from "fixing" the mismatch by installing torch 2.8.0.
    "torch213-ipex28": [
        ["torch==2.13.0"],
        ["--no-deps", "intel-extension-for-pytorch==2.8.0"],
        ["psutil", "numpy", "packaging"],
    ],
    "torch213-tv028": [
        ["torch==2.13.0"],
        ["--no-deps", "torchvision==0.28.0"],
        ["numpy", "pillow"],
    ],
}


def root() -> Path:
    """Where the environments live."""
    default = Path.home() / ".cache" / "ipex-doctor" / "test-envs"
    return Path(os.environ.get("IPEX_DOCTOR_TEST_ENVS", default))


def env_dir(name: str) -> Path:
    """The directory of environment ``name`` for its current recipe."""
    recipe = json.dumps([sys.version_info[:2], RECIPES[name]])
    digest = hashlib.sha256(recipe.encode()).hexdigest()[:10]
    return root() / f"{name}-{digest}"


def python_of(name: str) -> Path:
    """The interpreter of environment ``name`` (it may not be built yet)."""
    return env_dir(name) / "bin" / "python"


def is_built(name: str) -> bool:
    """Whether environment ``name`` was built completely."""
    return (env_dir(name) / ".complete").exists()


def build(name: str) -> Path:
    """Build environment ``name`` unless it is complete already; return its interpreter."""
    target = env_dir(name)
    if is_built(name):
        return python_of(name)
    if target.exists():
        shutil.rmtree(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    print(f"[testenvs] building {name} in {target}", file=sys.stderr, flush=True)
    venv.EnvBuilder(with_pip=True, symlinks=True).create(target)
    for step in RECIPES[name]:
        subprocess.run(
            [str(python_of(name)), "-m", "pip", "install", "-qq", *step],
            check=True,
        )
    (target / ".complete").write_text(json.dumps(RECIPES[name]) + "\n")
    return python_of(name)


def main(argv: list[str]) -> int:
    """Build the named environments (all when none is named) and print where they are."""
    names = argv or list(RECIPES)
    unknown = [n for n in names if n not in RECIPES]
    if unknown:
        print(f"unknown environment(s): {', '.join(unknown)}; known: {', '.join(RECIPES)}")
        return 2
    for name in names:
        print(f"{name}={build(name)}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
