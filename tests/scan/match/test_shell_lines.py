"""Shell text as it runs: what only prints (an ``echo``, a help text in a here-document, a
comment) is not read; what is written to a file or fed to a program is. The false alarms are
real lines (kohya_ss's setup.sh and gui.sh, ai-containers' Dockerfiles)."""

from __future__ import annotations

from pathlib import Path

import pytest
from scan_rules import found, scan, write

from ipex_doctor.knowledge import code_rules
from ipex_doctor.scan.match.shell_lines import command_lines
from ipex_doctor.scan.read.source import TextLine

SHIPPED = code_rules.load()


def _lines(text: str) -> list[tuple[int, str]]:
    numbered = [TextLine(n, line) for n, line in enumerate(text.split("\n"), start=1)]
    return [(line.line, line.text.rstrip()) for line in command_lines(numbered)]


def test_printed_words_and_comments_are_blanked_in_place() -> None:
    """Columns stay where they were: what is left of a line is at its own place."""
    text = (
        'echo "run ipexrun train.py"; ipexrun train.py  # ipexrun again\n'
        "printf 'source setvars.sh\\n' && source /opt/intel/oneapi/setvars.sh\n"
        "# ipexrun commented out\n"
        'if [ -x "$(command -v ipexrun)" ]; then echo "ipexrun"; fi'
    )

    def blank(line: str, *parts: str) -> str:
        for part in parts:
            line = line.replace(part, " " * len(part))
        return line.rstrip()

    first, second, _, fourth = text.split("\n")
    assert _lines(text) == [
        (1, blank(first, ' "run ipexrun train.py"', "# ipexrun again")),
        (2, blank(second, " 'source setvars.sh\\n' ")),
        (4, blank(fourth, ' "ipexrun"')),
    ]


def test_echo_into_a_file_writes_code_and_is_read() -> None:
    """ai-containers writes a source line into a startup file; a requirements file is built
    with echo; both are code that runs later."""
    text = (
        'echo "source ${PYPATH}/oneccl_bindings_for_pytorch/env/setvars.sh" >> ~/.startup\n'
        'echo "intel-extension-for-pytorch==2.1.10" | tee requirements.txt'
    )
    assert [line for _, line in _lines(text)] == text.split("\n")


def test_a_printed_here_document_is_not_read_and_a_fed_one_is() -> None:
    text = (
        "cat <<EOF\n"
        "      --use-ipex                Use IPEX with Intel ARC GPUs.\n"
        "EOF\n"
        "python - <<'PY'\n"
        "import intel_extension_for_pytorch\n"
        "PY\n"
        "cat > run.sh <<EOF\n"
        "ipexrun train.py\n"
        "EOF"
    )
    lines = [n for n, _ in _lines(text)]
    assert 2 not in lines
    assert {4, 5, 7, 8} <= set(lines)


def test_kohya_ss_own_flag_and_launcher_probe_are_not_findings(tmp_path: Path) -> None:
    """kohya_ss's scripts (real lines): its help text, its case pattern, its own USE_IPEX
    variable and a test of its own arguments are not transformers' --use_ipex; an echo of
    the launcher's name is not a launch. Passing --use_ipex to a script is."""
    write(
        tmp_path,
        {
            "setup.sh": (
                "display_help() {\n"
                "  cat <<EOF\n"
                "      --use-ipex                Use IPEX with Intel ARC GPUs.\n"
                "EOF\n"
                "}\n"
                "  use-ipex) USE_IPEX=true ;;\n"
                "  --use-ipex) USE_IPEX=true ;;\n"
                'if [[ "$@" == *"--use-ipex"* ]]; then\n'
                '    echo "Starting with ipexrun"\n'
                "fi\n"
                "python train.py --use_ipex --bf16\n"
            )
        },
    )
    assert found(scan(tmp_path, SHIPPED)) == [
        ("setup.sh", 11, "use-ipex-flag", "--use_ipex"),
    ]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("source /opt/intel/oneapi/setvars.sh", ["oneapi-setvars"]),
        ("RUN . /opt/intel/oneapi/setvars.sh && pip install torch", ["oneapi-setvars"]),
        ('call "C:\\Program Files (x86)\\Intel\\oneAPI\\setvars.bat"', ["oneapi-setvars"]),
        ('echo "For example: source /opt/intel/oneapi/setvars.sh"', []),
        ('echo "/opt/intel/oneapi/setvars.sh doesn\'t exist"', []),
        ('if [[ -e "/opt/intel/oneapi/setvars.sh" ]]; then', []),
        ("wget https://example.org/setvars.sh", []),
    ],
)
def test_setvars_is_found_where_it_is_sourced(
    tmp_path: Path, line: str, expected: list[str]
) -> None:
    """The pitfall is sourcing oneAPI beside torch's wheels: a printed, tested or downloaded
    setvars.sh sources nothing (each script also installs torch, the pitfall's context)."""
    write(tmp_path, {"run.sh": f"pip install torch\n{line}\n"})
    assert [rule for _, _, rule, _ in found(scan(tmp_path, SHIPPED))] == expected


