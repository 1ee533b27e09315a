"""Text files: each rule's regexes line by line, for the kinds the rule applies to, located by
line and span."""

from __future__ import annotations

from pathlib import Path

from scan_rules import SAMPLE, found, rule, scan, write

from ipex_doctor.knowledge.code_rules import CodeRules
from ipex_doctor.model.code import FileKind


def test_text_rules_apply_to_their_kinds_only(tmp_path: Path) -> None:
    """pip-ipex reads requirements, Dockerfiles, shell, conda, pyproject, setup.cfg; the
    accelerate rule reads configs; a Python comment or a README is not theirs."""
    write(
        tmp_path,
        {
            "requirements-xpu.txt": "torch==2.8.0\nintel-extension-for-pytorch==2.8.10+xpu\n",
            "docker/Dockerfile.xpu": "FROM ubuntu\nRUN pip install intel_extension_for_pytorch\n",
            "scripts/install.sh": "#!/bin/sh\npython -m pip install intel-extension-for-pytorch\n",
            "environment.yml": "dependencies:\n  - pip:\n    - intel-extension-for-pytorch\n",
            "pyproject.toml": '[project]\ndependencies = ["intel-extension-for-pytorch>=2.8"]\n',
            "setup.cfg": "[options]\ninstall_requires =\n    intel-extension-for-pytorch\n",
            "accelerate.yaml": "compute_environment: LOCAL_MACHINE\nipex: true\n",
            "other.yaml": "dependencies: [intel-extension-for-pytorch]\n",
            "code.py": "# pip install intel-extension-for-pytorch\n",
            "README.md": "pip install intel-extension-for-pytorch\n",
        },
    )
    assert found(scan(tmp_path)) == [
        ("accelerate.yaml", 2, "accelerate-ipex", "ipex: true"),
        ("docker/Dockerfile.xpu", 2, "pip-ipex", "intel_extension_for_pytorch"),
        ("environment.yml", 3, "pip-ipex", "intel-extension-for-pytorch"),
        ("pyproject.toml", 2, "pip-ipex", "intel-extension-for-pytorch"),
        ("requirements-xpu.txt", 2, "pip-ipex", "intel-extension-for-pytorch"),
        ("scripts/install.sh", 2, "pip-ipex", "intel-extension-for-pytorch"),
        ("setup.cfg", 3, "pip-ipex", "intel-extension-for-pytorch"),
    ]


def test_a_text_match_spans_its_first_occurrence_once_per_rule_and_line(tmp_path: Path) -> None:
    """Columns count characters; a second occurrence on the line is not a second match."""
    write(
        tmp_path,
        {"run.sh": "écho; pip install intel-extension-for-pytorch intel_extension_for_pytorch\r\n"},
    )
    (match,) = scan(tmp_path).matches
    at = match.location
    assert (at.line, at.column, at.end_line, at.end_column) == (1, 18, 0, 45)
    assert match.snippet[at.column : at.end_column] == "intel-extension-for-pytorch"
    assert match.snippet.endswith("intel_extension_for_pytorch")  # no line end kept


def test_case_insensitive_rules_and_rules_without_a_literal(tmp_path: Path) -> None:
    """A ``(?i)`` rule finds any case; a regex with no usable literal reads every file."""
    rules = CodeRules(
        (
            rule("ci", text=[r"(?i)IPEX_ENABLED\s*=\s*1"], applies_to=[FileKind.SHELL]),
            rule("any", text=[r"xpu|XPU"], applies_to=[FileKind.DOCKERFILE]),
        )
    )
    write(
        tmp_path,
        {
            "env.sh": "export ipex_enabled=1\nexport OTHER=1\n",
            "Dockerfile": "ENV DEVICE=XPU\n",
        },
    )
    result = scan(tmp_path, rules)
    assert found(result) == [
        ("Dockerfile", 1, "any", "XPU"),
        ("env.sh", 1, "ci", "ipex_enabled=1"),
    ]
    assert result.files_parsed == 2


