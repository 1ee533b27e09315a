"""Windows installers (PowerShell ``*.ps1`` / ``*.psm1``, batch ``*.bat`` / ``*.cmd``) read as
shell: an install of IPEX, its wheel index, an import in ``python -c``, the launcher, oneAPI's
setvars.bat are found as in a ``.sh``; what a comment, ``Write-Host`` or ``echo`` only says is
not. Files are written with CRLF line ends, as Windows keeps them. The PowerShell lines are
mason369/music-to-midi's install.ps1 (the scan corpus's ninth collection), a little shortened.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_doctor
from scan_rules import found, scan, write

from ipex_doctor.knowledge import code_rules
from ipex_doctor.model.code import FileKind
from ipex_doctor.scan.read.kinds import ShellDialect, classify, rewritten_by_fix, shell_dialect

SHIPPED = code_rules.load()
INDEX = "https://pytorch-extension.intel.com/release-whl/stable/xpu/us/"


def _crlf(*lines: str) -> bytes:
    return "".join(f"{line}\r\n" for line in lines).encode()


def _rules(tmp_path: Path, name: str, *lines: str) -> list[tuple[int, str]]:
    """The (line, rule) of each finding in a file ``name`` holding ``lines``."""
    write(tmp_path, {name: _crlf(*lines)})
    return [(line, rule) for _, line, rule, _ in found(scan(tmp_path, SHIPPED))]


@pytest.mark.parametrize(
    ("name", "dialect"),
    [
        ("install.ps1", ShellDialect.POWERSHELL),
        ("Tools.PSM1", ShellDialect.POWERSHELL),
        ("webui.bat", ShellDialect.BATCH),
        ("setup.CMD", ShellDialect.BATCH),
        ("run.sh", ShellDialect.POSIX),
    ],
)
def test_windows_installers_are_shell_files_in_their_own_language(
    name: str, dialect: ShellDialect
) -> None:
    """Read as ``SHELL``; ``scan --fix`` rewrites POSIX scripts only (its rewrites speak sh)."""
    assert classify(name) is FileKind.SHELL
    assert shell_dialect(name) is dialect
    assert rewritten_by_fix(f"tools/{name}") is (dialect is ShellDialect.POSIX)


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        # what runs
        (
            [f'& "$PIP" install intel_extension_for_pytorch --extra-index-url {INDEX}'],
            [(1, "ipex-requirement"), (1, "ipex-wheel-index")],
        ),
        (
            ['& "$PYTHON" -c "import intel_extension_for_pytorch as ipex"'],
            [(1, "ipex-python-command")],
        ),
        (
            ["python -m pip install oneccl_bind_pt `", f"    --extra-index-url {INDEX}"],
            [(1, "oneccl-bind-pt-requirement"), (2, "ipex-wheel-index")],
        ),
        (
            [
                f'$env:IPEX_INDEX = "{INDEX}"',
                "& $PY -m pip install torch `",
                "    --extra-index-url $env:IPEX_INDEX",
            ],
            [(1, "ipex-wheel-index"), (3, "ipex-wheel-index")],
        ),
        (['$req = @"', "intel-extension-for-pytorch==2.1.10+xpu", '"@'], [(2, "ipex-requirement")]),
        (
            ['"intel-extension-for-pytorch==2.1.10" | Out-File requirements.txt'],
            [(1, "ipex-requirement")],
        ),
        (
            ["if ($ok) { Write-Ok 'done' } else { & $PIP install intel_extension_for_pytorch }"],
            [(1, "ipex-requirement")],
        ),
        # what only says it
        (['Write-Info "Installing intel_extension_for_pytorch (Intel GPU)..."'], []),
        (['Write-Host "ipex `"failed`" # see ipexrun"; Write-Warn "retry"'], []),
        (["# & $PIP install intel_extension_for_pytorch"], []),
        (["<#", "& $PIP install intel_extension_for_pytorch", "#>"], []),
        (["$x = 1 <# pip install intel_extension_for_pytorch #> ; $y = 2"], []),
        (['Write-Host @"', "Run: pip install intel_extension_for_pytorch", '"@'], []),
        (['# the message: $msg = @"', 'Write-Host "Installing intel_extension_for_pytorch"'], []),
        (['& "$PIP" uninstall intel_extension_for_pytorch -y'], []),
        (['$d = Join-Path $VENV_DIR "Lib\\site-packages\\intel_extension_for_pytorch"'], []),
        (['& "$PIP" install intel_npu_acceleration_library'], []),
    ],
)
def test_powershell(tmp_path: Path, lines: list[str], expected: list[tuple[int, str]]) -> None:
    assert _rules(tmp_path, "install.ps1", *lines) == expected


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        # what runs
        (
            [f"%PYTHON% -m pip install intel-extension-for-pytorch==2.1.10+xpu -f {INDEX}"],
            [(1, "ipex-requirement"), (1, "ipex-wheel-index")],
        ),
        (
            ["echo Installing IPEX... & call pip install intel_extension_for_pytorch"],
            [(1, "ipex-requirement")],
        ),
        (
            ["pip install torch", 'call "C:\\Program Files (x86)\\Intel\\oneAPI\\setvars.bat"'],
            [(2, "oneapi-setvars")],
        ),
        (['%PYTHON% -c "import intel_extension_for_pytorch"'], [(1, "ipex-python-command")]),
        (["ipexrun train.py"], [(1, "ipex-launcher")]),
        # IPEX's DLL folder put on PATH (the sixteenth audit's SD.Next launcher); the folder
        # named as a whole is a test of whether IPEX is installed (see the PowerShell cases)
        (
            [
                'set "PATH=%ROOT%\\venv\\Lib\\site-packages\\torch\\lib;'
                '%ROOT%\\venv\\Lib\\site-packages\\intel_extension_for_pytorch\\lib;%PATH%"'
            ],
            [(1, "ipex-installed-file")],
        ),
        (['if exist "%SP%\\intel_extension_for_pytorch" goto ready'], []),
        (
            [f'set "IPEX_URL={INDEX}"', "pip install torch ^", "  --extra-index-url %IPEX_URL%"],
            [(1, "ipex-wheel-index"), (3, "ipex-wheel-index")],
        ),
        (
            ["pip install .\\wheels\\intel_extension_for_pytorch-2.1.10+xpu-cp310-win_amd64.whl"],
            [(1, "ipex-requirement")],
        ),
        (
            ["echo intel-extension-for-pytorch==2.1.10 > requirements-xpu.txt"],
            [(1, "ipex-requirement")],
        ),
        # what only says it
        (["REM pip install intel_extension_for_pytorch"], []),
        (["pip install torch", "@rem call setvars.bat"], []),
        ([":: pip install intel_extension_for_pytorch"], []),
        (["echo Don't forget: pip install intel_extension_for_pytorch"], []),
        (["echo.^> run ipexrun train.py"], []),
        (["if errorlevel 1 echo Failed to install intel_extension_for_pytorch & exit /b 1"], []),
        (["pip uninstall -y intel_extension_for_pytorch"], []),
        (["pip install intel-extension-for-transformers"], []),
    ],
)
def test_batch(tmp_path: Path, lines: list[str], expected: list[tuple[int, str]]) -> None:
    assert _rules(tmp_path, "install.bat", *lines) == expected


def test_a_hash_is_no_comment_in_batch(tmp_path: Path) -> None:
    """cmd.exe has no ``#`` comments: what follows one on a line runs."""
    assert _rules(tmp_path, "run.cmd", "cd app # ipexrun train.py") == [(1, "ipex-launcher")]