def test_setvars_without_torch_or_ipex_beside_it_is_not_the_pitfall(tmp_path: Path) -> None:
    """A CI script that builds the compiler stack sources oneAPI to compile: no torch wheel or
    IPEX is in the file, so there is nothing for oneAPI's libraries to shadow."""
    write(
        tmp_path,
        {
            "build.sh": "source /opt/intel/oneapi/setvars.sh\ncmake --build build\n",
            "run.sh": "source /opt/intel/oneapi/setvars.sh\npython -c 'import torch'\n",
        },
    )
    assert [(p, rule) for p, _, rule, _ in found(scan(tmp_path, SHIPPED))] == [
        ("run.sh", "oneapi-setvars")
    ]


def test_setvars_beside_vtune_sets_the_profiler_up(tmp_path: Path) -> None:
    """A profiling kit sources oneAPI's setvars.sh to put VTune on PATH, as VTune's guide
    says: where VTune is named it is not the pitfall (the seventeenth audit's false alarm)."""
    script = "source /opt/intel/oneapi/setvars.sh --force\nvtune -collect gpu-hotspots -- "
    script += "python -c 'import torch; print(torch.xpu.device_count())'\n"
    write(tmp_path, {"profile.sh": script})
    assert found(scan(tmp_path, SHIPPED)) == []


def test_a_call_of_the_scripts_own_printing_function_is_a_message() -> None:
    """``fail "... intel-extension-for-pytorch"`` prints, when ``fail`` only prints (one line
    or several, a failure counter beside its echo); a function that writes to a file or
    runs anything else is not one, nor is a call before a command operator."""
    script = "\n".join(
        [
            'fail() { echo "  [FAIL] $1"; FAILURES=$((FAILURES+1)); }',
            "function note {",
            '    printf "%s\\n" "$1" >&2',
            "}",
            'add() { echo "$1" >> requirements.txt; }',
            'run() { "$@"; }',
            'fail "check IPEX / intel-extension-for-pytorch"',
            'note "pip install intel-extension-for-pytorch"',
            'add "intel-extension-for-pytorch"',
            "run pip install intel-extension-for-pytorch",
            'fail "x" && pip install intel-extension-for-pytorch',
        ]
    )
    kept = dict(_lines(script))
    assert "intel" not in kept.get(7, "") and "intel" not in kept.get(8, "")
    assert "intel-extension-for-pytorch" in kept[9]
    assert "intel-extension-for-pytorch" in kept[10]
    assert kept[11].endswith("pip install intel-extension-for-pytorch")


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("pip install intel-extension-for-pytorch==2.8.10+xpu", ["ipex-requirement"]),
        (
            "pip install https://example.org/whl/intel_extension_for_pytorch-2.1.10%2Bxpu-cp310-cp310-linux_x86_64.whl",
            ["ipex-requirement"],
        ),
        ('python -c "import torch; import intel_extension_for_pytorch"', ["ipex-python-command"]),
        ("pip uninstall -y intel-extension-for-pytorch", []),
        # another distribution whose name begins with IPEX's (milabench's pins) is not IPEX:
        # it is IPEX for DeepSpeed, reported as such
        (
            "pip install intel-extension-for-pytorch-deepspeed==2.1.40",
            ["ipex-deepspeed-requirement"],
        ),
        (
            "pip install intel_extension_for_pytorch-2.8.10+xpu-cp311-cp311-linux_x86_64.whl",
            ["ipex-requirement"],
        ),
        ("pip list | grep intel-extension-for-pytorch", ["ipex-shell-probe"]),
        ('ARG PYT_BASE_IMAGE="intel/intel-extension-for-pytorch"', []),
        (
            "wget https://raw.githubusercontent.com/intel/intel-extension-for-pytorch/main/examples/cpu/inference.py",
            [],
        ),
    ],
)
def test_an_install_is_a_requirement_and_other_mentions_are_not(
    tmp_path: Path, line: str, expected: list[str]
) -> None:
    """Uninstalling IPEX is the migration itself; listing it, an image named after it and a
    file of its repository install nothing (listing it asks whether it is there: the shell's
    probe, not a requirement); a `python -c` import is its own finding."""
    write(tmp_path, {"run.sh": f"{line}\n"})
    assert [rule for _, _, rule, _ in found(scan(tmp_path, SHIPPED))] == expected