def test_a_bom_and_old_mac_line_ends_are_text(tmp_path: Path) -> None:
    """UTF-8 with a BOM decodes; ``\\r`` alone ends a line as Python counts lines."""
    write(tmp_path, {"requirements.txt": "\ufefftorch\rintel-extension-for-pytorch\r".encode()})
    assert found(scan(tmp_path, SAMPLE)) == [
        ("requirements.txt", 2, "pip-ipex", "intel-extension-for-pytorch")
    ]


def test_a_commented_out_line_runs_nothing_and_is_not_a_match(tmp_path: Path) -> None:
    """``# pip install ...`` in a Dockerfile, a shell script, a workflow YAML or requirements is
    a comment, not an install; the same text on a live line is."""
    write(
        tmp_path,
        {
            "Dockerfile": "FROM ubuntu\n#   RUN pip install intel-extension-for-pytorch\n",
            "run.sh": "  # pip install intel-extension-for-pytorch\npip install intel-extension-for-pytorch\n",
            "requirements.txt": "# intel-extension-for-pytorch==2.8.0\ntorch\n",
        },
    )
    assert found(scan(tmp_path)) == [("run.sh", 2, "pip-ipex", "intel-extension-for-pytorch")]


def test_the_ipex_1x_find_links_pages_are_intel_s_wheel_index(tmp_path: Path) -> None:
    """IPEX 1.x documented ``-f https://developer.intel.com/ipex-whl-stable-xpu`` (and -cpu,
    -dev); a kept-aside project (Nuullll/ipex-sd-docker-for-arc-gpu) installed from it. Other
    pages of developer.intel.com are not the index."""
    from ipex_doctor.knowledge import code_rules

    write(
        tmp_path,
        {
            "install.sh": "#!/bin/sh\n"
            "pip install torch==1.13.0a0 intel_extension_for_pytorch==1.13.120+xpu "
            "-f https://developer.intel.com/ipex-whl-stable-xpu\n"
            "pip install -f https://developer.intel.com/ipex-whl-dev something-else\n"
            "curl -O https://developer.intel.com/articles/ipex-whl-notes.html\n",
        },
    )
    hits = [
        (line, rule_id)
        for _, line, rule_id, _ in found(scan(tmp_path, code_rules.load()))
        if rule_id == "ipex-wheel-index"
    ]
    assert hits == [(2, "ipex-wheel-index"), (3, "ipex-wheel-index")]


def test_a_web_uis_use_ipex_is_the_uis_own_switch(tmp_path: Path) -> None:
    """``--use-ipex`` in a Stable Diffusion web UI's launcher is the UI's switch, not
    transformers' argument: AUTOMATIC1111's and Forge's install IPEX 2.0.110 for it
    (``webui-use-ipex``); SD.Next's installs upstream torch's XPU wheels, so a file that names
    SD.Next reports neither."""
    from ipex_doctor.knowledge import code_rules

    write(
        tmp_path,
        {
            "webui-user.bat": "@echo off\nset COMMANDLINE_ARGS=--use-ipex --skip-torch-cuda-test\n",
            "forge.sh": "# stable-diffusion-webui-forge on Arc\n./webui.sh --use-ipex\n",
            "sd_next_a770.bat": "REM --- SD.Next command line args ---\n"
            "set COMMANDLINE_ARGS=--use-ipex --backend diffusers\n",
            "launch.sh": "git clone https://github.com/vladmandic/sdnext\n./webui.sh --use-ipex\n",
            "train.sh": "python train.py --use-ipex --bf16\n",
        },
    )
    assert [
        (path, line, rule) for path, line, rule, _ in found(scan(tmp_path, code_rules.load()))
    ] == [
        ("forge.sh", 2, "webui-use-ipex"),
        ("train.sh", 1, "use-ipex-flag"),
        ("webui-user.bat", 2, "webui-use-ipex"),
    ]
