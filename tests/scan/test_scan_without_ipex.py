"""False alarms found by scanning real trees that do not use IPEX, or no longer do (docs/scan.md,
"False alarms on trees without IPEX"): each real line (trimmed) must yield no finding, and the
true use beside it must still be found."""

from __future__ import annotations

from pathlib import Path

from scan_rules import found, scan, write

from ipex_doctor.knowledge import code_rules

SHIPPED = code_rules.load()


def _rules(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int, str]]:
    write(tmp_path, files)
    return [(path, line, rule) for path, line, rule, _ in found(scan(tmp_path, SHIPPED))]


def test_a_test_that_the_requirements_no_longer_name_intels_index_installs_nothing(
    tmp_path: Path,
) -> None:
    """bmaltais/kohya_ss's tests/test_xpu_requirements.py, after it moved off IPEX, asserts that
    its requirements name neither IPEX nor Intel's wheel index: the index's host there is a
    value the test searches for, as an operand of ``not in`` is. An install command beside it
    that uses the index is still found."""
    source = (
        "import subprocess, unittest\n"
        "class TestNativeXpuRequirements(unittest.TestCase):\n"
        "    def test_file_is_native_xpu(self):\n"
        "        text = _requirements_text(filename)\n"
        '        self.assertNotIn("pytorch-extension.intel.com", text)\n'
        '        self.assertIn("download.pytorch.org/whl/xpu", text)\n'
        '        assert not text.startswith("--extra-index-url https://pytorch-extension.intel'
        '.com/release-whl/stable/xpu/us/")\n'
        "def install():\n"
        '    subprocess.run(["pip", "install", "torch", "--extra-index-url",\n'
        '                    "https://pytorch-extension.intel.com/release-whl/stable/xpu/us/"])\n'
    )
    assert _rules(tmp_path, {"tests/test_xpu_requirements.py": source}) == [
        ("tests/test_xpu_requirements.py", 10, "ipex-wheel-index"),
    ]


def test_a_linters_list_of_modules_to_leave_unchecked_is_no_requirement(tmp_path: Path) -> None:
    """intel/auto-round's pylint step (.azure-pipelines/scripts/codeScan/pylint/pylint.sh) tells
    pylint which imports not to check, IPEX's among them: nothing is installed. The install in
    the same script is still found."""
    script = (
        "pip install intel-extension-for-pytorch==2.8.0\n"
        "python -m pylint -f json --disable=R,C,W,E1129 --enable=line-too-long \\\n"
        "    --max-line-length=120 --extension-pkg-whitelist=numpy --ignored-classes=TensorProto"
        " \\\n"
        "    --ignored-modules=tensorflow,keras,torch,torch.quantization,torchvision,"
        "intel_extension_for_pytorch,neural_compressor \\\n"
        "    /auto-round/auto_round > /tmp/lint.json\n"
        "pylint --extension-pkg-allow-list=intel_extension_for_pytorch auto_round\n"
    )
    assert _rules(tmp_path, {"pylint.sh": script}) == [("pylint.sh", 1, "ipex-requirement")]


def test_setvars_for_a_build_with_no_build_isolation_is_the_builds(tmp_path: Path) -> None:
    """intel/intel-xpu-backend-for-triton's install-benchmarks action sources oneAPI's setvars.sh
    for steps that build its benchmarks' SYCL extension against the installed torch
    (``pip install --no-build-isolation .``); torch is named only in a comment. oneAPI's
    environment is what that build needs. The same steps that install torch's wheels and build
    nothing are still the pitfall."""
    action = (
        "runs:\n"
        "  using: composite\n"
        "  steps:\n"
        "    - name: Install benchmarks wheel (same run)\n"
        '      shell: bash -noprofile --norc -eo pipefail -c "source /opt/intel/oneapi/setvars.sh'
        ' > /dev/null; source {0}"\n'
        "      run: |\n"
        "        # because it would reinstall torch and clobber the XPU-specific PyTorch build.\n"
        "        pip install *.whl\n"
        "    - name: Build benchmarks from source\n"
        '      shell: bash -noprofile --norc -eo pipefail -c "source /opt/intel/oneapi/setvars.sh'
        ' > /dev/null; source {0}"\n'
        "      run: |\n"
        '        (cd "$GITHUB_WORKSPACE/benchmarks" && pip install --no-build-isolation .)\n'
    )
    wheels_only = action.replace("--no-build-isolation ", "")
    assert _rules(
        tmp_path,
        {
            ".github/actions/install-benchmarks/action.yml": action,
            ".github/actions/install-wheels/action.yml": wheels_only,
        },
    ) == [
        (".github/actions/install-wheels/action.yml", 5, "oneapi-setvars"),
        (".github/actions/install-wheels/action.yml", 10, "oneapi-setvars"),
    ]