def test_what_a_python_program_asks_ipex_is_found_on_its_own_line(tmp_path: Path) -> None:
    """na-radio-standalone's Dockerfile and open-navigator's installer print IPEX's version
    on the line after the import of the Python they run: each line goes with IPEX. A line
    that prints the words (echo) runs no Python."""
    write(
        tmp_path,
        {
            "Dockerfile": (
                "FROM python:3.10\n"
                'RUN python -c "\\\n'
                "import intel_extension_for_pytorch as ipex\n"
                "print('IPEX version:', ipex.__version__)\n"
                "print('XPU:', ipex.xpu.is_available())\n"
                '"\n'
                'RUN echo "print(ipex.__version__)"\n'
            ),
            "check.sh": (
                "python - <<'PY'\n"
                "import intel_extension_for_pytorch as ipex\n"
                "print('IPEX version:', ipex.__version__)\n"
                "PY\n"
                'echo "ipex.__version__ is printed above"\n'
            ),
        },
    )
    assert [(p, n) for p, n, rule, _ in found(scan(tmp_path, SHIPPED))] == [
        ("Dockerfile", 3),
        ("Dockerfile", 4),
        ("Dockerfile", 5),
        ("check.sh", 2),
        ("check.sh", 3),
    ]


PIN = "intel-extension-for-pytorch==2.1.10+xpu"


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        # written to a list pip reads, a script or a startup file: read as what it is
        ([f'echo "{PIN}" >> requirements.txt'], [1]),
        ([f"printf '%s\\n' torch '{PIN}' > /tmp/req.txt", "pip install -r /tmp/req.txt"], [1]),
        ([f'echo "{PIN}" | sudo tee -a "$APP/requirements-xpu.txt"'], [1]),
        (["cat > requirements.txt <<EOF", "torch==2.1.0.post0", PIN, "EOF"], [3]),
        (["cat <<'EOF' > \"$HOME/reqs\"", PIN, "EOF", 'pip install -r "$HOME/reqs"'], [2]),
        (["REQ=$(mktemp)", f'echo "{PIN}" > "$REQ"', 'pip install -r "$REQ"'], [2]),
        # to the console, thrown away, the error stream, a log or a document: a message
        ([f'echo "installing {PIN}" >&2'], []),
        ([f'echo "{PIN}" > /dev/null'], []),
        ([f'printf "%s\\n" "{PIN}" 2>/dev/null'], []),
        ([f'echo "$(date) installing {PIN}" >> install.log'], []),
        ([f'echo "installing {PIN}" | tee -a "$LOG_FILE"'], []),
        ([f'echo "installing {PIN}" | tee /dev/stderr'], []),
        (["LOG=/var/log/setup.log", f'echo "installing {PIN}" >> "$LOG"'], []),
        ([f'echo "- {PIN}" >> CHANGES.md'], []),
        ([f'echo "{PIN}" > versions.txt', "pip install -r requirements.txt"], []),
        (["cat <<EOF >> install.log", f"installing {PIN}", "EOF"], []),
        (["cat <<EOF | tee -a setup.log", f"installing {PIN}", "EOF"], []),
    ],
)
def test_echo_printf_and_here_documents_are_read_where_the_file_is(
    tmp_path: Path, lines: list[str], expected: list[int]
) -> None:
    """What ``echo``, ``printf`` or ``cat <<EOF`` writes is read where the file it goes to is
    read (a list pip is handed in the same script, a requirement list, a script); on the
    console, ``/dev/null``, the error stream, a log or a document it is a message."""
    write(tmp_path, {"install.sh": "".join(f"{line}\n" for line in lines)})
    assert [
        n for _, n, rule, _ in found(scan(tmp_path, SHIPPED)) if rule == "ipex-requirement"
    ] == (expected)