def test_the_json_and_sarif_locations_are_the_line_that_installs(tmp_path: Path) -> None:
    """mason369/music-to-midi's install.ps1 (CRLF, shortened): the one install is reported at
    its own line and column; the probes of the site-packages folder, the uninstall and the
    messages around it are not."""
    project = tmp_path / "project"
    write(
        project,
        {
            "install.ps1": _crlf(
                '$ipexSiteDir = Join-Path $VENV_DIR "Lib\\site-packages\\intel_extension_for_pytorch"',
                "if (Test-Path $ipexSiteDir) { $ipexInstalled = $true }",
                "if (-not $ipexInstalled) {",
                '    Write-Info "Installing intel_extension_for_pytorch (Intel GPU)..."',
                "    try {",
                f'        & "$PIP" install intel_extension_for_pytorch --extra-index-url {INDEX}',
                "        if ($LASTEXITCODE -ne 0) {",
                '            & "$PIP" uninstall intel_extension_for_pytorch -y',
                "        }",
                "    }",
                "    catch {",
                '        Write-Warn "intel_extension_for_pytorch failed to install"',
                "    }",
                "}",
            )
        },
    )
    sarif = tmp_path / "scan.sarif"
    done = run_doctor("scan", str(project), "--sarif", str(sarif), "--json", "-")
    assert "Traceback" not in done.stderr, done.stderr
    report = json.loads(done.stdout)
    places = {
        (f["id"], f["location"]["path"], f["location"]["line"], f["location"]["column"])
        for f in report["findings"]
    }
    assert places == {
        ("ipex-requirement", "install.ps1", 6, 25),
        ("ipex-wheel-index", "install.ps1", 6, 79),
    }
    results = json.loads(sarif.read_text())["runs"][0]["results"]
    regions = {
        (r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in results
    }
    assert regions == {("ipex-requirement", 6), ("ipex-wheel-index", 6)}


def test_a_requirements_file_a_batch_installer_names_is_read(tmp_path: Path) -> None:
    """``pip install -r deps\\intel.txt`` hands the list to pip, as a shell script's does: the
    list is read as requirements whatever its name."""
    write(
        tmp_path,
        {
            "install.bat": _crlf("%PYTHON% -m pip install -r deps\\intel.txt"),
            "deps/intel.txt": "intel-extension-for-pytorch==2.1.10\n",
        },
    )
    assert found(scan(tmp_path, SHIPPED)) == [
        ("deps/intel.txt", 1, "ipex-requirement", "intel-extension-for-pytorch")
    ]


ONEAPI = "C:\\Program Files (x86)\\Intel\\oneAPI"
IMPORT_ENV = (
    "ForEach-Object { if ($_ -match '^([^=]+)=(.*)$') { "
    "[System.Environment]::SetEnvironmentVariable($matches[1], $matches[2], 'Process') } }"
)


@pytest.mark.parametrize(
    ("name", "lines", "expected"),
    [
        # loaded into what runs next: cmd's "&& set" read back into PowerShell, a command run
        # in the same cmd.exe, a cmd left open, a helper that imports a batch file's environment
        (
            "run.ps1",
            [
                f"cmd /c '\"{ONEAPI}\\setvars.bat\" && set' | {IMPORT_ENV}",
                "& $PY -m pip install torch",
            ],
            [(1, "oneapi-setvars")],
        ),
        (
            "run.ps1",
            [f'cmd /c "\\"{ONEAPI}\\setvars.bat\\" && set" | {IMPORT_ENV}', "import-module torch"],
            [(1, "oneapi-setvars")],
        ),
        (
            "run.ps1",
            [
                "Import-Module Pscx",
                'Invoke-BatchFile "$env:ONEAPI_ROOT\\oneapi-vars.bat"',
                "python -c 'import torch'",
            ],
            [(2, "oneapi-setvars")],
        ),
        (
            "run.ps1",
            ['Invoke-CmdScript "$env:ONEAPI_ROOT\\setvars.bat" intel64', "pip install torch"],
            [(1, "oneapi-setvars")],
        ),
        (
            "webui.bat",
            ['cmd.exe /s /c ""%ONEAPI_ROOT%\\setvars.bat" && python -c "import torch""'],
            [(1, "oneapi-setvars")],
        ),
        (
            "webui.bat",
            ['start "oneAPI" cmd /k "%ONEAPI_ROOT%\\setvars.bat"', "rem torch"],
            [(1, "oneapi-setvars")],
        ),
        (
            "webui.bat",
            [
                'if exist "%ONEAPI_ROOT%\\setvars.bat" call "%ONEAPI_ROOT%\\setvars.bat"',
                "pip install torch",
            ],
            [(1, "oneapi-setvars")],
        ),
        # loads nothing, only says it, or is no run of torch beside it
        ("run.ps1", ['& "$env:ONEAPI_ROOT\\setvars.bat"', "python -c 'import torch'"], []),
        ("run.ps1", [f'cmd /c "{ONEAPI}\\setvars.bat"', "python -c 'import torch'"], []),
        ("run.ps1", ['# cmd /c "setvars.bat && set"', "python -c 'import torch'"], []),
        (
            "run.ps1",
            ['Write-Host "Run: cmd /k %ONEAPI_ROOT%\\setvars.bat"', "python -c 'import torch'"],
            [],
        ),
        ("run.ps1", ['#Invoke-BatchFile "$env:ONEAPI_ROOT\\setvars.bat"', "pip install torch"], []),
        (
            "run.ps1",
            ['if (Test-Path "$env:ONEAPI_ROOT\\setvars.bat") { $found = 1 }', "# torch"],
            [],
        ),
        (
            "build.ps1",
            [
                f"cmd /c '\"{ONEAPI}\\setvars.bat\" && set' | {IMPORT_ENV}",
                "cmake --build build",
                "# links torch",
            ],
            [],
        ),
        (
            "build.bat",
            [
                f'cmd /c ""{ONEAPI}\\setvars.bat" && icx-cl /fsycl kernel.cpp"',
                'python -c "import torch"',
            ],
            [],
        ),
        ("webui.bat", ['echo cmd /k "%ONEAPI_ROOT%\\setvars.bat"', "pip install torch"], []),
        ("webui.bat", ['cmd /k "%ONEAPI_ROOT%\\setvars.bat"', "pip install numpy"], []),
        (
            "webui.bat",
            ['call "%VENV%\\Lib\\site-packages\\oneccl_bindings_for_pytorch\\env\\setvars.bat"'],
            [],
        ),
    ],
)
def test_setvars_from_windows(
    tmp_path: Path, name: str, lines: list[str], expected: list[tuple[int, str]]
) -> None:
    """oneAPI's setvars.bat (or oneapi-vars.bat) loaded where torch is named, as a sourced
    setvars.sh is: in the same cmd.exe as what runs after it, or imported into PowerShell; not
    PowerShell's "& setvars.bat" (a child cmd.exe whose environment is gone when it returns),
    nor a build of the compiler stack, nor a message, comment or test of the path."""
    assert [f for f in _rules(tmp_path, name, *lines) if f[1] == "oneapi-setvars"] == expected


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        # written to a list pip then installs, or to a file the scan reads as such
        (
            [
                "(",
                "  echo torch==2.1.0.post0",
                "  echo intel-extension-for-pytorch==2.1.10+xpu",
                ") > requirements-xpu.txt",
            ],
            [(2, "intel-torch-build-pin"), (3, "ipex-requirement")],
        ),
        (
            [
                'if "%GPU%"=="arc" (',
                "    (",
                "        echo intel_extension_for_pytorch==2.1.40+xpu",
                "        echo --extra-index-url " + INDEX,
                '    ) >> "%~dp0requirements.txt"',
                ")",
            ],
            [(3, "ipex-requirement"), (4, "ipex-wheel-index")],
        ),
        (
            ["(echo intel-extension-for-pytorch==2.1.10& echo numpy)>>requirements\\intel.txt"],
            [(1, "ipex-requirement")],
        ),
        (
            [
                "echo intel-extension-for-pytorch==2.1.10 >> req.txt",
                "%PYTHON% -m pip install -r req.txt",
            ],
            [(1, "ipex-requirement")],
        ),
        (
            [
                'set "REQS=%TEMP%\\arc.lst"',
                'echo intel_extension_for_pytorch>"%REQS%"',
                'pip install -r "%REQS%"',
            ],
            [(2, "ipex-requirement")],
        ),
        (
            [
                "echo pip install intel_extension_for_pytorch> install_arc.bat",
                "call install_arc.bat",
            ],
            [(1, "ipex-requirement")],
        ),
        # shown on the console, thrown away, or written to a log: a message
        (
            [
                "(",
                "  echo Installing intel_extension_for_pytorch for your Arc GPU...",
                "  echo This can take a while.",
                ")",
                "pip install torch",
            ],
            [],
        ),
        (
            [
                "if errorlevel 1 (",
                "    echo Failed to install intel_extension_for_pytorch ^(see log^)",
                "    exit /b 1",
                ") else (",
                "    echo intel_extension_for_pytorch installed",
                ")",
            ],
            [],
        ),
        (["echo Installing intel_extension_for_pytorch >> install.log"], []),
        (["(echo pip install intel_extension_for_pytorch failed) >> %LOGFILE%"], []),
        (["echo intel_extension_for_pytorch missing 1>&2"], []),
        (["echo intel_extension_for_pytorch 2>nul"], []),
        (["echo intel-extension-for-pytorch==2.1.10 > nul"], []),
        (["echo intel-extension-for-pytorch==2.1.10 >> README.md"], []),
        (
            [
                "(",
                "  echo intel-extension-for-pytorch==2.1.10",
                ") > notes.txt",
                "pip install -r requirements.txt",
            ],
            [],
        ),
        (["echo y| pip uninstall intel_extension_for_pytorch"], []),
    ],
)
def test_batch_echo_into_files_and_groups(
    tmp_path: Path, lines: list[str], expected: list[tuple[int, str]]
) -> None:
    """An ``echo`` is read where what it writes goes to a file that is read: a list pip is
    handed in the same script or one named as a list, a script, by its own redirection or by
    its group's (a ``(`` ... ``)`` over lines); a message to the console, ``nul``, the error
    stream or a log is not, inside a group or out."""
    assert _rules(tmp_path, "install.bat", *lines) == expected


