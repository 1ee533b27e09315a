"""The rules on lines real maintainers removed when they moved off IPEX (the development part of
tests/assets/scan_removals.yaml), each with the near-misses beside it that must stay quiet."""

from __future__ import annotations

from pathlib import Path

import pytest
from scan_rules import found, scan, write

from ipex_doctor.knowledge import code_rules

SHIPPED = code_rules.load()


def _rules(tmp_path: Path, files: dict[str, str], **options: object) -> list[tuple[str, int, str]]:
    write(tmp_path, files)
    result = scan(tmp_path, SHIPPED, **options)
    return [(path, line, rule) for path, line, rule, _ in found(result)]


def test_optimum_intel_ipex_models_are_found_at_their_import(tmp_path: Path) -> None:
    """optimum-intel's tests and notebooks import the IPEX classes by name; the import is a
    finding of its own, besides every use."""
    source = (
        "from optimum.intel import IPEXModelForCausalLM, OVModelForCausalLM\n"
        "from optimum.intel.ipex.modeling_base import (\n"
        "    IPEXModelForAudioClassification,\n"
        ")\n"
        "IPEX_MODEL_CLASS = IPEXModelForCausalLM\n"
        'model = OVModelForCausalLM.from_pretrained("gpt2")\n'
    )
    assert _rules(tmp_path, {"test_modeling.py": source}) == [
        ("test_modeling.py", 1, "optimum-intel-ipex-import"),
        ("test_modeling.py", 2, "optimum-intel-ipex-import"),
        ("test_modeling.py", 5, "optimum-intel-ipex-models"),
    ]


def test_deepspeed_hands_on_ipex_objects(tmp_path: Path) -> None:
    """DeepSpeed's accelerator returned torch.xpu.amp and built intel_extension_for_deepspeed's
    accelerator; torch.amp and torch.xpu.is_available are upstream."""
    source = (
        "import torch\n"
        "from intel_extension_for_deepspeed import XPU_Accelerator\n"
        "def amp():\n"
        "    return torch.xpu.amp\n"
        "def upstream():\n"
        "    return torch.amp, torch.xpu.is_available()\n"
        "ds_accelerator = XPU_Accelerator()\n"
    )
    assert _rules(tmp_path, {"accelerator.py": source}) == [
        ("accelerator.py", 2, "ipex-deepspeed-import"),
        ("accelerator.py", 4, "xpu-amp-module"),
        ("accelerator.py", 7, "ipex-deepspeed-api"),
    ]


def test_a_value_assigned_from_ipex_is_reported_where_it_is_taken(tmp_path: Path) -> None:
    """ai-reference-models' run_llm.py: a quantization config taken from ipex.quantization is
    reported where it is assigned and where an alias of an IPEX function is called, not again
    at every line that hands the variable on (``quantization_config=qconfig,``: a repeat
    placed on an argument line, which a reader takes for a false alarm)."""
    source = (
        "import intel_extension_for_pytorch as ipex\n"
        "qconfig = ipex.quantization.default_static_qconfig_mapping\n"
        "model = ipex.llm.optimize(\n"
        "    model,\n"
        "    quantization_config=qconfig,\n"
        ")\n"
        "prepare = ipex.quantization.prepare\n"
        "prepared = prepare(model, qconfig)\n"
        "keep(prepare)\n"
    )
    assert _rules(tmp_path, {"run_llm.py": source}) == [
        ("run_llm.py", 1, "ipex-import"),
        ("run_llm.py", 2, "ipex-quantization"),
        ("run_llm.py", 3, "ipex-llm-optimize"),
        ("run_llm.py", 7, "ipex-quantization"),
        ("run_llm.py", 8, "ipex-quantization"),
    ]


def test_backend_ipex_is_told_apart_by_what_receives_it(tmp_path: Path) -> None:
    """torch.compile's backend needs IPEX's dynamo backend; langchain's HuggingFacePipeline and
    Neural Compressor's configs select their own IPEX path; other backends are nobody's."""
    source = (
        "import torch\n"
        'model = torch.compile(model, backend="ipex")\n'
        "hf = HuggingFacePipeline.from_model_id(\n"
        '    model_id="gpt2", task="text-generation",\n'
        '    backend="ipex",\n'
        ")\n"
        'config = PostTrainingQuantConfig(approach="static", backend="ipex")\n'
        'model = torch.compile(model, backend="inductor")\n'
        'if config.backend == "ipex":\n'
        "    pass\n"
    )
    assert _rules(tmp_path, {"pipe.py": source}) == [
        ("pipe.py", 2, "torch-compile-ipex-backend"),
        ("pipe.py", 5, "ipex-backend-option"),
        ("pipe.py", 7, "ipex-backend-option"),
    ]


def test_ccl_chosen_as_a_value_is_found(tmp_path: Path) -> None:
    """accelerate chose "ccl" as a value before init_process_group; a test of the value is the
    project's own switch, not a choice."""
    source = (
        'if backend in (None, "ccl"):\n'
        '    backend = "ccl"\n'
        'self.dist_backend = "ccl"\n'
        'kwargs = {"backend": "ccl", "world_size": 2}\n'
        'mode = "ccl"\n'
    )
    assert _rules(tmp_path, {"state.py": source}) == [
        ("state.py", 2, "ccl-backend"),
        ("state.py", 3, "ccl-backend"),
        ("state.py", 4, "ccl-backend"),
    ]


def test_a_name_of_a_specific_rule_is_not_the_catch_alls(tmp_path: Path) -> None:
    """A method of a class a specific rule names (ai-reference-models' DLRM) is that rule's
    finding; a name no rule names is the catch-all's."""
    source = (
        "import intel_extension_for_pytorch as ipex\n"
        "emb = ipex.nn.modules.MergedEmbeddingBagWithSGD.from_embeddingbag_list(emb, lr=0.1)\n"
        "auroc = ipex._C.roc_auc_score(labels, preds)\n"
    )
    assert _rules(tmp_path, {"dlrm.py": source}) == [
        ("dlrm.py", 1, "ipex-import"),
        ("dlrm.py", 2, "ipex-merged-embeddingbag"),
        ("dlrm.py", 3, "ipex-other-api"),
    ]


