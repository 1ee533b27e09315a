"""``scan --fix`` on a copy of a real corpus: every rewritten file still parses, a second
``--fix`` changes nothing, and what was rewritten, by fix.

    python benchmarks/fix_corpus.py DIR [--python PATH]

DIR is copied to a temporary directory first (the corpus is read where it lies, never
changed). A file counts as rewritten when its bytes differ after the first ``--fix``.
"""

from __future__ import annotations

import argparse
import ast
import collections
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def _digests(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in root.rglob("*")
        if p.is_file()
    }


def _scan(root: Path, python: str | None, *extra: str) -> dict[str, object]:
    command = [sys.executable, "-m", "ipex_doctor", "scan", str(root), "--json", "-", "-q", *extra]
    if python:
        command += ["--python", python]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    report: dict[str, object] = json.loads(done.stdout)
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--python", default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "corpus"
        shutil.copytree(args.corpus, root, symlinks=True)
        before_report = _scan(root, args.python)
        fixable = collections.Counter(
            f["evidence"]["data"]["fix"]  # type: ignore[index]
            for f in before_report["findings"]  # type: ignore[attr-defined]
            if f["evidence"]["data"].get("fix")  # type: ignore[index]
        )
        before = _digests(root)
        after_report = _scan(root, args.python, "--fix")
        after = _digests(root)
        changed = sorted(path for path in after if before.get(path) != after[path])
        broken = []
        for path in changed:
            if path.endswith(".py"):
                try:
                    ast.parse((root / path).read_bytes())
                except SyntaxError as error:
                    broken.append(f"{path}: {error}")
        _scan(root, args.python, "--fix")
        again = _digests(root)
        moved = sorted(path for path in again if after.get(path) != again[path])
        left = collections.Counter(
            f["evidence"]["data"]["fix"]  # type: ignore[index]
            for f in after_report["findings"]  # type: ignore[attr-defined]
            if f["evidence"]["data"].get("fix")  # type: ignore[index]
        )
    print(f"corpus {args.corpus}: {len(changed)} files rewritten by the first --fix")
    for fix, count in fixable.most_common():
        print(f"  fix {fix:24s} {count:4d} findings before, {left.get(fix, 0):4d} after")
    print(f"rewritten .py files that no longer parse: {len(broken)}")
    for line in broken:
        print(f"  {line}")
    print(f"files a second --fix changed: {len(moved)} {moved[:5]}")
    return 1 if broken or moved else 0


if __name__ == "__main__":
    sys.exit(main())