PIN = "intel-extension-for-pytorch==2.1.10+xpu"


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        # written to a list pip reads or a script: read as what it is
        ([f'"{PIN}" | Out-File requirements.txt -Encoding UTF8'], [(1, "ipex-requirement")]),
        (
            [
                '"torch==2.1.0.post0" | Out-File reqs.lst',
                f'"{PIN}" >> reqs.lst',
                "pip install -r reqs.lst",
            ],
            [(1, "intel-torch-build-pin"), (2, "ipex-requirement")],
        ),
        ([f"'{PIN}' | Add-Content $root\\requirements.txt"], [(1, "ipex-requirement")]),
        (
            [f'Set-Content -Path $req -Value "{PIN}"', "& $PY -m pip install -r $req"],
            [(1, "ipex-requirement")],
        ),
        (
            ['@"', "torch==2.1.0.post0", PIN, '"@ | Out-File requirements.txt -Encoding utf8'],
            [(2, "intel-torch-build-pin"), (3, "ipex-requirement")],
        ),
        (
            [f'[IO.File]::WriteAllLines("$PSScriptRoot\\requirements-xpu.txt", @("{PIN}"))'],
            [(1, "ipex-requirement")],
        ),
        (
            [f'Write-Output "pip install {PIN}" | Out-File -FilePath setup_xpu.ps1'],
            [(1, "ipex-requirement")],
        ),
        # to the console, thrown away, the error stream or a log: a message
        ([f'Write-Output "installing {PIN}" > $null'], []),
        ([f'"installing {PIN}" | Out-File -Append install.log'], []),
        ([f'"installing {PIN}" | Out-Null'], []),
        ([f'Add-Content -Path $LogFile -Value "$(Get-Date) installing {PIN}"'], []),
        ([f'Add-Content -Path "$env:TEMP\\setup.log" -Value "installing {PIN}"'], []),
        ([f'"installing {PIN}" >> "$PSScriptRoot\\install.log"'], []),
        ([f'Write-Host "installing {PIN}" *> $null'], []),
        (['@"', f"installing {PIN}", '"@ | Out-File -FilePath install.log'], []),
        ([f'[IO.File]::AppendAllText("$root\\setup.log", "installing {PIN}")'], []),
        ([f'"{PIN}" | Tee-Object -FilePath notes.md'], []),
    ],
)
def test_powershell_writes_to_files(
    tmp_path: Path, lines: list[str], expected: list[tuple[int, str]]
) -> None:
    """A string, a printer's output or a here-string written with ``Out-File``,
    ``Set-Content`` / ``Add-Content``, ``>`` / ``>>`` or ``[IO.File]::Write*`` is read where the
    file is (a list pip is handed in the same script, a requirement list, a script); to
    ``$null``, ``Out-Null``, a log or a document it is a message."""
    assert _rules(tmp_path, "install.ps1", *lines) == expected


