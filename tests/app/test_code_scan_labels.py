"""Every label says what ``scan --fix`` does to its finding's line (issue 31): a project is
scanned (``scan --json``), a copy of it fixed (``scan --fix``), both by the real commands, and
each finding of a rule with a fix is held to the lines the fix changed. "mechanical" and "scan
--fix changes this line for ..." must be lines it changed; a finding that says neither must be
a line it left as it was.

Each project holds one cause of a label that disagreed with the rewrite in the development
corpus (``benchmarks/scan_removals.py --check-fix``): an IPEX import removed once the other
fixes rewrote what kept it, an import from IPEX removed with the uses another fix rewrote,
an import bound by ``global`` that other functions use (the fix removed it), and a line
another finding's fix rewrites."""

from __future__ import annotations

import difflib
import json
import shutil
from pathlib import Path

from conftest import run_doctor

MECHANICAL = "(mechanical: ipex-doctor scan --fix)"
OTHER_FIX = "ipex-doctor scan --fix changes this line for"


def _labels_and_changes(tmp_path: Path, source: str) -> tuple[list[tuple[int, str, str]], set[int]]:
    """The findings of rules with a fix in ``source`` (line, rule, remediation), and the
    lines of ``source`` that ``scan --fix`` changed or removed."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "train.py").write_text(source, encoding="utf-8")
    env = {"XDG_STATE_HOME": str(tmp_path / "state"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    scanned = run_doctor(
        "scan", str(project), "--json", "-", "-q", "--fail-on", "never", extra_env=env
    )  # fmt: skip
    assert scanned.returncode == 0 and "Traceback" not in scanned.stderr, scanned.stderr
    findings = [
        (f["location"]["line"], f["id"], f["remediation"])
        for f in json.loads(scanned.stdout)["findings"]
        if f.get("location") and f["evidence"]["data"].get("fix")
    ]
    fixed = tmp_path / "fixed"
    shutil.copytree(project, fixed)
    done = run_doctor("scan", str(fixed), "--fix", "-q", "--fail-on", "never", extra_env=env)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    after = (fixed / "train.py").read_text(encoding="utf-8").splitlines()
    changed: set[int] = set()
    matcher = difflib.SequenceMatcher(a=source.splitlines(), b=after, autojunk=False)
    for op, first, last, _, _ in matcher.get_opcodes():
        if op in ("replace", "delete"):
            changed.update(range(first + 1, last + 1))
    return findings, changed


def _agree(findings: list[tuple[int, str, str]], changed: set[int]) -> None:
    for line, rule, remediation in findings:
        said = MECHANICAL in remediation or OTHER_FIX in remediation
        assert said == (line in changed), (line, rule, remediation[-160:], sorted(changed))


def test_an_import_kept_only_by_what_the_other_fixes_rewrite_is_labelled(
    tmp_path: Path,
) -> None:
    """The import stays in the scanner's reading while IPEX's ``has_fp64_dtype`` and the
    alias's ``mem_get_info`` are used; ``--fix`` rewrites both first and then removes it."""
    findings, changed = _labels_and_changes(
        tmp_path,
        "import torch\n"
        "import intel_extension_for_pytorch as ipex\n"
        "if torch.xpu.has_fp64_dtype():\n"
        "    free, total = ipex.xpu.mem_get_info(0)\n",
    )
    _agree(findings, changed)
    assert 2 in changed and (2, "ipex-import") in {(line, rule) for line, rule, _ in findings}


def test_an_import_from_ipex_removed_with_the_uses_another_fix_rewrites_says_so(
    tmp_path: Path,
) -> None:
    """``ipex-import``'s own fix never removes ``from ... import``; ``mem-get-info`` removes it
    once it rewrote every use of the name, and the finding says that line changes for it."""
    findings, changed = _labels_and_changes(
        tmp_path,
        "def free(device):\n"
        "    from intel_extension_for_pytorch.xpu import mem_get_info\n"
        "\n"
        "    return mem_get_info(device)[0]\n",
    )
    _agree(findings, changed)
    (remediation,) = [r for line, rule, r in findings if rule == "ipex-import"]
    assert f"{OTHER_FIX} ipex-mem-get-info" in remediation and 2 in changed


def test_an_import_bound_by_global_that_other_functions_use_stays(tmp_path: Path) -> None:
    """``global ipex`` makes the import bind the module's name, which ``run`` uses: the fix
    must leave it (it once read the function alone and removed it), as the label says."""
    findings, changed = _labels_and_changes(
        tmp_path,
        "def main(args):\n"
        "    import intel_extension_for_pytorch as ipex\n"
        "    global ipex\n"
        "    run(args)\n"
        "\n"
        "def run(args):\n"
        "    return ipex.optimize(args.model)\n",
    )
    _agree(findings, changed)
    assert 2 not in changed and (2, "ipex-import") in {(line, rule) for line, rule, _ in findings}


def test_a_use_under_its_function_s_own_import_of_torch_is_labelled(tmp_path: Path) -> None:
    """The function imports torch itself (oap-project/cloudtik's training script): the fix
    writes ``torch`` there, as the scanner now reads it (it asked for a top-level import)."""
    findings, changed = _labels_and_changes(
        tmp_path,
        "def train(model, data):\n"
        "    import torch\n"
        "    with torch.cpu.amp.autocast(dtype=torch.bfloat16):\n"
        "        return model(data)\n",
    )
    _agree(findings, changed)
    assert 3 in changed and findings


def test_a_line_rewritten_for_another_finding_says_so(tmp_path: Path) -> None:
    """``GradScaler`` is rewritten and the ``autocast`` beside it refused (an unknown
    keyword): that finding's line changes, and its label says for which finding."""
    findings, changed = _labels_and_changes(
        tmp_path,
        "import torch\ns = torch.xpu.amp.GradScaler(); t = torch.xpu.amp.autocast(foo=1)\n",
    )
    _agree(findings, changed)
    (remediation,) = [r for line, rule, r in findings if rule == "xpu-amp-autocast"]
    assert f"{OTHER_FIX} xpu-amp-grad-scaler" in remediation and MECHANICAL not in remediation