@pytest.mark.parametrize(
    ("name", "text", "line", "rule"),
    [
        ("0_28_0_mpi.yaml", "compute_environment: LOCAL_MACHINE\nipex_config:\n  ipex: true\n", 2, "accelerate-ipex-config"),
        ("tests.yaml", 'test:\n  cmd: python -c "import transformers;assert transformers.utils.import_utils.is_ipex_available()"\n', 2, "ipex-python-command"),
        ("launch.sh", "export ACCELERATE_USE_IPEX=true\naccelerate launch train.py\n", 1, "accelerate-ipex-env"),
    ],
    ids=["accelerate-config", "test-runner", "launch-environment"],
)  # fmt: skip
def test_settings_and_commands_in_config_files(
    tmp_path: Path, name: str, text: str, line: int, rule: str
) -> None:
    assert (name, line, rule) in _rules(tmp_path, {name: text})


@pytest.mark.parametrize(
    "source",
    [
        'cmd = ["intel-extension-for-pytorch==2.6.10+xpu"]\n',
        'idx_url = "https://pytorch-extension.intel.com/release-whl/stable/xpu/us/"\n',
        'os.system("ipexrun --ninstances 2 train.py")\n',
        "if is_ipex_available():\n    pass\n",
        "if HAS_IPEX:\n    pass\n",
        'env = {"ACCELERATE_USE_IPEX": "true"}\n',
        'dist.init_process_group(backend="ccl")\n',
        'hf = HuggingFacePipeline(backend="ipex")\n',
    ],
    ids=["distribution", "index", "launcher", "helper", "flag", "environment", "ccl", "ipex"],
)
def test_the_prefilter_admits_every_spelling_the_rules_match(tmp_path: Path, source: str) -> None:
    """A file whose only IPEX use is one of these spellings is parsed (the prefilter is derived
    from every rule: its names, its regexes' literals, its patterns' words) and found."""
    write(tmp_path, {"installer.py": source, "plain.py": "import json\nprint(json.dumps({}))\n"})
    result = scan(tmp_path, SHIPPED)
    assert result.files_parsed == 1
    assert [m.location.path for m in result.matches] == ["installer.py"]


def test_the_oneccl_bindings_own_setvars_goes_with_the_bindings(tmp_path: Path) -> None:
    """cloudtik's RNN-T training script sources the setvars.sh the oneCCL bindings install
    beside themselves: it is the bindings' (drop it with them; gloo or xccl), not oneAPI's
    setvars that torch's pip runtime no longer needs (a reader rejected that advice there). A
    oneAPI setvars.sh in the same script is still oneAPI's; Horovod's test image sources the
    oneCCL it built from source to build against it: neither oneAPI's nor the bindings'. The
    ``python -c`` that imports the bindings to find them is a command's Python (no install)."""
    script = (
        'if [[ "$BACKEND" == "ccl" ]]; then\n'
        '  oneccl_bindings_for_pytorch_path=$(python -c "import torch; import'
        " oneccl_bindings_for_pytorch; import os;  print(os.path.abspath(os.path.dirname("
        'oneccl_bindings_for_pytorch.__file__)))")\n'
        "  source $oneccl_bindings_for_pytorch_path/env/setvars.sh\n"
        "fi\n"
        'source $(python -c "import oneccl_bindings_for_pytorch as torch_ccl;'
        'print(torch_ccl.cwd)")/env/setvars.sh\n'
        "source $torch_ccl_path/env/setvars.sh\n"
        "source /opt/intel/oneapi/setvars.sh\n"
        ". /usr/local/oneccl/env/setvars.sh; export I_MPI_ROOT=/usr/local/oneccl\n"
    )
    assert _rules(tmp_path, {"training_multinode.sh": script}) == [
        ("training_multinode.sh", 2, "ipex-python-command"),
        ("training_multinode.sh", 3, "oneccl-bind-pt-requirement"),
        ("training_multinode.sh", 5, "ipex-python-command"),
        ("training_multinode.sh", 5, "oneccl-bind-pt-requirement"),
        ("training_multinode.sh", 6, "oneccl-bind-pt-requirement"),
        ("training_multinode.sh", 7, "oneapi-setvars"),
    ]


def test_ipex_operators_called_through_torch_ops_are_found(tmp_path: Path) -> None:
    """bitsandbytes called IPEX's registered operators by their namespaces (torch_ipex::,
    ipex_prepack::) without importing IPEX in that file; torch's own operators stay quiet."""
    source = (
        "import torch\n"
        "def dequantize(A, shape, absmax, blocksize, dtype):\n"
        '    return torch.ops.torch_ipex.dequantize_4bit(A, "nf4", shape, absmax, None,'
        " blocksize).t().to(dtype)\n"
        "def unpack(A, shape):\n"
        '    return torch.ops.ipex_prepack.woq_linear_unpack_weight(A, "nf4", shape, 2)\n'
        "def upstream(A, B):\n"
        "    return torch.ops.aten._int_mm(A, B), torch.ops.onednn.qconv_pointwise\n"
    )
    assert _rules(tmp_path, {"ops.py": source}) == [
        ("ops.py", 3, "ipex-torch-ops"),
        ("ops.py", 5, "ipex-torch-ops"),
    ]