@pytest.mark.parametrize(
    ("name", "lines", "expected"),
    [
        (
            "run.ps1",
            [
                f'$setvars = "{ONEAPI}\\setvars.bat"',
                f'cmd /c "`"$setvars`" && set" | {IMPORT_ENV}',
                "python -c 'import torch'",
            ],
            [(2, "oneapi-setvars")],
        ),
        (
            "run.ps1",
            [
                '$vars = Join-Path $env:ONEAPI_ROOT "setvars.bat"',
                "Invoke-BatchFile $vars",
                "pip install torch",
            ],
            [(2, "oneapi-setvars")],
        ),
        (
            "webui.bat",
            [f"set SETVARS={ONEAPI}\\setvars.bat", 'call "%SETVARS%"', "pip install torch"],
            [(2, "oneapi-setvars")],
        ),
        (
            "webui.bat",
            [
                f'set "ONEAPI_VARS={ONEAPI}\\setvars.bat"',
                'call "!oneapi_vars!" intel64',
                "pip install torch",
            ],
            [(2, "oneapi-setvars")],
        ),
        # PowerShell's own "& $setvars" loads nothing; reassigned; not sourced; a message
        (
            "run.ps1",
            [f'$setvars = "{ONEAPI}\\setvars.bat"', "& $setvars", "python -c 'import torch'"],
            [],
        ),
        (
            "webui.bat",
            [
                f"set SETVARS={ONEAPI}\\setvars.bat",
                "set SETVARS=env.bat",
                'call "%SETVARS%"',
                "pip install torch",
            ],
            [],
        ),
        (
            "webui.bat",
            [
                f"set SETVARS={ONEAPI}\\setvars.bat",
                'if exist "%SETVARS%" echo found',
                "pip install torch",
            ],
            [],
        ),
        (
            "webui.bat",
            [
                f"set SETVARS={ONEAPI}\\setvars.bat",
                'echo call "%SETVARS%" first',
                "pip install torch",
            ],
            [],
        ),
        (
            "webui.bat",
            [
                f"set SETVARS={ONEAPI}\\setvars.bat",
                'call "%SETVARS%"',
                "cmake --build build",
                "rem torch",
            ],
            [],
        ),
    ],
)
def test_setvars_held_in_a_variable_from_windows(
    tmp_path: Path, name: str, lines: list[str], expected: list[tuple[int, str]]
) -> None:
    """The path of setvars.bat held in a variable of the same script (its last assignment
    before the use, taken as written) is found where the literal path would be."""
    assert [f for f in _rules(tmp_path, name, *lines) if f[1] == "oneapi-setvars"] == expected
