"""Python that a shell command runs from a here-document (``python - <<'EOF'``) is read by the
Python rules, at its own lines and columns in the script, the Dockerfile or the CI file; a
document that is some other program's input is not Python."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import run_doctor
from scan_rules import found, scan, write

from ipex_doctor.knowledge import code_rules
from ipex_doctor.scan.match.python_documents import Placed, python_documents
from ipex_doctor.scan.read.source import TextLine
from ipex_doctor.verdicts.code_findings import EMBEDDED_LEFT, MECHANICAL

SHIPPED = code_rules.load()


def _openers(script: str) -> list[int]:
    lines = script.splitlines()
    numbered = (TextLine(number, text) for number, text in enumerate(lines, start=1))
    return [document.opener for document in python_documents(numbered)]


@pytest.mark.parametrize(
    "opener",
    [
        "python - <<'PY'",
        "python3 <<EOF",
        'IPEX_LIB=$(python3 -u - <<"PY"',
        'srun --ntasks 2 python3 - "$@" <<EOF',
        '"${PYTHON}" -X utf8 <<EOF',
        "$PYTHON_BIN -B <<-EOF",
        "/opt/conda/bin/python3.11 2>&1 <<EOF",
        "python3 &>run.log <<EOF",
        "conda run -n xpu python <<EOF",
        "cd work && python <<EOF",
        "cat <<'EOF' | python3 -",
        "RUN python3 <<EOF",
    ],
)
def test_a_document_an_interpreter_runs_as_its_program_is_python(opener: str) -> None:
    ending = re.search(r"<<-?\s*['\"]?(\w+)", opener)
    assert ending is not None
    script = f"#!/bin/bash\n{opener}\nimport torch\n{ending.group(1)}\n)\n"
    assert _openers(script) == [2]


@pytest.mark.parametrize(
    "opener",
    [
        "python train.py <<EOF",  # the script's input
        "python3 -c 'import sys; print(sys.stdin.read())' <<EOF",
        "python -m pip install -r /dev/stdin <<EOF",
        "python3 -um json.tool <<EOF",
        "cat <<EOF",  # a message
        "cat > job.py <<EOF",  # a file written (scripts_in_place reads what runs it)
        "cat <<'EOF' | python3 check.py",
        'echo "run python <<EOF by hand"',  # inside quotes: no document
        "# python - <<EOF",  # a comment
        "pythonista <<EOF",
    ],
)
def test_a_document_that_is_not_a_program_of_python_is_not(opener: str) -> None:
    script = f"{opener}\nimport torch\nEOF\n"
    assert _openers(script) == []


def test_a_document_inside_a_printed_one_and_one_never_ended_are_none() -> None:
    usage = "cat <<USAGE\nRun:\n  python - <<EOF\n  import torch\n  EOF\nUSAGE\n"
    assert _openers(usage) == []
    assert _openers("python - <<EOF\nimport torch\n") == []
    assert _openers("python - <<< 'import torch'\n") == []


def test_the_body_keeps_the_files_line_numbers_and_a_ci_blocks_columns() -> None:
    lines = [TextLine(7, "  python - <<'EOF'"), TextLine(8, "    import torch"),
             TextLine(9, "    x = 1"), TextLine(10, "  EOF")]  # fmt: skip
    (document,) = python_documents(lines)
    assert document.opener == 7 and document.indent == 4
    assert document.lines[7:9] == ["import torch", "x = 1"]
    assert document.column(8, 0) == 4 and document.column(7, 3) == 3


def test_placed_lines_read_as_the_files_without_storing_the_lines_before() -> None:
    """A document's lines: ``placed[n - 1]`` is line ``n`` of the file, empty before the body,
    by index, slice and iteration alike."""
    placed = Placed(3, ["import torch", "x = 1"])
    assert len(placed) == 5 and list(placed) == ["", "", "", "import torch", "x = 1"]
    assert placed[3] == "import torch" and placed[-1] == "x = 1" and placed[0] == ""
    assert placed[2:4] == ["", "import torch"]
    with pytest.raises(IndexError):
        placed[5]


def test_a_script_of_many_documents_places_each_at_its_line(tmp_path: Path) -> None:
    """Thousands of documents in one script: each read alone, the last one's match at its own
    line (no document carries the lines before it: ``Placed``)."""
    script = "python - <<E\nimport torch\nx = 1\nE\n" * 3000
    script += "python - <<E\nimport torch\ntorch.xpu.amp.GradScaler()\nE\n"
    write(tmp_path, {"run.sh": script})
    (match,) = scan(tmp_path, SHIPPED).matches
    assert (match.rule_id, match.location.line) == ("xpu-amp-grad-scaler", 12003)


SLURM = """\
#!/bin/bash
#SBATCH --nodes=1
IPEX_LIB=$(python - <<'PY'
import pathlib
import intel_extension_for_pytorch as ipex
print(str(pathlib.Path(ipex.__file__).parent / "lib"))
PY
)
python3 - <<EOF
import torch
import intel_extension_for_pytorch as ipex
model = ipex.optimize(torch.nn.Linear(2, 2).eval())
scaler = torch.xpu.amp.GradScaler()
EOF
python3 train.py <<EOF
scaler = torch.xpu.amp.GradScaler()
EOF
"""


def test_the_python_rules_read_a_scripts_documents_and_the_import_is_one_finding(
    tmp_path: Path,
) -> None:
    """The import a shell rule reports as a command is not reported again by the Python rules;
    what only the Python rules know (a reference, a call, an IPEX-only name) is found at its
    own line; the document fed to train.py is that script's input."""
    write(tmp_path, {"job.sh": SLURM})
    result = scan(tmp_path, SHIPPED)
    assert [(line, rule) for _, line, rule, _ in found(result)] == [
        (5, "ipex-python-command"),
        (6, "ipex-other-api"),
        (11, "ipex-python-command"),
        (12, "ipex-optimize"),
        (13, "xpu-amp-grad-scaler"),
    ]
    scaler = result.matches[-1]
    at = scaler.location
    assert scaler.snippet[at.column : at.end_column] == "torch.xpu.amp.GradScaler"
    assert not any(match.mechanical for match in result.matches)