def test_the_conv_add_overloads_of_qconv2d_pointwise_were_not_renamed(tmp_path: Path) -> None:
    """torch 2.8's own Inductor (torch/_inductor/fx_passes/quantization.py, mkldnn_lowerings.py)
    names qconv2d_pointwise's .binary and .binary_tensor overloads, which qconv_pointwise does
    not have: the rename the rule reports does not reach them, and its advice for them was to
    leave them. An alias of the overload is no use either; the default overload, a user's .tensor and
    the op itself beside them are still found."""
    source = (
        "import torch\n"
        "from torch.ops import onednn\n"
        "aten = torch.ops.aten\n"
        "computation_ops = [\n"
        "    torch.ops.onednn.qconv2d_pointwise.binary,  # computation_op\n"
        "    torch.ops.onednn.qconv2d_pointwise.binary_tensor,\n"
        "]\n"
        "binary = onednn.qconv2d_pointwise.binary\n"
        "binary(x, 1.0, 0, w, s, z, b, None, 1.0, 0, 1.0, 0, 1, 1, 1, 1, None, 'sum', 1.0)\n"
        "y = torch.ops.onednn.qconv2d_pointwise.default(x, 1.0, 0)\n"
        "z = onednn.qconv2d_pointwise.tensor(x, 1.0, 0)\n"
        "q = torch.ops.onednn.qconv2d_pointwise(*args)\n"
    )
    assert _rules(tmp_path, {"quantization.py": source}) == [
        ("quantization.py", 10, "qconv2d-pointwise-op"),
        ("quantization.py", 11, "qconv2d-pointwise-op"),
        ("quantization.py", 12, "qconv2d-pointwise-op"),
    ]


def test_a_deprecated_context_manager_compared_with_a_value_is_recognised_not_used(
    tmp_path: Path,
) -> None:
    """torch 2.8's own Dynamo (torch/_dynamo/variables/ctx_manager.py, torch.py) compares the
    context manager it traces with torch.cpu.amp.autocast: that recognises the deprecated name
    (for the user code that still enters it), it does not call it, and replacing it would break
    the recognition. An IPEX-only name compared so is still IPEX's (looking it up fails without
    IPEX), and the deprecated name entered beside them is still found."""
    source = (
        "import torch\n"
        "def create(func, args, kwargs):\n"
        "    assert func in [\n"
        "        torch.amp.autocast_mode.autocast,\n"
        "        torch.cuda.amp.autocast,\n"
        "        torch.cpu.amp.autocast,\n"
        "    ]\n"
        '    arg = "cpu" if func is torch.cpu.amp.autocast else "cuda"\n'
        "    if func not in (torch.cpu.amp.autocast_mode.autocast,):\n"
        "        return None\n"
        "    if func == torch.xpu.amp.autocast:\n"
        "        return None\n"
        "    with torch.cpu.amp.autocast(dtype=torch.bfloat16):\n"
        "        return func(*args, **kwargs)\n"
    )
    assert _rules(tmp_path, {"ctx_manager.py": source}) == [
        ("ctx_manager.py", 11, "xpu-amp-autocast"),
        ("ctx_manager.py", 13, "cpu-amp-autocast"),
    ]