def test_an_f_string_joining_found_strings_is_found(tmp_path: Path) -> None:
    """sdnext's installer keeps each wheel in a variable and joins them in the install command
    (an environment default): the join is found by the rules that found what it joins; a
    message that formats the same name, and an f-string of other names, are not."""
    source = (
        "import os\n"
        "def install_ipex(torch_command):\n"
        "    pytorch_pip = 'https://github.com/Nuullll/intel-extension-for-pytorch/releases/"
        "download/v2.1.10%2Bxpu/torch-2.1.0a0+cxx11.abi-cp311-cp311-win_amd64.whl'\n"
        "    ipex_pip = 'https://github.com/Nuullll/intel-extension-for-pytorch/releases/"
        "download/v2.1.10%2Bxpu/intel_extension_for_pytorch-2.1.10+xpu-cp311-cp311-win_amd64.whl'\n"
        "    torch_command = os.environ.get('TORCH_COMMAND', f'{pytorch_pip} {ipex_pip}')\n"
        "    print(f'installing {ipex_pip}')\n"
        "    return f'{torch_command} --upgrade'\n"
    )
    assert _rules(tmp_path, {"installer.py": source}) == [
        ("installer.py", 3, "cxx11-abi-torch-pin"),
        ("installer.py", 4, "ipex-install-string"),
        ("installer.py", 5, "cxx11-abi-torch-pin"),
        ("installer.py", 5, "ipex-install-string"),
    ]


def test_an_import_from_torch_xpu_amp_is_found_at_the_statement(tmp_path: Path) -> None:
    """SimAI-Bench's training scripts import autocast and GradScaler from torch.xpu.amp (IPEX's
    XPU build grafts it onto torch.xpu): the import fails first, and is found once, besides each
    use; an import from torch.amp is upstream."""
    source = (
        "import torch\n"
        "from torch.xpu.amp import autocast, GradScaler\n"
        "from torch.amp import autocast as upstream_autocast\n"
        "with autocast(enabled=True, dtype=torch.bfloat16):\n"
        "    pass\n"
        "scaler = GradScaler(enabled=True)\n"
    )
    assert _rules(tmp_path, {"offline_train.py": source}) == [
        ("offline_train.py", 2, "xpu-amp-import"),
        ("offline_train.py", 4, "xpu-amp-autocast"),
        ("offline_train.py", 6, "xpu-amp-grad-scaler"),
    ]


def test_ipex_settings_and_a_source_build_of_ipex_are_found(tmp_path: Path) -> None:
    """open-omics-alphafold's environment script exports IPEX's oneDNN layout switch, and its
    README clones IPEX's source to build it: both go with IPEX. A project's own IPEX_VERSION,
    a read of a setting and a clone of another repository are not IPEX's."""
    files = {
        "optimize_environment.sh": (
            "export USE_AVX512=1\n"
            "export IPEX_ONEDNN_LAYOUT=1\n"
            "export IPEX_VERSION=1.11.100\n"
            'echo "layout: $IPEX_ONEDNN_LAYOUT"\n'
        ),
        "README.md": (
            "```bash\n"
            "git clone https://github.com/intel/intel-extension-for-pytorch.git --recursive\n"
            "cd intel_extension_for_pytorch && git checkout intel-alphafold2-1.11.100\n"
            "git clone https://github.com/IntelLabs/open-omics-alphafold.git\n"
            "```\n"
        ),
    }
    assert _rules(tmp_path, files, docs=True) == [
        ("README.md", 2, "ipex-requirement"),
        ("README.md", 3, "ipex-requirement"),
        ("optimize_environment.sh", 2, "ipex-environment-setting"),
    ]


def test_a_clone_of_ipexs_sources_under_intels_own_name_is_a_source_build(tmp_path: Path) -> None:
    """The eighteenth audit's get_ipex.sh clones IPEX's GPU sources from Intel's own
    repository (frameworks.ai.pytorch.ipex-gpu) to build them: a source build of IPEX, as a
    clone of intel-extension-for-pytorch is; a grep for IPEX's torch floor in a script that
    patches it in asks whether the pin is there, and is no pin."""
    files = {
        "get_ipex.sh": (
            "name=ipex-gpu\n"
            "git clone --recurse-submodules "
            "https://github.com/intel-innersource/frameworks.ai.pytorch.ipex-gpu.git ${name}\n"
            "git clone https://github.com/intel-innersource/frameworks.ai.pytorch.ipex-gpu-docs\n"
            'if grep -Fxq "pip install torch>=2.1.0.post2 intel-extension-for-pytorch" a.py; then\n'
            "  :\n"
            "fi\n"
        ),
    }
    assert _rules(tmp_path, files) == [("get_ipex.sh", 2, "ipex-requirement")]


def test_a_projects_own_ipex_named_settings_are_not_parsed_for_ipexs(tmp_path: Path) -> None:
    """ipex-llm names its own settings after itself (IPEX_LLM_LOW_MEM...): a module that sets
    and reads only those holds none of IPEX's settings, and the prefilter must not send it to
    be parsed for them (the rule's word was IPEX_ alone, which let every such module through).
    The worker that exports one of IPEX's own settings is still parsed and found."""
    files = {
        "pipeline_parallel.py": (
            "import os\n"
            'os.environ["IPEX_LLM_QUANTIZE_KV_CACHE"] = "1"\n'
            'low_mem = os.environ.get("IPEX_LLM_LOW_MEM", "0") == "1"\n'
        ),
        "worker.py": 'env = {"IPEX_LLM_LOW_MEM": "1", "IPEX_LOG_LEVEL": "1"}\n',
    }
    write(tmp_path, files)
    result = scan(tmp_path, SHIPPED)
    assert (result.files_seen, result.files_parsed) == (2, 1)
    assert [(path, line, rule) for path, line, rule, _ in found(result)] == [
        ("worker.py", 1, "ipex-environment-setting"),
    ]