def test_a_dockerfile_and_a_ci_step_are_read_the_same_way(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "Dockerfile": "FROM python:3.11\nRUN python3 <<EOF\nimport torch\n"
            "with torch.xpu.amp.autocast():\n    pass\nEOF\n",
            ".github/workflows/check.yml": (
                "on: push\njobs:\n  a:\n    steps:\n      - run: |\n"
                "          cat <<'EOF' | python -\n          import torch\n"
                "          torch.xpu.amp.GradScaler()\n          EOF\n"
            ),
        },
    )
    result = scan(tmp_path, SHIPPED)
    assert [(path, line, rule) for path, line, rule, _ in found(result)] == [
        (".github/workflows/check.yml", 8, "xpu-amp-grad-scaler"),
        ("Dockerfile", 4, "xpu-amp-autocast"),
    ]
    ci = result.matches[0]
    assert ci.snippet[ci.location.column : ci.location.end_column] == "torch.xpu.amp.GradScaler"


def test_a_document_that_does_not_parse_is_left_to_the_shell_rules(tmp_path: Path) -> None:
    """A command substitution is no Python; nor is ``$HOME`` where the delimiter is quoted
    (the shell leaves it as written). The lines were read, by the shell rules: no unread file."""
    for opener, unparsable in (("<<EOF", "stamp = $(date)"), ("<<'EOF'", "home = $HOME")):
        script = f"python - {opener}\nimport intel_extension_for_pytorch as ipex\n"
        script += f"{unparsable}\nipex.optimize(model)\nEOF\n"
        write(tmp_path, {"run.sh": script})
        result = scan(tmp_path, SHIPPED)
        assert [(line, rule) for _, line, rule, _ in found(result)] == [(2, "ipex-python-command")]
        assert result.skipped == ()


def test_the_shells_expansions_in_an_unquoted_document_are_read_as_names(tmp_path: Path) -> None:
    """``${THRESHOLD}`` and ``$1`` are what the shell puts there: the rest of the program is
    still read, each place at its own column."""
    script = "python3 - <<PY\nimport torch\nassert acc >= ${THRESHOLD}, '$1'\n"
    script += "s = torch.xpu.amp.GradScaler()\nPY\n"
    write(tmp_path, {"eval.sh": script})
    (match,) = scan(tmp_path, SHIPPED).matches
    assert (match.rule_id, match.location.line, match.location.column) == (
        "xpu-amp-grad-scaler",
        4,
        4,
    )


