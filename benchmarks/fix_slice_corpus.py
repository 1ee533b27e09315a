"""``fix_source``'s slice against LibCST on the whole module, over every Python file of a corpus.

    python benchmarks/fix_slice_corpus.py DIR [--fixes ID,ID]

For each ``*.py`` under DIR (read where it lies, never changed): the outcome of every fix (or
of ``--fixes``) on the slice (``fix_sliced``) and on the whole module (``fix_whole_module``),
compared field by field: the text, each rewrite and each refusal with its line. A file the
slice cannot cut (nothing to leave out, or no confident split) is counted apart: ``fix_source``
fixes the whole module there. Prints the counts, the time each way, and every file whose
outcomes differ; exits 1 when one does.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ipex_doctor.scan.fix.rewrite import FIX_IDS, fix_sliced, fix_whole_module  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--fixes", default=",".join(sorted(FIX_IDS)))
    args = parser.parse_args()
    ids = set(args.fixes.split(","))
    paths = sorted(args.corpus.rglob("*.py"))
    cut = whole_only = changed = 0
    differ: list[str] = []
    sliced_s = whole_s = 0.0
    for path in paths:
        try:
            source = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        started = time.perf_counter()
        sliced = fix_sliced(source, ids)
        sliced_s += time.perf_counter() - started
        started = time.perf_counter()
        whole = fix_whole_module(source, ids)
        whole_s += time.perf_counter() - started
        changed += whole.changed
        if sliced is None:
            whole_only += 1
        else:
            cut += 1
            if sliced != whole:
                differ.append(path.relative_to(args.corpus).as_posix())
    print(f"{len(paths)} Python files under {args.corpus}")
    print(
        f"  cut and fixed on the slice: {cut} (identical to the whole module: {cut - len(differ)})"
    )
    print(f"  not cut (the whole module is the slice): {whole_only}")
    print(f"  changed by the fixes: {changed}")
    print(f"  time: slice {sliced_s:.1f} s, whole module {whole_s:.1f} s")
    for name in differ:
        print(f"  DIFFERENT: {name}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