def test_a_floor_on_intel_torch_builds_is_written_for_them(tmp_path: Path) -> None:
    """The eighteenth audit's Arch Linux installer pins IPEX's torch builds as floors
    (``torch>=2.1.0.post2``): only Intel's index serves that version, so a floor or a compatible
    release of it is written for IPEX as an exact pin is; a floor on a version PyPI serves, or a
    .post of another torch, is not."""
    lists = {
        "requirements_arc.txt": (
            "--extra-index-url https://pytorch-extension.intel.com/release-whl/stable/xpu/us/\n"
            "torch>=2.1.0.post2\n"
            "torchvision>=0.16.0.post2\n"
            "torchaudio~=2.1.0.post2\n"
            "torch>=2.1.0\n"
            "torch>=2.2.0.post1\n"
            "intel-extension-for-pytorch>=2.1.30+xpu\n"
        )
    }
    assert [r for r in _rules(tmp_path, lists) if r[2] == "intel-torch-build-pin"] == [
        ("requirements_arc.txt", 2, "intel-torch-build-pin"),
        ("requirements_arc.txt", 3, "intel-torch-build-pin"),
        ("requirements_arc.txt", 4, "intel-torch-build-pin"),
    ]


def test_intel_torch_builds_and_a_forks_wheel_prefix_in_an_installer(tmp_path: Path) -> None:
    """comfy-cli installs IPEX with the torch builds of Intel's index (2.1.0.post2) in one
    subprocess list; forge-classic keeps the download prefix of a fork's IPEX wheels in a
    variable it joins into the pip command. The pins and the prefix go with IPEX; a torch pin
    PyPI serves, another project's release URL and a page of IPEX's releases do not."""
    source = (
        "import subprocess, sys\n"
        "subprocess.run(\n"
        "    [\n"
        '        sys.executable, "-m", "pip", "install",\n'
        '        "torch==2.1.0.post2",\n'
        '        "torchvision==0.16.0.post2",\n'
        '        "torchaudio==2.1.0.post2",\n'
        '        "intel-extension-for-pytorch==2.1.30",\n'
        "    ]\n"
        ")\n"
        'subprocess.run([sys.executable, "-m", "pip", "install", "torch==2.8.0"])\n'
        'url_prefix = "https://github.com/Nuullll/intel-extension-for-pytorch/releases/download/'
        'v2.0.110%2Bxpu-master%2Bdll-bundle"\n'
        'torch_command = f"pip install {url_prefix}/intel_extension_for_pytorch-2.0.110+gitc6ea20b'
        '-cp310-cp310-win_amd64.whl"\n'
        'clip = "https://github.com/openai/CLIP/releases/download/v1/clip.zip"\n'
        'notes = "https://github.com/intel/intel-extension-for-pytorch/releases"\n'
    )
    assert _rules(tmp_path, {"install.py": source}) == [
        ("install.py", 5, "intel-torch-build-pin"),
        ("install.py", 6, "intel-torch-build-pin"),
        ("install.py", 7, "intel-torch-build-pin"),
        ("install.py", 8, "ipex-install-string"),
        ("install.py", 12, "ipex-install-string"),
        ("install.py", 13, "ipex-install-string"),
    ]


def test_a_printed_path_and_an_import_in_printed_text_are_not_installs(tmp_path: Path) -> None:
    """ALCF's LibTorch page asks Python where IPEX would be installed, for CMake to link
    against, and its Copper page prints a script that imports IPEX and the oneCCL bindings: no
    line installs anything (readers rejected the install findings there). The imports are
    Python a command runs, reported as such; the path is no install, but the CMake variable it
    is handed to builds against IPEX's C++ library (``ipex-cpp-library``)."""
    readme = (
        "```bash\n"
        "cmake \\\n"
        "    -DCMAKE_PREFIX_PATH=`python -c 'import torch; print(torch.utils.cmake_prefix_path)'` \\\n"
        "    -DINTEL_EXTENSION_FOR_PYTORCH_PATH=`python -c 'import torch; "
        'print(torch.__path__[0].replace("torch","intel_extension_for_pytorch"))\'` \\\n'
        "    ./\n"
        "```\n"
        "```bash\n"
        "strace -o trace_output.log python import-test.py\n"
        "> cat import-test.py\n"
        "\n"
        "import torch\n"
        "import intel_extension_for_pytorch\n"
        "import oneccl_bindings_for_pytorch\n"
        "```\n"
    )
    assert _rules(tmp_path, {"libtorch.md": readme}, docs=True) == [
        ("libtorch.md", 4, "ipex-cpp-library"),
        ("libtorch.md", 12, "ipex-python-command"),
        ("libtorch.md", 13, "ipex-python-command"),
    ]


def test_a_projects_switch_to_its_ipex_path_is_found_where_the_branch_holds_ipex(
    tmp_path: Path,
) -> None:
    """The oneAPI samples' speech sample selects ipex.optimize with its own option
    (``elif ipex_op:``), the ColBERT helper of open-domain-question-and-answer with its settings
    (nested), forge-classic's launcher builds the IPEX install command under ``if
    args.use_ipex:``: each switch is reported, as information, at its condition. The same flag
    selecting no IPEX code, a switch whose branch runs upstream torch.xpu, a probe (its own
    rule reports it) and a test of IPEX's module itself (Infernos' ``if ipex is not None:``,
    after an import that falls back to None) are not switches."""
    source = (
        "import torch\n"
        "import intel_extension_for_pytorch as ipex\n"
        "if bf16:\n"
        "    model = model.to(torch.bfloat16)\n"
        "elif ipex_op:\n"
        "    model = ipex.optimize(model)\n"
        "if config.ENABLE_IPEX == 'True' :\n"
        "    if config.IPEX_BF16 == 'True' :\n"
        "        colbert = ipex.optimize(colbert, dtype=torch.bfloat16)\n"
        "    else:\n"
        "        colbert = ipex.optimize(colbert)\n"
        "if args.use_ipex:\n"
        "    torch_command = 'pip install intel-extension-for-pytorch==2.0.110+gitba7f6c1'\n"
        "if args.use_ipex:\n"
        "    args.skip_torch_cuda_test = True\n"
        'if backend == "ipex":\n'
        "    torch.xpu.empty_cache()\n"
        "if ipex.__version__ >= '2.1':\n"
        "    pass\n"
        "if ipex is not None:\n"
        "    model = ipex.optimize(model)\n"
    )
    found = _rules(tmp_path, {"inference.py": source})
    assert [(line, rule) for _, line, rule in found if rule == "ipex-path-switch"] == [
        (5, "ipex-path-switch"),
        (7, "ipex-path-switch"),
        (8, "ipex-path-switch"),
        (12, "ipex-path-switch"),
    ]
    assert ("inference.py", 18, "ipex-build-probe") in found