def test_the_finding_says_why_fix_leaves_it_and_fix_leaves_the_script(tmp_path: Path) -> None:
    write(tmp_path, {"job.sh": SLURM})
    scanned = run_doctor("scan", str(tmp_path), "--json", "-", "--fail-on", "never")
    assert scanned.returncode == 0, scanned.stderr
    findings = {f["location"]["line"]: f for f in json.loads(scanned.stdout)["findings"]}
    scaler = findings[13]
    assert scaler["id"] == "xpu-amp-grad-scaler"
    assert EMBEDDED_LEFT in scaler["remediation"] and MECHANICAL not in scaler["remediation"]
    fixed = run_doctor("scan", str(tmp_path), "--fix", "--fail-on", "never")
    assert fixed.returncode == 0, fixed.stderr
    assert (tmp_path / "job.sh").read_text() == SLURM


def test_a_script_without_a_suffix_is_labelled_as_fix_treats_it(tmp_path: Path) -> None:
    """Without a suffix, the ``#!`` line alone says what a script is: the Python one
    (``bin/train``) is fixed as ``*.py`` is, and its finding says so; the bash one's document
    is left, and its finding says why. The name could not have told them apart."""
    train = "#!/usr/bin/env python3\nimport torch\nwith torch.xpu.amp.autocast():\n    pass\n"
    write(tmp_path, {"bin/job": SLURM, "bin/train": train})
    (tmp_path / "bin" / "train").chmod(0o755)
    scanned = run_doctor("scan", str(tmp_path), "--json", "-", "--fail-on", "never")
    assert scanned.returncode == 0, scanned.stderr
    findings = {
        (f["location"]["path"], f["location"]["line"]): f
        for f in json.loads(scanned.stdout)["findings"]
    }
    autocast = findings[("bin/train", 3)]
    assert autocast["id"] == "xpu-amp-autocast"
    assert MECHANICAL in autocast["remediation"] and EMBEDDED_LEFT not in autocast["remediation"]
    scaler = findings[("bin/job", 13)]
    assert EMBEDDED_LEFT in scaler["remediation"] and MECHANICAL not in scaler["remediation"]
    fixed = run_doctor("scan", str(tmp_path), "--fix", "--fail-on", "never")
    assert fixed.returncode == 0, fixed.stderr
    assert (tmp_path / "bin" / "job").read_text() == SLURM
    assert (tmp_path / "bin" / "train").read_text() == train.replace(
        "torch.xpu.amp.autocast()",
        'torch.amp.autocast("xpu", dtype=torch.bfloat16, cache_enabled=True)',
    )
    assert (tmp_path / "bin" / "train").stat().st_mode & 0o777 == 0o755


def _programs(script: str) -> list[tuple[int, str]]:
    lines = script.splitlines()
    numbered = (TextLine(number, text) for number, text in enumerate(lines, start=1))
    return [(document.opener, document.source) for document in python_documents(numbered)]


@pytest.mark.parametrize(
    ("script", "source"),
    [
        (
            'python3 -c "\nimport torch\nprint(torch.xpu)\n"\n',
            "\nimport torch\nprint(torch.xpu)\n\n",
        ),
        ("python -c 'import torch\nx = 1'\n", "import torch\nx = 1\n"),
        ('python -c "import torch; print(1)"\n', "import torch; print(1)\n"),
        ('uv run python -u -X utf8 -c "import torch"\n', "import torch\n"),
        ('V=$(python3 -c "import torch" 2>/dev/null || echo "")\n', "import torch\n"),
        ('"$PYTHON" -c "import torch"\n', "import torch\n"),
        ('python -c "print(\\"a\\" + \\"\\$b\\")"\n', 'print("a" + "$b")\n'),
        ('python -c "print($HOME, ${X:-1})"\n', "print(_____, _______)\n"),
        ("python -c 'print($HOME)'\n", "print($HOME)\n"),
        ('python -c "a" && python3 -c "b"\n', "a\n"),
    ],
)
def test_a_c_option_gives_python_its_program_on_one_line_or_many(script: str, source: str) -> None:
    """The quoted program of ``-c``, as the shell hands it on: from after the quote to where
    it closes; in double quotes without the backslashes of escapes and with each expansion a
    name of its own length; in single quotes as written."""
    assert _programs(script)[0] == (1, source)


def test_two_programs_on_one_line_and_one_after_a_program_over_lines() -> None:
    script = 'python -c "a" && python3 -c "b"\npython -c "\nc\n" ; python -c "d"\npython -c "e"\n'
    assert _programs(script) == [(1, "a\n"), (1, "b\n"), (2, "\nc\n\n"), (5, "e\n")]