def test_a_startup_file_a_script_writes_is_read() -> None:
    """A line appended to ``~/.bashrc`` (or another startup file) runs in every later shell:
    it is read, whatever the file's name."""
    text = 'echo "source /opt/intel/oneapi/setvars.sh" >> /root/.bashrc'
    assert [line for _, line in _lines(text)] == [text]


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        # the path of oneAPI's setvars.sh held in a variable of the same file
        (["SETVARS=/opt/intel/oneapi/setvars.sh", 'source "$SETVARS"'], [2]),
        (
            [
                'export SETVARS="${ONEAPI_ROOT:-/opt/intel/oneapi}/setvars.sh"',
                ". ${SETVARS} --force",
            ],
            [2],
        ),
        (
            [
                "readonly ONEAPI_VARS=/opt/intel/oneapi/setvars.sh",
                'bash -c "source $ONEAPI_VARS && python app.py"',
            ],
            [2],
        ),
        (["ONEAPI_ROOT=/opt/intel/oneapi", '. "$ONEAPI_ROOT/setvars.sh"'], [2]),
        (
            [
                'if [ -d "$HOME/intel/oneapi" ]; then',
                "  SETVARS=$HOME/intel/oneapi/setvars.sh",
                "fi",
                'source "$SETVARS"',
            ],
            [4],
        ),
        # reassigned before the use, set only after it, not oneAPI's, or not sourced
        (
            ["SETVARS=/opt/intel/oneapi/setvars.sh", "SETVARS=./env.sh", 'source "$SETVARS"'],
            [],
        ),
        (
            [
                "SETVARS=/opt/intel/oneapi/setvars.sh",
                'SETVARS="$(ls /opt/*/env.sh | head -1)"',
                'source "$SETVARS"',
            ],
            [],
        ),
        (['source "$SETVARS"', "SETVARS=/opt/intel/oneapi/setvars.sh"], []),
        (["VARS=$VENV/oneccl_bindings_for_pytorch/env/setvars.sh", 'source "$VARS"'], []),
        (["SETVARS=/opt/intel/oneapi/setvars.sh", 'ls -l "$SETVARS"'], []),
        (["SETVARS=/opt/intel/oneapi/setvars.sh", 'echo "run: source $SETVARS"'], []),
        (["SETVARS=$(find /opt -name setvars.sh)", 'source "$SETVARS"'], []),
        (["# SETVARS=/opt/intel/oneapi/setvars.sh", 'source "$SETVARS"'], []),
        (["SETVARS=/opt/intel/oneapi/setvars.sh", 'source "$SETVARS_OLD"'], []),
    ],
)
def test_setvars_held_in_a_variable_is_found_where_it_is_sourced(
    tmp_path: Path, lines: list[str], expected: list[int]
) -> None:
    """``source "$SETVARS"`` loads what the variable holds: its last assignment before the use
    in the same file (in a branch or out), taken as written and never evaluated. Each script
    also installs torch, the pitfall's context."""
    write(tmp_path, {"run.sh": "".join(f"{line}\n" for line in ["pip install torch", *lines])})
    assert [
        n - 1 for _, n, rule, _ in found(scan(tmp_path, SHIPPED)) if rule == "oneapi-setvars"
    ] == expected


def test_a_script_of_thousands_of_printing_functions_takes_the_first_64() -> None:
    """A call of the 64th printing function is a message; of the 65th, a command (read, and
    reported where a rule says so): a hostile script cannot make every line try each name."""
    script = "".join(f'f{i}() {{ echo "$1"; }}\n' for i in range(3000))
    script += 'f63 "pip install intel-extension-for-pytorch"\n'
    script += 'f64 "pip install intel-extension-for-pytorch"\n'
    kept = dict(_lines(script))
    assert kept[3001].strip() == "f63"
    assert "intel-extension-for-pytorch" in kept[3002]


def test_a_launcher_that_patches_ipex_into_another_program_is_one_finding_a_line(
    tmp_path: Path,
) -> None:
    """JT-Gresham's Forge launcher for Arc (an extensionless bash script) writes IPEX's import
    into the web UI's launch_utils.py with sed and checks with grep that it did; an echo
    appending it to a Python file does the same. Each such line is ipex-import-patched alone
    (the sed's "\\n" before the import made it read as a requirement before); the line that
    rewrites the UI's pins is still a requirement (and a pin on Intel's torch build), and an
    echo to the console is a message."""
    script = (
        "#!/usr/bin/env bash\n"
        'if grep -Fxq "import intel_extension_for_pytorch as ipex" launch_utils.py; then\n'
        '  echo "already patched"\n'
        "else\n"
        "  sed -i 's|from modules_forge.config import always_disabled_extensions|from "
        "modules_forge.config import always_disabled_extensions\\nimport "
        "intel_extension_for_pytorch as ipex|g' launch_utils.py\n"
        "fi\n"
        "sed -i 's|torch==2.0.0a0|torch>=2.1.0.post2 intel-extension-for-pytorch>=2.1.30+xpu|g' "
        "launch_utils.py\n"
        'echo "import intel_extension_for_pytorch as ipex" >> webui/launch.py\n'
        'echo "import intel_extension_for_pytorch as ipex"\n'
    )
    write(tmp_path, {"libref-forge": script})
    assert [(f[1], f[2]) for f in found(scan(tmp_path, SHIPPED))] == [
        (2, "ipex-import-patched"),
        (5, "ipex-import-patched"),
        (7, "intel-torch-build-pin"),
        (7, "ipex-requirement"),
        (8, "ipex-import-patched"),
    ]