def test_a_check_of_ipex_version_is_a_probe_not_a_switch(tmp_path: Path) -> None:
    """neural-compressor's smooth-quant utility takes IPEX's version from a helper of its own
    (``ipex_ver = get_ipex_version()``) and checks it before an ipex.quantization call: the
    condition asks which IPEX is installed, so it is no switch of the project's (nothing follows
    the helper to IPEX, so nothing reports it). accelerate's check of a version it read from
    IPEX's metadata is the probe rule's. A switch beside a version check is still one."""
    source = (
        "import importlib.metadata\n"
        "import intel_extension_for_pytorch as ipex\n"
        "from packaging.version import Version\n"
        "from neural_compressor.torch.utils import get_ipex_version\n"
        "ipex_ver = get_ipex_version()\n"
        "def qconfig(alpha, observer, use_ipex):\n"
        '    if ipex_ver.release >= Version("2.1.1").release:\n'
        "        return ipex.quantization.get_smooth_quant_qconfig_mapping(alpha=alpha)\n"
        '    ipex_version = Version(importlib.metadata.version("intel_extension_for_pytorch"))\n'
        '    if ipex_version >= Version("2.5"):\n'
        "        from intel_extension_for_pytorch.xpu import mem_get_info\n"
        '    if use_ipex and ipex_ver.release >= Version("2.1.1").release:\n'
        "        return ipex.quantization.get_smooth_quant_qconfig_mapping(alpha=alpha)\n"
    )
    found = _rules(tmp_path, {"utility.py": source})
    assert ("utility.py", 8, "ipex-quantization") in found
    assert [(line, rule) for _, line, rule in found if line in (7, 10, 12)] == [
        (10, "ipex-probe"),
        (12, "ipex-path-switch"),
    ]


def test_setvars_in_a_build_from_source_is_the_builds(tmp_path: Path) -> None:
    """Triton's build guide sources the DPC++ compiler's environment and oneAPI's setvars.sh
    before it compiles Triton, then imports IPEX to check: the setvars is the build's, which
    the rule's own advice keeps (a false alarm in development). A guide that installs torch's
    wheels and sources setvars.sh to run them is still reported."""
    build = (
        "```\n"
        "export DPCPPROOT=/opt/intel/oneapi/compiler/latest\n"
        "export ONEAPIROOT=/opt/intel/oneapi/\n"
        "source ${DPCPPROOT}/env/vars.sh\n"
        "source ${ONEAPIROOT}/setvars.sh\n"
        "```\n"
        "```\n"
        "scripts/compile-triton.sh --venv\n"
        "```\n"
        "```\n"
        ">>> import intel_extension_for_pytorch\n"
        "```\n"
    )
    run = (
        "```bash\n"
        "pip install torch --index-url https://download.pytorch.org/whl/xpu\n"
        "source /opt/intel/oneapi/setvars.sh\n"
        "```\n"
    )
    assert _rules(tmp_path, {"docs/build.md": build, "docs/run.md": run}, docs=True) == [
        ("docs/build.md", 11, "ipex-import"),
        ("docs/run.md", 3, "oneapi-setvars"),
    ]


def test_pipfiles_pin_intels_torch_builds_and_a_worker_exports_ipex_settings(
    tmp_path: Path,
) -> None:
    """opendatahub-io/notebooks' Intel images pinned IPEX and the a0 torch builds of Intel's
    index in Pipfile variants (their lock files only record them); mof-generation-at-scale's
    Parsl worker exports an IPEX setting from a Python string and its Aurora script builds the
    oneCCL bindings from source. A torch pin from another index, in a file that names neither
    IPEX nor its index, is no one's business here."""
    pipfile = (
        "[[source]]\n"
        'url = "https://pytorch-extension.intel.com/release-whl/stable/xpu/us/"\n'
        'name = "ipex-xpu"\n'
        "\n"
        "[packages]\n"
        'torch = {version="==2.1.0a0", index="ipex-xpu"}\n'
        'intel_extension_for_pytorch = {version="==2.1.10+xpu", index="ipex-xpu"}\n'
        'torchvision = {version="0.16.0a0", index="ipex-xpu"}\n'
    )
    worker = (
        "accel_ids = list(range(12))\n"
        'worker_init = f"""\n'
        '{"" if len(accel_ids) == 12 else "export IPEX_TILE_AS_DEVICE=0"}\n'
        '"""\n'
    )
    build = "cd libs/torch-ccl\nCOMPUTE_BACKEND=dpcpp pip install -e .\ncd ../..\n"
    files = {
        "intel/Pipfile.gpu": pipfile,
        "intel/Pipfile.lock.gpu": '{"torch": {"version": "==2.1.0a0"}}\n',
        "other/requirements.txt": "torch==2.1.0a0\n",
        "run_test.py": worker,
        "envs/build-aurora.sh": build,
    }
    assert _rules(tmp_path, files) == [
        ("envs/build-aurora.sh", 2, "oneccl-bind-pt-requirement"),
        ("intel/Pipfile.gpu", 2, "ipex-wheel-index"),
        ("intel/Pipfile.gpu", 6, "intel-torch-build-pin"),
        ("intel/Pipfile.gpu", 7, "ipex-requirement"),
        ("intel/Pipfile.gpu", 8, "intel-torch-build-pin"),
        ("run_test.py", 3, "ipex-environment-setting"),
    ]