@pytest.mark.parametrize(
    "script",
    [
        "python train.py -c 'config.yaml'\n",  # the script's own option
        "python -m pytest -c 'setup.cfg'\n",
        "grep -c 'import torch' x.py\n",
        "echo \"python -c 'import torch'\"\n",  # inside quotes: printed
        "# python -c 'import torch'\n",
        "python --check -c\n",
        'python -c "import torch\n',  # never closed
    ],
)
def test_a_c_that_is_not_a_pythons_program_is_none(script: str) -> None:
    assert _programs(script) == []


def test_a_program_over_lines_keeps_its_places_escapes_included() -> None:
    """Columns come back to the file's: the opener's line from its quote, a later line's with
    the indentation and each backslash the shell took off before it."""
    lines = [TextLine(3, '  V=$(python -c "import torch'),
             TextLine(4, '    print(\\"x\\", torch.xpu)'), TextLine(5, '  ")')]  # fmt: skip
    (document,) = python_documents(lines)
    assert document.source == 'import torch\nprint("x", torch.xpu)\n\n'
    assert document.column(3, 7) == 7 + 17  # "torch" after the quote at column 16
    assert document.column(4, 11) == 4 + 11 + 2  # "torch.xpu" after \"x\"
    assert lines[1].text[document.column(4, 11) :].startswith("torch.xpu")


VERIFY = """\
#!/bin/bash
export CCL_ROOT=$(python -c "import oneccl_bindings_for_pytorch; print(oneccl_bindings_for_pytorch.cwd)")
python -c "
try:
    import torch, oneccl_bindings_for_pytorch
    print(f'Version: {oneccl_bindings_for_pytorch.__version__}', \\"ok\\", torch.xpu.get_fp32_math_mode())
except ImportError as e:
    print('not found:', e)
"
python -c 'import torch
import intel_extension_for_pytorch as ipex
model = ipex.optimize(model)'
"""


def test_the_python_rules_read_a_c_program_over_many_lines(tmp_path: Path) -> None:
    """The verification block of an install script: the import is the shell rules' command,
    the bindings' version read and IPEX's call the Python rules', each at its column in the
    file (after the shell's escapes); a read of the bindings' names is not their install."""
    write(tmp_path, {"check.sh": VERIFY})
    result = scan(tmp_path, SHIPPED)
    assert [(line, rule) for _, line, rule, _ in found(result)] == [
        (2, "ipex-python-command"),
        (5, "ipex-python-command"),
        (6, "oneccl-bindings-api"),
        (6, "xpu-fp32-math-mode"),
        (11, "ipex-python-command"),
        (12, "ipex-optimize"),
    ]
    for match in result.matches[2:4] + result.matches[-1:]:
        at = match.location
        assert match.snippet[at.column : at.end_column] in (
            "oneccl_bindings_for_pytorch.__version__",
            "torch.xpu.get_fp32_math_mode",
            "ipex.optimize",
        )
    assert not any(match.mechanical for match in result.matches)
    fixed = run_doctor("scan", str(tmp_path), "--fix", "--fail-on", "never")
    assert fixed.returncode == 0, fixed.stderr
    assert (tmp_path / "check.sh").read_text() == VERIFY


def test_a_dockerfiles_c_program_over_continued_lines(tmp_path: Path) -> None:
    """``RUN python -c "...; \\`` over continued lines: Docker joins them, and so does Python's
    own backslash at a line's end."""
    dockerfile = (
        "FROM python:3.11\n"
        'RUN python -c "import torch; \\\n'
        "    import intel_extension_for_pytorch as ipex; \\\n"
        '    model = ipex.optimize(model)"\n'
    )
    write(tmp_path, {"Dockerfile": dockerfile})
    assert [(line, rule) for _, line, rule, _ in found(scan(tmp_path, SHIPPED))] == [
        (3, "ipex-python-command"),
        (4, "ipex-optimize"),
    ]


def test_a_line_of_many_c_programs_reads_each_once(tmp_path: Path) -> None:
    """Thousands of ``-c`` programs on one line and over many: each read, the match after them
    found at its place (what lies before an option is read once, not for every option)."""
    script = 'python -c "x = 1"; ' * 5000 + "\n" + "python -c 'import torch\nx = 1'\n" * 2000
    script += 'python -c "import torch; s = torch.xpu.amp.GradScaler()"\n'
    write(tmp_path, {"run.sh": script})
    (match,) = scan(tmp_path, SHIPPED).matches
    assert (match.rule_id, match.location.line, match.location.column) == (
        "xpu-amp-grad-scaler",
        4002,
        29,
    )
