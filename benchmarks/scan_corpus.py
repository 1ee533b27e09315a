"""How much of a real corpus's IPEX use ``scan`` finds: per-rule counts, and every place that
touches IPEX which no finding covers.

    python benchmarks/scan_corpus.py DIR [--python PATH]

The reference is computed independently of the scanner, by a deliberately simple reading: in
each Python file, the names an ``import intel_extension_for_pytorch ...`` binds, and every use
of them (an attribute chain rooted at the alias, or a from-imported name), plus every import of
the package itself. A place is covered when ``scan`` reports any finding on that file and
line. The misses are printed by resolved name, with one example each: what a rule is missing,
or what the reference over-counts (read them). Corpora are read where they lie; nothing is
copied.
"""

from __future__ import annotations

import argparse
import ast
import collections
import json
import subprocess
import sys
from pathlib import Path

PACKAGE = "intel_extension_for_pytorch"


def _dotted(node: ast.AST) -> list[str] | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return [node.id, *reversed(parts)]
    return None


def reference_uses(path: Path) -> list[tuple[int, str]]:
    """(line, resolved name) of every use of IPEX in one Python file (empty if it does not
    parse)."""
    try:
        tree = ast.parse(path.read_bytes())
    except (SyntaxError, ValueError):
        return []
    aliases: dict[str, str] = {}
    uses: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == PACKAGE or alias.name.startswith(PACKAGE + "."):
                    uses.append((node.lineno, alias.name))
                    aliases[alias.asname or alias.name.split(".")[0]] = (
                        alias.name if alias.asname else alias.name.split(".")[0]
                    )
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == PACKAGE or node.module.startswith(PACKAGE + "."):
                uses.append((node.lineno, node.module))
                for alias in node.names:
                    aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    innermost: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            innermost.add(id(node.value))
    for node in ast.walk(tree):
        if id(node) in innermost or not isinstance(node, (ast.Attribute, ast.Name)):
            continue
        chain = _dotted(node)
        if chain and chain[0] in aliases:
            uses.append((node.lineno, ".".join([aliases[chain[0]], *chain[1:]])))
    return uses


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--python", default=None, help="the interpreter to judge against")
    args = parser.parse_args()
    command = [sys.executable, "-m", "ipex_doctor", "scan", str(args.corpus), "--json", "-", "-q"]
    if args.python:
        command += ["--python", args.python]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    report = json.loads(done.stdout)
    findings = report["findings"]
    covered = {(f["location"]["path"], f["location"]["line"]) for f in findings}
    per_rule = collections.Counter(f["id"] for f in findings)
    scan = report["scan"]
    print(f"corpus {args.corpus}: {scan['files_seen']} files seen, {scan['files_parsed']} parsed, "
          f"{len(scan['skipped'])} skipped, {len(findings)} findings, exit {done.returncode}")  # fmt: skip
    for rule, count in per_rule.most_common():
        print(f"  {count:5d}  {rule}")
    total = 0
    missed: dict[str, list[str]] = collections.defaultdict(list)
    for path in sorted(args.corpus.rglob("*.py")):
        relative = path.relative_to(args.corpus).as_posix()
        for line, name in reference_uses(path):
            total += 1
            if (relative, line) not in covered:
                missed[name].append(f"{relative}:{line}")
    misses = sum(len(v) for v in missed.values())
    share = 100 * (total - misses) / total if total else 100.0
    print(
        f"reference: {total} places use IPEX in .py files; covered {total - misses} ({share:.1f} %)"
    )
    for name, places in sorted(missed.items(), key=lambda kv: -len(kv[1])):
        print(f"  missed {len(places):4d}  {name}  e.g. {places[0]}")
    for skipped in scan["skipped"][:20]:
        print(f"  skipped {skipped['path']}: {skipped['reason']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