def test_ipex_reached_through_a_dict_of_imported_modules_is_followed(tmp_path: Path) -> None:
    """Pruna's IPEX LLM compiler imports IPEX lazily in a method that returns the modules in a
    dict (``dict(ipex=ipex, ...)``) and reads them back by key in its other methods
    (``imported_modules["ipex"]``): the module handed into the dict, each key read, the alias
    made from one and its calls are found. A key the dict does not hold, a dict of another
    function's and a dict of the project's own objects stay quiet."""
    source = (
        "from pathlib import Path\n"
        "class IPEXLLM:\n"
        "    def model_check_fn(self, model):\n"
        "        imported_modules = self.import_algorithm_packages()\n"
        '        ipex_path = Path(imported_modules["ipex"].__file__).parent\n'
        "    def _apply(self, model, smash_config):\n"
        "        imported_modules = self.import_algorithm_packages()\n"
        '        ipex = imported_modules["ipex"]\n'
        '        woq_weight_dtype = imported_modules["WoqWeightDtype"]\n'
        '        weight_dtype = woq_weight_dtype.INT8 if smash_config["weight_bits"] == 8 else None\n'
        "        lowp_mode = ipex.quantization.WoqLowpMode.INT8\n"
        "        model = ipex.llm.optimize(model.eval(), inplace=True)\n"
        '        other = imported_modules["torch"]\n'
        '        config = self.settings()["ipex"]\n'
        "        return model\n"
        "    def import_algorithm_packages(self):\n"
        "        import intel_extension_for_pytorch as ipex\n"
        "        from intel_extension_for_pytorch.quantization import WoqWeightDtype\n"
        "        return dict(\n"
        "            ipex=ipex,\n"
        "            WoqWeightDtype=WoqWeightDtype,\n"
        "        )\n"
        "    def settings(self):\n"
        '        return {"ipex": self.ipex_config}\n'
    )
    assert _rules(tmp_path, {"ipex_llm.py": source}) == [
        ("ipex_llm.py", 5, "ipex-other-api"),
        ("ipex_llm.py", 8, "ipex-module-reference"),
        ("ipex_llm.py", 9, "ipex-woq"),
        ("ipex_llm.py", 10, "ipex-woq"),
        ("ipex_llm.py", 11, "ipex-woq"),
        ("ipex_llm.py", 12, "ipex-llm-optimize"),
        ("ipex_llm.py", 17, "ipex-import"),
        ("ipex_llm.py", 18, "ipex-import"),
        ("ipex_llm.py", 20, "ipex-module-reference"),
        ("ipex_llm.py", 21, "ipex-woq"),
    ]


def test_ipex_module_handed_on_is_a_reference_and_a_test_of_it_is_not(tmp_path: Path) -> None:
    """moe-router-study's debug script makes an alias of IPEX by assignment (``module = ipex``)
    in the branch it selects by comparing the module's name with IPEX's package name: the
    alias is a reference, the comparison the script's switch to its IPEX path (no "ipex" in
    it). Infernos tests whether its guarded import bound the module (``if ipex is not
    None:``): a question, not a reference; the IPEX path's probe, once on its line (the
    fifteenth audit's reader keyed such a guard as a use); bitsandbytes' ``ipex if
    ipex._C._has_xpu() else None`` is
    the probe's line alone. A comparison with another module's name is no switch, and the
    helper's ``hasattr(module, "__version__")`` asks about torch as much as IPEX: no probe."""
    source = (
        "def safe_import_and_test(module_name):\n"
        '    if module_name == "torch":\n'
        "        import torch\n"
        "        module = torch\n"
        '    elif module_name == "intel_extension_for_pytorch":\n'
        "        import intel_extension_for_pytorch as ipex\n"
        "        module = ipex\n"
        '    return module if hasattr(module, "__version__") else None\n'
        "try:\n"
        "    import intel_extension_for_pytorch as ipex\n"
        "except ModuleNotFoundError:\n"
        "    ipex = None\n"
        "if ipex is not None and not ipex:\n"
        "    pass\n"
        "ipex_xpu = ipex if ipex._C._has_xpu() else None\n"
        "register(ipex)\n"
        'if hasattr(ipex, "optimize_transformers"):\n'
        "    pass\n"
    )
    assert _rules(tmp_path, {"debug_xpu.py": source}) == [
        ("debug_xpu.py", 5, "ipex-path-switch"),
        ("debug_xpu.py", 6, "ipex-import"),
        ("debug_xpu.py", 7, "ipex-module-reference"),
        ("debug_xpu.py", 10, "ipex-import"),
        ("debug_xpu.py", 13, "ipex-probe"),
        ("debug_xpu.py", 15, "ipex-build-probe"),
        ("debug_xpu.py", 16, "ipex-module-reference"),
        ("debug_xpu.py", 17, "ipex-probe"),
    ]


