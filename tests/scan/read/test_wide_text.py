"""Wide text: a PowerShell installer or a requirement list saved as UTF-16 (Windows PowerShell's
ISE, Notepad, ``pip freeze > requirements.txt`` in Windows PowerShell) or UTF-32, with its byte
order mark, is read as its program reads it: by the mark. Its findings are at the lines and
columns of its text; a file of a kind whose program refuses wide text, or that does not decode,
is named in the skipped files with why, never dropped silently.

The PowerShell lines are mason369/music-to-midi's install.ps1 as its history holds it in
UTF-16 LE (commit 2430b2b), a little shortened; its Chinese messages are kept, CRLF and all.
"""

from __future__ import annotations

import codecs

import pytest
from scan_rules import found, scan, write

from ipex_doctor.knowledge import code_rules
from ipex_doctor.scan.read.source import decode_text

SHIPPED = code_rules.load()
INDEX = "https://pytorch-extension.intel.com/release-whl/stable/xpu/us/"
INSTALL_PS1 = (
    "# --- 第 8 步/共 13 步：Intel GPU 加速（可选）---",
    'Write-Info "第 8 步/共 13 步  检测 Intel GPU 加速（可选）..."',
    '$ipexSiteDir = Join-Path $VENV_DIR "Lib\\site-packages\\intel_extension_for_pytorch"',
    "if (-not $ipexInstalled) {",
    '    Write-Info "正在尝试安装 intel_extension_for_pytorch（Intel GPU 加速）..."',
    "    try {",
    f'        & "$PIP" install intel_extension_for_pytorch --extra-index-url {INDEX}',
    "        if ($LASTEXITCODE -ne 0) {",
    '            & "$PIP" uninstall intel_extension_for_pytorch -y 2>&1 | Out-Null',
    "        }",
    "    } catch {",
    '        Write-Warn "intel_extension_for_pytorch 安装失败（可选）"',
    "    }",
    "}",
)
INSTALL_LINE = 7
WIDE = {
    "utf-16-le": codecs.BOM_UTF16_LE,
    "utf-16-be": codecs.BOM_UTF16_BE,
    "utf-32-le": codecs.BOM_UTF32_LE,
    "utf-32-be": codecs.BOM_UTF32_BE,
    "utf-8": codecs.BOM_UTF8,
}


def _saved(encoding: str, *lines: str) -> bytes:
    """``lines`` with CRLF ends, as a Windows editor saves them in ``encoding``, BOM first."""
    return WIDE[encoding] + "".join(f"{line}\r\n" for line in lines).encode(encoding)


@pytest.mark.parametrize("encoding", sorted(WIDE))
def test_a_powershell_installer_is_read_by_its_byte_order_mark(tmp_path, encoding) -> None:
    """The install is found at its own line and column, its snippet its text; the messages,
    the probe of site-packages and the uninstall around it are not."""
    write(tmp_path, {"install.ps1": _saved(encoding, *INSTALL_PS1)})
    result = scan(tmp_path, SHIPPED)
    assert not result.skipped
    places = [(m.rule_id, m.location.line, m.location.column, m.snippet) for m in result.matches]
    install = INSTALL_PS1[INSTALL_LINE - 1]
    assert places == [
        ("ipex-requirement", INSTALL_LINE, install.index("intel_"), install),
        ("ipex-wheel-index", INSTALL_LINE, install.index("pytorch-extension"), install),
    ]


def test_a_wide_install_on_the_first_line_is_found(tmp_path) -> None:
    """The mark is not part of the first line (no column is shifted by it)."""
    write(tmp_path, {"setup.ps1": _saved("utf-16-le", "pip install intel-extension-for-pytorch")})
    [match] = scan(tmp_path, SHIPPED).matches
    assert (match.location.line, match.location.column) == (1, 12)


def test_a_requirement_list_written_by_windows_powershell_is_read(tmp_path) -> None:
    """``pip freeze > requirements.txt`` in Windows PowerShell writes UTF-16 LE; pip reads it
    by its mark, and so does the scan."""
    freeze = ("torch==2.1.0", "intel-extension-for-pytorch==2.1.10+xpu", "numpy==1.26.4")
    write(tmp_path, {"requirements.txt": _saved("utf-16-le", *freeze)})
    assert found(scan(tmp_path, SHIPPED)) == [
        ("requirements.txt", 2, "ipex-requirement", "intel-extension-for-pytorch")
    ]


def test_a_wide_batch_file_runs_nothing_and_is_said(tmp_path) -> None:
    """cmd.exe reads a batch file byte by byte and stops at the first NUL: a UTF-16 one runs
    nothing, so it has no finding, and the skipped files say why."""
    write(tmp_path, {"install.bat": _saved("utf-16-le", "pip install intel_extension_for_pytorch")})
    result = scan(tmp_path, SHIPPED)
    assert not result.matches
    [skip] = result.skipped
    assert skip.path == "install.bat"
    assert "cmd.exe does not run" in skip.reason


@pytest.mark.parametrize("name", ["install.sh", "train.py", "config.yaml"])
def test_other_kinds_of_wide_file_are_still_binary(tmp_path, name) -> None:
    """bash and Python refuse UTF-16 source, and no Windows tool writes the other kinds so: such
    a file is skipped as binary, said, as before."""
    write(tmp_path, {name: _saved("utf-16-le", "pip install intel_extension_for_pytorch")})
    result = scan(tmp_path, SHIPPED)
    assert not result.matches
    assert [(s.path, s.reason) for s in result.skipped] == [(name, "binary (contains NUL bytes)")]


def test_a_wide_file_that_does_not_decode_is_said(tmp_path) -> None:
    """A UTF-16 script cut at an odd byte (a truncated copy) is named with why, not dropped."""
    data = _saved("utf-16-le", "pip install intel_extension_for_pytorch")[:-1]
    write(tmp_path, {"install.ps1": data})
    result = scan(tmp_path, SHIPPED)
    assert not result.matches
    [skip] = result.skipped
    assert skip.reason.startswith("cannot be decoded: not valid utf-16")


def test_decode_text_reads_each_mark_and_utf8_without_one() -> None:
    text = "a\r\nb é\n"
    for encoding in WIDE:
        assert decode_text(WIDE[encoding] + text.encode(encoding)) == text
    assert decode_text(text.encode("utf-8")) == text
    # two NULs that are no UTF-32 mark: UTF-8 text, whatever follows
    assert decode_text(b"\0\0ab") == "\0\0ab"


def test_a_wide_installer_names_a_wide_list_to_pip(tmp_path) -> None:
    """The list a UTF-16 installer hands to pip (``-r``) is found by its name in the installer's
    text, and read, UTF-16 too, as a requirement list."""
    write(
        tmp_path,
        {
            "install.ps1": _saved("utf-16-le", '& "$PIP" install -r deps\\arc.txt'),
            "deps/arc.txt": _saved("utf-16-le", "intel-extension-for-pytorch==2.1.10"),
        },
    )
    assert found(scan(tmp_path, SHIPPED)) == [
        ("deps/arc.txt", 1, "ipex-requirement", "intel-extension-for-pytorch")
    ]