def test_an_install_that_takes_intels_index_through_a_variable_is_found(tmp_path: Path) -> None:
    """kserve's CPU image set a build argument to Intel's IPEX wheel index and installed IPEX
    with ``--extra-index-url ${IPEX_EXTRA_INDEX_URL}`` on a line that names no IPEX: the
    install is found at the variable (as the index's rule), so is a shell script's ``$IPEX_IDX``
    on a line an install continues onto. The torch index's variable, the variable read before
    it is set, outside an install, or in a printed message, are not."""
    dockerfile = (
        'ARG TORCH_EXTRA_INDEX_URL="https://download.pytorch.org/whl/cpu"\n'
        'ARG IPEX_EXTRA_INDEX_URL="https://pytorch-extension.intel.com/release-whl/stable/cpu/us/"\n'
        "RUN uv pip install --no-cache-dir --index-url ${TORCH_EXTRA_INDEX_URL} torch\n"
        "RUN pip install --no-cache --extra-index-url ${TORCH_EXTRA_INDEX_URL}"
        " --extra-index-url ${IPEX_EXTRA_INDEX_URL} \\\n"
        "    'intel_extension_for_pytorch~='${INTEL_EXTENSION_FOR_PYTORCH_VERSION} \\\n"
        "    intel-openmp\n"
        "RUN curl -sSf ${IPEX_EXTRA_INDEX_URL}\n"
    )
    script = (
        "pip install --extra-index-url $IPEX_IDX torch\n"
        "export IPEX_IDX=https://pytorch-extension.intel.com/release-whl/stable/xpu/us/\n"
        'echo "pip install -f $IPEX_IDX"\n'
        "pip install --upgrade \\\n"
        "    -f $IPEX_IDX torch\n"
    )
    files = {"huggingface_server_cpu.Dockerfile": dockerfile, "install.sh": script}
    assert _rules(tmp_path, files) == [
        ("huggingface_server_cpu.Dockerfile", 2, "ipex-wheel-index"),
        ("huggingface_server_cpu.Dockerfile", 4, "ipex-wheel-index"),
        ("huggingface_server_cpu.Dockerfile", 5, "ipex-requirement"),
        ("install.sh", 2, "ipex-wheel-index"),
        ("install.sh", 5, "ipex-wheel-index"),
    ]


def test_a_shell_check_whether_ipex_is_installed_is_a_probe(tmp_path: Path) -> None:
    """intel-xpu-backend-for-triton's build script asked pip whether IPEX was there before it
    read IPEX's version (``if pip show intel_extension_for_pytorch &>/dev/null; then``): the
    shell's probe. Installing or removing it, and asking about torch, are other matters."""
    script = (
        "if pip show intel_extension_for_pytorch &>/dev/null; then\n"
        "  IPEX_CURRENT_COMMIT=\"$(python -c 'import intel_extension_for_pytorch as ipex;"
        "print(ipex.__version__)')\"\n"
        "fi\n"
        "pip list | grep -i oneccl-bind-pt\n"
        "pip show torch\n"
        "pip uninstall -y intel_extension_for_pytorch\n"
    )
    assert _rules(tmp_path, {"scripts/compile-pytorch-ipex.sh": script}) == [
        ("scripts/compile-pytorch-ipex.sh", 1, "ipex-shell-probe"),
        ("scripts/compile-pytorch-ipex.sh", 2, "ipex-python-command"),
        ("scripts/compile-pytorch-ipex.sh", 4, "ipex-shell-probe"),
    ]


def test_ipexs_operator_namespace_taken_as_a_value_is_found(tmp_path: Path) -> None:
    """zentorch's Inductor pass replaced IPEX's RoPE and masked-MHA operators by its own where
    IPEX had been imported elsewhere: it asks ``sys.modules``, takes the operator namespace as a
    value (``ipex_ops = torch.ops.torch_ipex``) and hands its operators to the pattern matcher.
    Each is found; upstream ``torch.ops.aten`` taken the same way is not."""
    source = (
        "import sys\n"
        "import torch\n"
        "def _replace_ops(pass_pattern):\n"
        "    aten = torch.ops.aten\n"
        '    if "intel_extension_for_pytorch" in sys.modules:\n'
        "        ipex_ops = torch.ops.torch_ipex\n"
        "        rope_args = [Arg() for _ in range(7)]\n"
        "        @register_graph_pattern(\n"
        "            CallFunction(ipex_ops.rotary_position_embedding, *rope_args),\n"
        "            pass_dict=pass_pattern,\n"
        "        )\n"
        "        def rope_replacement(match, *args):\n"
        "            pass\n"
        "        @register_graph_pattern(\n"
        "            CallFunction(\n"
        "                ipex_ops.masked_multihead_self_attention,\n"
        "                *mmha_args,\n"
        "            ),\n"
        "        )\n"
        "        def mmha_replacement(match, *args):\n"
        "            pass\n"
    )
    assert _rules(tmp_path, {"src/zentorch/_op_replacement.py": source}) == [
        ("src/zentorch/_op_replacement.py", 5, "ipex-probe"),
        ("src/zentorch/_op_replacement.py", 6, "ipex-torch-ops"),
        ("src/zentorch/_op_replacement.py", 9, "ipex-torch-ops"),
        ("src/zentorch/_op_replacement.py", 16, "ipex-torch-ops"),
    ]


def test_a_text_hit_naming_ipexs_module_and_a_dict_key_string_are_kept(tmp_path: Path) -> None:
    """SD.Next's installer's default install command names ``intel_extension_for_pytorch``
    beside Intel's old index, and accelerate's launcher sets ``current_env["ACCELERATE_USE_IPEX"]``:
    the install string is reported by each rule that reads it (the bare module's reference
    gives way only to other hits, never takes a text hit with it), and the key of a dict read
    by a string is still a string the text rules read."""
    source = (
        "import os\n"
        "torch_command = os.environ.get('TORCH_COMMAND', 'torch==1.13.0a0+git6c9b55e"
        " intel_extension_for_pytorch==1.13.120+xpu -f https://developer.intel.com/ipex-whl-stable-xpu')\n"
        "def prepare(args, current_env):\n"
        '    current_env["ACCELERATE_USE_IPEX"] = str(args.ipex).lower()\n'
    )
    found = _rules(tmp_path, {"installer.py": source})
    assert ("installer.py", 2, "ipex-install-string") in found
    assert ("installer.py", 2, "ipex-wheel-index") in found
    assert ("installer.py", 4, "accelerate-ipex-env") in found


def _assigned(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int, int | None]]:
    """(path, line, the assignment it reads after) of each ``xpu-amp-grad-scaler`` match."""
    write(tmp_path, files)
    result = scan(tmp_path, SHIPPED)
    return [
        (m.location.path, m.location.line, m.assigned_at)
        for m in result.matches
        if m.rule_id == "xpu-amp-grad-scaler"
    ]


def test_reads_after_a_shims_own_assignment_of_the_grad_scaler_point_to_it(
    tmp_path: Path,
) -> None:
    """The RVC web UI forks' vendored IPEX hijack (infer/modules/ipex/gradscaler.py, trimmed)
    assigns IPEX's CPU GradScaler to ``torch.xpu.amp.GradScaler`` and then patches and returns
    it: those reads find what the assignment set, so they point to it (the one cause). The
    hijack's ``__init__.py`` reads the name under ``try`` with no assignment of its own before
    it (the one after ``gradscaler_init()`` is another module's): plain reads, as they were."""
    shim = (
        "import torch\n"
        "import intel_extension_for_pytorch as ipex\n"
        "def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16):\n"
        "    pass\n"
        "def gradscaler_init():\n"
        "    torch.xpu.amp.GradScaler = ipex.cpu.autocast._grad_scaler.GradScaler\n"
        "    torch.xpu.amp.GradScaler._unscale_grads_ = _unscale_grads_\n"
        "    torch.xpu.amp.GradScaler.update = update\n"
        "    return torch.xpu.amp.GradScaler\n"
    )
    hijack = (
        "import torch\n"
        "import intel_extension_for_pytorch as ipex\n"
        "def ipex_hijacks():\n"
        "    try:\n"
        "        torch.cuda.amp.GradScaler = torch.xpu.amp.GradScaler\n"
        "    except Exception:\n"
        "        try:\n"
        "            from .gradscaler import gradscaler_init\n"
        "            gradscaler_init()\n"
        "            torch.cuda.amp.GradScaler = torch.xpu.amp.GradScaler\n"
        "        except Exception:\n"
        "            torch.cuda.amp.GradScaler = ipex.cpu.autocast._grad_scaler.GradScaler\n"
    )
    files = {"ipex/gradscaler.py": shim, "ipex/__init__.py": hijack}
    assert _assigned(tmp_path, files) == [
        ("ipex/__init__.py", 5, None),
        ("ipex/__init__.py", 10, None),
        ("ipex/gradscaler.py", 6, None),
        ("ipex/gradscaler.py", 7, 6),
        ("ipex/gradscaler.py", 8, 6),
        ("ipex/gradscaler.py", 9, 6),
    ]


def test_a_read_the_assignment_may_not_have_preceded_stays_a_plain_read(tmp_path: Path) -> None:
    """Only an assignment that has run whenever the read runs explains it: one in the
    function's or module's own body, before the read, with no ``del`` between. A read before
    it, in another function, after an assignment under ``if`` or ``try``, or after a ``del``
    is the rule's own finding; a module's assignment explains a function defined after it."""
    source = (
        "import torch\n"
        "import torch as T\n"
        "def before():\n"
        "    scaler = torch.xpu.amp.GradScaler()\n"
        "    torch.xpu.amp.GradScaler = object\n"
        "def elsewhere():\n"
        "    return torch.xpu.amp.GradScaler()\n"
        "def conditional(cpu):\n"
        "    if cpu:\n"
        "        torch.xpu.amp.GradScaler = object\n"
        "    return torch.xpu.amp.GradScaler()\n"
        "def tried():\n"
        "    try:\n"
        "        torch.xpu.amp.GradScaler = object\n"
        "    except AttributeError:\n"
        "        pass\n"
        "    return torch.xpu.amp.GradScaler()\n"
        "def deleted():\n"
        "    torch.xpu.amp.GradScaler = object\n"
        "    del torch.xpu.amp.GradScaler\n"
        "    return torch.xpu.amp.GradScaler()\n"
        "T.xpu.amp.GradScaler = object\n"
        "def later():\n"
        "    return torch.xpu.amp.GradScaler()\n"
    )
    assert _assigned(tmp_path, {"train.py": source}) == [
        ("train.py", 4, None),
        ("train.py", 5, None),
        ("train.py", 7, None),
        ("train.py", 10, None),
        ("train.py", 11, None),
        ("train.py", 14, None),
        ("train.py", 17, None),
        ("train.py", 19, None),
        ("train.py", 20, None),
        ("train.py", 21, None),
        ("train.py", 22, None),
        ("train.py", 24, 22),
    ]


def test_the_version_of_whichever_module_a_generic_helper_imported_is_no_ipex_probe(
    tmp_path: Path,
) -> None:
    """moe-router-study's debug script (debug_xpu.py, trimmed) imports torch or IPEX by the name
    it is given and prints the version of whichever it imported: ``module.__version__`` asks
    that module, not which IPEX is there. IPEX's own version, read through IPEX's name or a
    name that holds IPEX alone, is still the build probe."""
    source = (
        "def safe_import_and_test(module_name, test_func=None):\n"
        "    try:\n"
        '        if module_name == "torch":\n'
        "            import torch\n"
        "            module = torch\n"
        '        elif module_name == "intel_extension_for_pytorch":\n'
        "            import intel_extension_for_pytorch as ipex\n"
        "            module = ipex\n"
        "        else:\n"
        "            module = __import__(module_name)\n"
        '        if hasattr(module, "__version__"):\n'
        '            print(f"   Version: {module.__version__}")\n'
        "        return module\n"
        "    except ImportError:\n"
        "        return None\n"
        "import intel_extension_for_pytorch as ipex\n"
        "only = ipex\n"
        "print(ipex.__version__, only.__version__)\n"
    )
    assert _rules(tmp_path, {"debug_xpu.py": source}) == [
        ("debug_xpu.py", 6, "ipex-path-switch"),
        ("debug_xpu.py", 7, "ipex-import"),
        ("debug_xpu.py", 8, "ipex-module-reference"),
        ("debug_xpu.py", 16, "ipex-import"),
        ("debug_xpu.py", 17, "ipex-module-reference"),
        ("debug_xpu.py", 18, "ipex-build-probe"),
        ("debug_xpu.py", 18, "ipex-build-probe"),
    ]
