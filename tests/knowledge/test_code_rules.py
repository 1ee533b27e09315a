"""The code rules: the shipped file's invariants, the loader's one-line errors, the helpers."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import jsonschema
import pytest
import yaml

from ipex_doctor import resources
from ipex_doctor.errors import KnowledgeBaseError
from ipex_doctor.knowledge import code_rules, known_issues
from ipex_doctor.knowledge.code_rules import CodeRule, IpexBuild, RuleMatch
from ipex_doctor.model.code import FileKind
from ipex_doctor.model.codec import from_json, to_json
from ipex_doctor.model.terms import Severity
from ipex_doctor.scan.fix.codemods.registry import FIX_CATALOGUE

MINIMAL = """\
schema_version: 1
rules:
  - id: my-rule
    title: A site rule
    severity: warning
    match:
      symbols: [mylib.old_api]
    why: Because mylib.old_api is gone.
    replacement: mylib.new_api
    recipe: Call mylib.new_api instead.
    references:
      - url: https://example.org/ticket/1
"""
"""A valid one-rule document; its lines: 3 id, 6 match, 7 symbols, 10 recipe, 12 url."""


@pytest.fixture(scope="module")
def shipped() -> code_rules.CodeRules:
    return code_rules.load()


def write(tmp_path: Path, text: str, name: str = "rules.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def error_of(tmp_path: Path, text: str) -> str:
    """The message of the error loading ``text`` raises (asserted to be one line)."""
    with pytest.raises(KnowledgeBaseError) as caught:
        code_rules.load(write(tmp_path, text), known_fixes=FIX_CATALOGUE)
    message = caught.value.message
    assert "\n" not in message, message
    return message


# ------------------------------------------------------------------ the shipped file


def test_shipped_rules_load(shipped: code_rules.CodeRules) -> None:
    """The shipped file validates (the loader's checks are the invariants), from where
    ``resources`` says, with its rules in file order."""
    assert shipped.sources == (str(resources.path("code_rules.yaml")),)
    assert resources.path("code_rules.yaml").is_file()
    assert len(shipped.rules) == 93  # update when adding rules
    assert shipped.rules[0].id == "ipex-import"


def test_ids_are_unique_and_not_knowledge_base_ids(shipped: code_rules.CodeRules) -> None:
    """A report names rules and issues side by side: no id may mean both."""
    ids = [rule.id for rule in shipped.rules]
    assert len(ids) == len(set(ids))
    assert not set(ids) & {issue.id for issue in known_issues.load().issues}


def test_every_rule_cites_a_public_source(shipped: code_rules.CodeRules) -> None:
    """Each rule has at least one https reference on a public host, with a title."""
    for rule in shipped.rules:
        assert rule.references, rule.id
        for reference in rule.references:
            host = urlparse(reference.url).hostname or ""
            assert reference.url.startswith("https://"), (rule.id, reference.url)
            assert "." in host and not host.endswith((".invalid", ".local", "localhost")), (
                rule.id,
                reference.url,
            )
            assert reference.title, (rule.id, reference.url)


def test_the_file_cites_nothing_private() -> None:
    """The rules speak of public sources and of this repository alone."""
    text = resources.read_text("code_rules.yaml")
    assert "/work/" not in text and "MIGRATION" not in text


def test_every_fix_and_pattern_is_used(shipped: code_rules.CodeRules) -> None:
    """Each codemod has a rule that asks for it, and each structural pattern a rule that uses
    it: the catalogue and the list in code_rules.py are the scanner's contract, not wishes."""
    assert {rule.fix for rule in shipped.rules if rule.fix} == set(FIX_CATALOGUE)
    assert all(FIX_CATALOGUE.values()), "every codemod says what it rewrites"
    patterns = {rule.match.pattern for rule in shipped.rules if rule.match.pattern}
    assert patterns == set(code_rules.PATTERNS)


def test_seed_patterns_join_their_knowledge_base_entries(shipped: code_rules.CodeRules) -> None:
    """The seed issues are reachable from code: each pattern rule names its entries."""
    joined = {rule.match.pattern: set(rule.kb) for rule in shipped.rules if rule.match.pattern}
    assert joined["half-spectral-norm"] == {"dot-half"}
    assert joined["optimize-bf16"] == {"bf16-linear", "bf16-prepack-isa"}
    assert joined["with-and"] == {"amp-deprecated-api"}
    assert joined["ccl-backend"] == {"oneccl-bindings-missing", "xccl-unavailable"}
    qconv = shipped.get("qconv2d-pointwise-op")
    assert qconv is not None and qconv.kb == ("qconv-op-name",)


def test_no_name_is_claimed_by_two_rules(shipped: code_rules.CodeRules) -> None:
    """A resolved name matches one symbol rule at most, globs included, and an imported module
    one import rule, so a scan reports each use once and its fix is not ambiguous (importing a
    module and using one of its names are two findings)."""
    fallback = "ipex-other-api"  # NOTE: every IPEX name; the scanner prefers the longest match
    for rule in shipped.rules:
        for name in rule.match.symbols:
            concrete = name.removesuffix(".*") + ".x" if name.endswith(".*") else name
            claimed = [o.id for o in shipped.rules if o.match.matches_symbol(concrete)]
            if rule.id != fallback:
                claimed = [c for c in claimed if c != fallback]
            assert claimed == [rule.id], (name, claimed)
        for module in rule.match.imports:
            claimed = [o.id for o in shipped.rules if o.match.matches_import(module)]
            assert claimed == [rule.id], (module, claimed)


def test_python_rules_read_only_python_and_text_rules_say_where(
    shipped: code_rules.CodeRules,
) -> None:
    """Symbol, import and pattern rules apply to files read as Python; the text rules that
    also search Python are those whose target is a string or a literal setting there (a
    launcher command in an argument list, a pip command or requirement an installer builds, a
    keyword value, an environment variable in a dict, a library a build helper links, IPEX
    1.x's device string), which no resolved name can find."""
    for rule in shipped.rules:
        if rule.match.kind != "text":
            assert set(rule.applies_to) <= code_rules.PYTHON_KINDS, rule.id
    python_text = {
        rule.id
        for rule in shipped.rules
        if rule.match.kind == "text" and FileKind.PYTHON in rule.applies_to
    }
    assert python_text == {
        "ipex-launcher", "use-ipex-flag", "ipex-install-string", "ipex-wheel-index",
        "cxx11-abi-torch-pin", "accelerate-ipex-env", "ipex-python-command",
        "intel-torch-build-pin", "ipex-environment-setting", "ipex-cpp-library",
        "ipex-legacy-device",
    }  # fmt: skip


def test_xpu_only_ipex_rules_say_what_was_not_verified(shipped: code_rules.CodeRules) -> None:
    """The test environments carry IPEX's CPU build: a rule about an API only its XPU build
    has says so, and which names a fact test can check is never left to guesswork."""
    for rule in shipped.rules:
        if rule.needs_ipex and rule.ipex_build is IpexBuild.XPU:
            assert rule.unverified.startswith("XPU only"), rule.id
        outside = [
            name
            for name in (*rule.match.symbols, *rule.match.imports)
            if name.split(".")[0] not in {"torch", "intel_extension_for_pytorch"}
        ]
        if outside:
            assert rule.unverified, (rule.id, outside)


def test_replacement_symbols_are_upstream_names(shipped: code_rules.CodeRules) -> None:
    """What a replacement relies on is torch's or torchvision's, never IPEX's."""
    for rule in shipped.rules:
        for name in rule.replacement_symbols:
            assert name.split(".")[0] in {"torch", "torchvision"}, (rule.id, name)


# ------------------------------------------------------------------ text rules on real lines

TEXT_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "ipex-legacy-device": (
        [
            "model = model.to(device = 'dpcpp:0')",
            'x = torch.ones(2, 2, device="dpcpp")',
            "DEVICE = 'dpcpp'",
        ],
        [
            'cmake_args = ["-DCMAKE_CXX_COMPILER=dpcpp"]',
            "compiler = 'dpcpp-cl'",
            "x.to(ipex.DEVICE)",
            "build_dir = 'build/dpcpp'",
        ],
    ),
    "ipex-requirement": (
        [
            "intel-extension-for-pytorch==2.8.10+xpu",
            "RUN pip install intel_extension_for_pytorch",
            '  "Intel-Extension-For-PyTorch>=2.1",',
            "pip install intel-extension-for-pytorch/dist/*.whl",
            "pip install https://x.org/whl/intel_extension_for_pytorch-2.1.10%2Bxpu-cp310-cp310-linux_x86_64.whl",
            "git clone https://github.com/intel/intel-extension-for-pytorch.git --recursive",
            "RUN git clone -b xpu-main https://github.com/intel/intel-extension-for-pytorch",
            "torch_ipex==1.9.0",
            "torch-ipex >= 1.8",
            "torch_ipex",
            "python -m pip install torch_ipex==1.9.0 -f https://software.intel.com/ipex-whl-stable",
            "RUN pip3 install --no-cache-dir torch_ipex",
        ],
        [
            "python -m intel_extension_for_pytorch.cpu.launch x.py",
            "torch==2.8.0",
            'ARG PYT_BASE_IMAGE="intel/intel-extension-for-pytorch"',
            "FROM intel/intel-extension-for-pytorch:2.3.110-xpu",
            "pip uninstall -y intel-extension-for-pytorch",
            "python -m pip -q uninstall intel_extension_for_pytorch",
            "pip list | grep intel-extension-for-pytorch",
            "wget https://raw.githubusercontent.com/intel/intel-extension-for-pytorch/main/x.py",
            'python -c "import torch; import intel_extension_for_pytorch as ipex"',
            "git clone https://github.com/intel/intel-extension-for-pytorch-docs",
            "  -DINTEL_EXTENSION_FOR_PYTORCH_PATH=`python -c 'import torch; print(torch.__path__[0]"
            '.replace("torch","intel_extension_for_pytorch"))\'` \\',
            "pip uninstall -y torch_ipex",
            "cp -r torch_ipex/csrc build/",
            'python -c "print(torch.ops.torch_ipex.linear)"',
            "pip install torch_ipex_helpers==0.1",
            "torch-ipex-bench",
        ],
    ),
    "ipex-install-string": (
        [
            '["intel-extension-for-pytorch==2.6.10+xpu", "--extra-index-url", idx_url]',
            '["pip", "install", "intel-extension-for-pytorch"]',
            'f"pip install intel-extension-for-pytorch=={version}"',
            '"intel_extension_for_pytorch>=2.7.0"',
            'session.install("oneccl_bind_pt")',
            '"https://x.org/intel_extension_for_pytorch-2.1.10%2Bxpu-cp310-cp310-linux_x86_64.whl"',
            'url_prefix = "https://github.com/Nuullll/intel-extension-for-pytorch/releases/download/v2.0.110%2Bxpu-master%2Bdll-bundle"',
        ],
        [
            'IPEX = "intel-extension-for-pytorch"',
            '("torchvision", "intel_extension_for_pytorch")',
            '["pip", "uninstall", "-y", "intel-extension-for-pytorch"]',
            '"intel/intel-extension-for-pytorch:2.3.110-xpu"',
            '"oneccl_bindings_for_pytorch"',
            '"https://github.com/intel/intel-extension-for-pytorch/releases/tag/v2.8.10%2Bxpu"',
        ],
    ),
    "ipex-wheel-index": (
        [
            "--extra-index-url https://pytorch-extension.intel.com/release-whl/stable/xpu/us/",
            "-f https://developer.intel.com/ipex-whl-stable-cpu",
            "pip install torch_ipex==1.9.0 -f https://software.intel.com/ipex-whl-stable",
        ],
        ["--index-url https://download.pytorch.org/whl/xpu", "https://software.intel.com/oneapi"],
    ),
    "intel-torch-build-pin": (
        [
            '"torch==2.1.0.post2",',
            "torchvision==0.16.0.post2",
            "pip install torchaudio==2.1.0.post0 --extra-index-url https://x.org",
            'torch = {version="==2.1.0a0", index="ipex-xpu"}',
            'torchvision = {version="0.16.0a0", index="ipex-xpu"}',
            "python -m pip install torch==2.0.1a0+gitc6ea20b -f https://x.org",
            # NOTE: RVC's requirements-ipex.txt (a torchaudio built for IPEX's torch 2.0.1a0)
            "https://github.com/Disty0/Retrieval-based-Voice-Conversion-WebUI/releases/download/"
            "torchaudio_wheels_for_ipex/torchaudio-2.0.2+31de77d-cp310-cp310-linux_x86_64.whl",
        ],
        [
            "torch==2.8.0",
            "torchvision==0.2.2.post3",
            "torch-npu==2.1.0.post3",
            "xformers==0.0.28.post3",
            "torch==2.3.1.post0+cxx11.abi",
            "torch==2.1.0a0+41361538.nv23.06",
            'mylib = {version="2.1.0a0"}',
            # NOTE: a torch family wheel from no folder of IPEX's, or from IPEX-LLM's
            "https://download.pytorch.org/whl/cpu/torchaudio-2.0.2%2Bcpu-cp310-cp310-linux_x86_64.whl",
            "https://github.com/a/b/releases/download/v1/torchaudio-2.0.2-cp310-linux_x86_64.whl",
            "https://github.com/a/ipex-llm/releases/download/v2/torch-2.1.0-cp310-linux_x86_64.whl",
            "https://github.com/a/b/releases/download/for_ipex/xformers-0.0.20-cp310-linux.whl",
        ],
    ),
    "ipex-environment-setting": (
        [
            "export IPEX_ONEDNN_LAYOUT=1",
            "IPEX_XPU_ONEDNN_LAYOUT=1 python train.py",
            "ENV IPEX_FP32_MATH_MODE=TF32",
            "      IPEX_VERBOSE: 1",
            '"export IPEX_TILE_AS_DEVICE=0"',
            '"IPEX_XPU_ONEDNN_LAYOUT": "1"',
            # NOTE: every other name the rule lists, one a line: it spells them in three regexes
            *(
                f"export IPEX_{name}=1"
                for name in (
                    "LAYOUT_OPT XPU_SYNC_MODE COMPUTE_ENG XPU_BACKEND SIMPLE_TRACE SHOW_OPTION"
                    " ZE_TRACING LOG_LEVEL LOG_COMPONENT LOG_OUTPUT LOG_ROTATE_SIZE LOG_SPLIT_SIZE"
                ).split()
            ),
        ],
        [
            "ARG IPEX_VERSION=2.8.10",
            'os.environ["IPEX_LLM_LOW_MEM"] = "1"',
            "echo $IPEX_VERBOSE",
            "export MY_IPEX_VERBOSE=1",
            "export IPEX_VERBOSE_EXTRA=1",
        ],
    ),
    "cxx11-abi-torch-pin": (
        [
            "torch==2.1.0a0+cxx11.abi",
            "torchvision==0.16.0a0+cxx11.abi ; sys_platform",
            "torch @ https://example.org/xpu/torch-2.1.0.post2%2Bcxx11.abi-cp311-cp311-linux_x86_64.whl",
        ],
        ["torch==2.8.0+xpu", "cxx11abi"],
    ),
    "oneccl-bind-pt-requirement": (
        [
            "oneccl_bind_pt==2.8.0+xpu",
            "oneccl-bind-pt",
            "oneccl_bindings_for_pytorch==2.1.0",
            "COMPUTE_BACKEND=dpcpp pip install -e .",
            "COMPUTE_BACKEND=dpcpp_level_zero python setup.py install",
            "ls $SITE/oneccl_bindings_for_pytorch/lib",
            "pip install oneccl_bindings_for_pytorch.whl",
        ],
        [
            "oneccl==2021.14",
            "pip uninstall -y oneccl_bind_pt",
            "import oneccl_bindings_for_pytorch",
            "import os, torch, oneccl_bindings_for_pytorch as ccl",
            'python3 -c "import torch; import oneccl_bindings_for_pytorch;"',
            "export COMPUTE_BACKEND=dpcpp",
            # NOTE: a read of the bindings' names in the Python a script runs is
            # oneccl-bindings-api's, where the Python rules read the program
            "    print(f'Version: {oneccl_bindings_for_pytorch.__version__}')",
        ],
    ),
    "oneapi-setvars": (
        [
            "source /opt/intel/oneapi/setvars.sh",
            "RUN . /opt/intel/oneapi/2025.0/oneapi-vars.sh",
            'bash -c "source /opt/intel/oneapi/setvars.sh && python x.py"',
            'call "C:\\Program Files (x86)\\Intel\\oneAPI\\setvars.bat"',
        ],
        [
            "export PATH=/opt/intel/oneapi/bin:$PATH",
            'if [[ -e "/opt/intel/oneapi/setvars.sh" ]]; then',
            "wget https://example.org/setvars.sh",
        ],
    ),
    "accelerate-ipex-config": (
        [
            "ipex: true",
            '  "ipex": true,',
            "accelerate launch --cpu --ipex train.py",
            "ipex_config:",
        ],
        [
            "ipex: false",
            "use_cpu: true",
            "accelerate launch --ipex-foo train.py",
            "my_ipex_config:",
        ],
    ),
    "accelerate-ipex-env": (
        ['"ACCELERATE_USE_IPEX": "true",', "export ACCELERATE_USE_IPEX=1"],
        ["ACCELERATE_USE_XPU=true", "MY_ACCELERATE_USE_IPEX_FLAG=1"],
    ),
    "ipex-python-command": (
        [
            'python -c "import torch; import intel_extension_for_pytorch as ipex"',
            "python -c 'from intel_extension_for_pytorch import xpu'",
            'python -c "import transformers; assert transformers.utils.is_ipex_available()"',
            'python3 -c "import torch; import oneccl_bindings_for_pytorch;"',
            "import oneccl_bindings_for_pytorch",
            'python -c "import os, torch as t, intel_extension_for_pytorch as ipex"',
        ],
        [
            "pip install intel-extension-for-pytorch",
            "python -c 'import torch'",
            'python -c "import torch; print(torch.intel_extension_for_pytorch)"',
        ],
    ),
    "ipex-import-patched": (
        [
            "sed -i 's|import sys|import sys\\nimport intel_extension_for_pytorch as ipex|g' "
            "launch.py",
            'if grep -Fxq "import intel_extension_for_pytorch as ipex" launch_utils.py; then',
            'echo "import intel_extension_for_pytorch as ipex" >> webui/launch.py',
            "  run: sed -i '1i from intel_extension_for_pytorch import xpu' app/main.py",
        ],
        [
            'python -c "import torch; import intel_extension_for_pytorch as ipex"',
            'sed -i "s/intel_extension_for_pytorch/torch/" requirements.txt',
            'echo "import intel_extension_for_pytorch as ipex"',
            "grep -rn intel_extension_for_pytorch src/",
            "sed -i 's|import sys|import sys\\nimport my_intel_extension_for_pytorch_shim|' a.py",
        ],
    ),
    "ipex-installed-file": (
        [
            "    /usr/local/lib/python3.11/site-packages/intel_extension_for_pytorch/lib/libintel-ext-pt-cpu.so \\",
            "RUN patchelf --clear-execstack $(python -c 'import site; print(site.getsitepackages()[0])')/intel_extension_for_pytorch/lib/libintel-ext-pt-gpu.so",
            "export LD_PRELOAD=$VENV/lib/python3.10/site-packages/intel_extension_for_pytorch/lib/libintel-ext-pt-cpu.so",
            "execstack -c libintel-ext-pt-cpu.so",
        ],
        [
            "RUN rm -rf /usr/local/lib/python3.11/site-packages/intel_extension_for_pytorch/lib/",
            'echo "patching intel_extension_for_pytorch/lib/libintel-ext-pt-cpu.so"',
            "export LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libtcmalloc.so",
            "cp -r intel_extension_for_pytorch_docs/lib/ out/",
            "patchelf --clear-execstack torch/lib/libtorch_cpu.so",
        ],
    ),
    "ipex-shell-probe": (
        [
            "if pip show intel_extension_for_pytorch &>/dev/null; then",
            "pip3 show -q oneccl-bind-pt",
            "pip list | grep -i intel-extension-for-pytorch",
            "uv pip show intel-extension-for-pytorch",
        ],
        [
            "pip install intel_extension_for_pytorch",
            "pip uninstall -y intel_extension_for_pytorch",
            "pip show torch",
            "pip list > installed.txt; grep intel_extension_for_pytorch requirements.txt",
        ],
    ),
    "ipex-deepspeed-requirement": (
        [
            "intel-extension-for-pytorch-deepspeed",
            "intel-extension-for-deepspeed==0.9.4",
            "RUN pip install intel_extension_for_deepspeed==2.1.40 -f https://x",
        ],
        [
            "git clone https://github.com/intel/intel-extension-for-deepspeed",
            "pip uninstall -y intel-extension-for-deepspeed",
            "intel-extension-for-pytorch",
            'python -c "import intel_extension_for_deepspeed"',
        ],
    ),
    "ipex-llm-requirement": (
        [
            "pip install --pre --upgrade ipex-llm[xpu] --extra-index-url https://pytorch-extension.intel.com/release-whl/stable/xpu/us/",
            "pip install --pre --upgrade ipex-llm[xpu_2.6] --extra-index-url https://download.pytorch.org/whl/xpu",
            "ipex-llm[cpp]==2.2.0",
            "bigdl-llm[all]",
            "RUN pip install --pre --upgrade ipex-llm[all] && \\",
            "conda run -n $envName pip install --pre --upgrade ipex-llm[xpu] --extra-index-url https://x",
            "    ipex-llm==2.2.0 && \\",
            '  - "ipex-llm[xpu]>=2.2"',
            "llama-index-llms-ipex-llm==0.1.8",
            "RUN pip install llama-index-llms-ipex-llm llama-index-embeddings-ipex-llm",
            'dependencies = ["torch", "ipex-llm[xpu]==2.2.0"]',
        ],
        [
            'CONTAINER="ipex-llm"',
            'BACKEND_NAME="IPEX-LLM"',
            'docker stats ipex-llm --no-stream --format "{{.MemUsage}}"',
            "source ipex-llm-init -t",
            "git clone https://github.com/intel/ipex-llm.git",
            "cd ipex-llm",
            "docker pull intelanalytics/ipex-llm-serving-xpu:latest",
            "pip uninstall -y ipex-llm",
            "pip list | grep ipex-llm",
            'python -c "from ipex_llm.transformers import AutoModelForCausalLM"',
            "see https://ipex-llm.readthedocs.io/",
        ],
    ),
    "ipex-llm-command": (
        [
            "python -m ipex_llm.vllm.xpu.entrypoints.openai.api_server \\",
            "python3 -u -m ipex_llm.serving.fastchat.vllm_worker --device xpu",
            "export IPEX_LLM_QUANTIZE_KV_CACHE=1 # to enable fp8 kv cache",
            'set "BIGDL_LLM_XMX_DISABLED=1"',
            "ENV IPEX_LLM_NUM_CTX=16384",
            "pip show ipex-llm | grep Version:",
            "COPY config.py /usr/local/lib/python3.9/dist-packages/ipex_llm/vllm/",
        ],
        [
            "echo $IPEX_LLM_QUANTIZE_KV_CACHE",
            'echo "run python -m ipex_llm.serving ..."',
            "python -m vllm.entrypoints.openai.api_server",
            "pip show intel-extension-for-pytorch",
            "MY_IPEX_LLM_DIR=/opt/x",
        ],
    ),
    "ipex-llm-init": (
        [
            "source ipex-llm-init -t",
            "source ipex-llm-init --gpu --device Arc",
            "RUN . ipex-llm-init",
        ],
        [
            "https://github.com/intel/ipex-llm/blob/main/python/llm/scripts/ipex-llm-init",
            "ls $CONDA_PREFIX/bin | grep ipex-llm-init",
            "pip install ipex-llm[xpu]",
        ],
    ),
    "ipex-llm-container-image": (
        [
            "FROM intelanalytics/ipex-llm-serving-xpu:0.8.3-b19",
            "docker pull intelanalytics/ipex-llm-serving-xpu:latest",
            "        image: intelanalytics/ipex-llm-serving-cpu:2.2.0-SNAPSHOT",
            "    image: intelanalytics/ipex-llm-inference-cpp-xpu",
            "FROM docker.io/intelanalytics/bigdl-llm-xpu:2.5.0-SNAPSHOT AS base",
            '          BASE_IMAGE="intelanalytics/ipex-llm-inference-cpp-xpu"',
            "export DOCKER_IMAGE=10.239.45.10/arda/intelanalytics/ipex-llm-serving-xpu:pytorch26",
        ],
        [
            "see https://hub.docker.com/u/intelanalytics",
            "pip install ipex-llm[xpu]",
            "git clone https://github.com/intelanalytics/ipex-llm-tutorial",
            "FROM intelanalytics/analytics-zoo:latest",
        ],
    ),
    "ipex-container-image": (
        [
            "FROM intel/intel-extension-for-pytorch:2.8.10-xpu AS base",
            "FROM docker.io/intel/intel-extension-for-pytorch",
            "      - image: intel/intel-extension-for-pytorch:2.1.10-xpu-idp-jupyter",
            'container: "intel/intel-extension-for-pytorch:2.8.10-xpu"',
            "docker run -it --device /dev/dri intel/intel-extension-for-pytorch:xpu bash",
            "    image: intel/intel-extension-for-pytorch",
        ],
        [
            "git clone https://github.com/intel/intel-extension-for-pytorch.git",
            "see https://hub.docker.com/r/intel/intel-extension-for-pytorch",
            "pip install intel-extension-for-pytorch==2.8.10+xpu",
            "FROM intel/intel-extension-for-pytorch-builder:latest",
            "    image: intel/intel-extension-for-pytorch-builder",
            "description: see intel/intel-extension-for-pytorch",
        ],
    ),
    "webui-use-ipex": (
        [
            "set COMMANDLINE_ARGS=--use-ipex --skip-torch-cuda-test",
            'export COMMANDLINE_ARGS="--use-ipex --listen"',
            "./webui.sh --use-ipex",
        ],
        ["--use-ipex-kernels", '[[ "$@" == *"--use-ipex"* ]]', "use_ipex=True"],
    ),
    "use-ipex-flag": (
        [
            "args = TrainingArguments(out, use_ipex=True)",
            "use_ipex: true",
            "python run.py --use_ipex",
            "python run.py --use-ipex --bf16",
        ],
        [
            "use_ipex=False",
            "--use_ipex_kernels",
            "USE_IPEX=true",
            '[[ "$@" == *"--use-ipex"* ]]',
            "  --use-ipex) USE_IPEX=true ;;",
        ],
    ),
    "ipex-cpp-library": (
        [
            "find_package(IPEX REQUIRED)",
            "FIND_PACKAGE(IPEX REQUIRED PATHS ${libtorch_SOURCE_DIR} NO_DEFAULT_PATH)",
            "find_library(IPEX_LIB intel-ext-pt-gpu PATHS ${P}/lib NO_DEFAULT_PATH REQUIRED)",
            'libraries = ["ze_loader", "sycl", "torch", "intel-ext-pt-gpu"]',
            "extra_link_args += ['-lintel-ext-pt-gpu']",
            "    -DINTEL_EXTENSION_FOR_PYTORCH_PATH=`python -c 'import torch'` \\",
            "cmake -DIPEX_DIR=/opt/ipex ..",
        ],
        [
            "find_package(Torch REQUIRED)",
            "find_package(IPEXTools)",
            'message(STATUS "Found IPEX: libintel-ext-pt-cpu")',
            "patchelf --clear-execstack site-packages/intel_extension_for_pytorch/lib/libintel-ext-pt-cpu.so",
            "[ 97%] Built target intel-ext-pt-gpu-op-TripleOps",
            '_GPU_RUNTIME = ("libze_*", "libintel-ext-pt-gpu*")',
            'echo "link -lintel-ext-pt-gpu"',
            "rm -f lib/libintel-ext-pt-gpu",
            "cmake -DIPEX_LLM_ROOT=/opt/llm ..",
        ],
    ),
    "ipex-cmake-variable": (
        [
            'target_link_libraries(lltm_xpu "${TORCH_IPEX_LIBRARIES}")',
            "include_directories(${IPEX_INCLUDE_DIRS})",
            "set(TORCH_LIBS ${TORCH_LIBS} ${IPEX_LIB})",
            "if(IPEX_FOUND)",
            "include_directories(SYSTEM ${INTEL_EXTENSION_FOR_PYTORCH_PATH}/include)",
            "LIST(APPEND TORCH_LIBRARIES intel_ext_pt_cpu_library)",
        ],
        [
            'target_link_libraries(app "${TORCH_LIBRARIES}")',
            "find_package(IPEX REQUIRED)",
            "find_library(IPEX_LIB intel-ext-pt-gpu PATHS ${P}/lib)",
            'message(STATUS "IPEX: ${IPEX_LIBRARIES}")',
            "set(IPEX_LLM_HOME /opt)",
        ],
    ),
    "ipex-launcher": (
        [
            "ipexrun cpu --ninstances 2 infer.py",
            'cmd = ["ipexrun", "infer.py"]',
            "python -m intel_extension_for_pytorch.cpu.launch --throughput-mode run.py",
            "python -m intel_extension_for_pytorch.launcher xpu run.py",
        ],
        ["python -m torch.backends.xeon.run_cpu run.py", "my-ipexrun-wrapper run.py"],
    ),
}


def test_text_rules_match_real_lines(shipped: code_rules.CodeRules) -> None:
    """Each text rule matches the lines it is for and leaves its neighbours alone."""
    text_rules = {rule.id: rule for rule in shipped.rules if rule.match.kind == "text"}
    assert set(text_rules) == set(TEXT_EXAMPLES)
    for rule_id, (hits, misses) in TEXT_EXAMPLES.items():
        match = text_rules[rule_id].match
        for line in hits:
            assert _text_rule_matches(match, line), (rule_id, line)
        for line in misses:
            assert not _text_rule_matches(match, line), (rule_id, line)


def _text_rule_matches(match: RuleMatch, line: str) -> bool:
    """Whether a text rule reports ``line``: a regex matches, a ``when`` holds (if any), no
    ``unless`` does."""
    found = any(p.search(line) for p in match.text_patterns())
    context = not match.when or any(re.search(w, line) for w in match.when)
    return found and context and not any(re.search(u, line) for u in match.unless)


# ------------------------------------------------------------------ the helpers


def test_match_helpers() -> None:
    """``a.b.*`` is everything under a.b but not a.b, less what ``unless_symbols`` names and
    what is under it; an import covers its submodules."""
    match = RuleMatch(symbols=("a.b.*", "c.d"), imports=("pkg",))
    assert match.kind == "symbols"
    assert match.matches_symbol("a.b.c") and match.matches_symbol("a.b.c.d")
    assert not match.matches_symbol("a.b") and not match.matches_symbol("a.bc")
    assert match.matches_symbol("c.d") and not match.matches_symbol("c.d.e")
    narrowed = RuleMatch(symbols=("a.b.*",), unless_symbols=("a.b.c",))
    assert narrowed.matches_symbol("a.b.x") and narrowed.matches_symbol("a.b.cc")
    assert not narrowed.matches_symbol("a.b.c") and not narrowed.matches_symbol("a.b.c.d")
    assert match.matches_import("pkg") and match.matches_import("pkg.sub")
    assert not match.matches_import("pkg2")
    assert RuleMatch(text=("(?i)x",)).text_patterns()[0].search("X")
    assert RuleMatch(pattern="with-and").kind == "pattern"


def test_for_kind(shipped: code_rules.CodeRules) -> None:
    """The rules for a file kind, in file order."""
    dockerfile = shipped.for_kind(FileKind.DOCKERFILE)
    assert dockerfile and all(FileKind.DOCKERFILE in r.applies_to for r in dockerfile)
    assert [r.id for r in dockerfile] == [
        r.id for r in shipped.rules if FileKind.DOCKERFILE in r.applies_to
    ]


def test_rules_round_trip_through_json(shipped: code_rules.CodeRules) -> None:
    """A rule is plain JSON for reports and SARIF, and comes back equal."""
    for rule in shipped.rules:
        data = json.loads(json.dumps(to_json(rule)))
        assert from_json(CodeRule, data) == rule


def test_schema_enums_are_the_models() -> None:
    """The schema's enums are the model's: a new file kind or severity is added to both
    (but documents: their code blocks are read with the notebook's rules, no rule names them)."""
    rule = code_rules.rules_schema()["$defs"]["rule"]["properties"]
    kinds = [k.value for k in FileKind if k is not FileKind.DOCS]
    assert rule["applies_to"]["items"]["enum"] == kinds
    assert rule["severity"]["enum"] == [s.value for s in Severity]
    assert rule["ipex_build"]["enum"] == [b.value for b in IpexBuild]
    assert code_rules.rules_schema()["$defs"]["match"]["properties"].keys() == {
        *code_rules.MATCH_KINDS,
        "unless",
        "when",
        "in_files_with",
        "unless_symbols",
        "names",
    }


def test_schema_agrees_with_jsonschema(shipped: code_rules.CodeRules) -> None:
    """The fast validator and jsonschema accept the shipped file and refuse the same edits."""
    data = yaml.safe_load(resources.read_text("code_rules.yaml"))
    validator = jsonschema.Draft202012Validator(code_rules.rules_schema())
    assert not list(validator.iter_errors(data))
    from ipex_doctor.knowledge import schema

    assert not schema.errors(data, code_rules.rules_schema())
    edits: list[Callable[[dict[str, Any]], None]] = [
        lambda d: d["rules"][0].update(colour="red"),
        lambda d: d["rules"][0]["match"].update(text=["x"]),
        lambda d: d["rules"][0].update(match={}),
        lambda d: d["rules"][0].update(severity="fatal"),
        lambda d: d["rules"][0]["references"][0].update(url="http://example.org"),
        lambda d: d["rules"][0].update(applies_to=["makefile"]),
        lambda d: d["rules"][0]["match"].update(symbols=["a.*.b"]),
        lambda d: d.update(schema_version=2),
    ]
    for edit in edits:
        mutated = yaml.safe_load(resources.read_text("code_rules.yaml"))
        edit(mutated)
        assert list(validator.iter_errors(mutated)), edit
        assert schema.errors(mutated, code_rules.rules_schema()), edit


def test_importing_the_module_is_light() -> None:
    """Light commands may import this module: neither PyYAML nor the knowledge base load."""
    code = (
        "import sys, ipex_doctor.knowledge.code_rules\n"
        "print(sorted(m for m in ('yaml', 'ipex_doctor.knowledge.known_issues') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]"


# ------------------------------------------------------------------ one-line errors


def test_minimal_document_loads(tmp_path: Path) -> None:
    """A valid site file loads, with the defaults filled in."""
    rules = code_rules.load(write(tmp_path, MINIMAL)).rules
    assert len(rules) == 1
    rule = rules[0]
    assert rule.applies_to == code_rules.DEFAULT_APPLIES_TO
    assert (rule.needs_ipex, rule.ipex_build, rule.fix) == (False, IpexBuild.ANY, None)


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        pytest.param(
            "    recipe:",
            "    fixes: launcher\n    recipe:",
            r":10: rule 'my-rule', field 'fixes': unknown key 'fixes'; did you mean 'fix'\?",
            id="unknown-key",
        ),
        pytest.param(
            "      symbols: [mylib.old_api]",
            "      symbols: [mylib.old_api]\n      colour: red",
            r":8: rule 'my-rule', field 'match.colour': unknown key 'colour' \(known keys: symbols, imports, pattern, text, unless, when, in_files_with, unless_symbols, names\)",
            id="unknown-match-key",
        ),
        pytest.param(
            "      symbols: [mylib.old_api]",
            "      text: ['old_api']\n      unless_symbols: [mylib.old_api.kept]\n    applies_to: [shell]",
            r":8: rule 'my-rule', field 'match.unless_symbols': 'unless_symbols' belongs to a symbols rule; this is a text rule",
            id="unless-symbols-of-a-text-rule",
        ),
        pytest.param(
            "      symbols: [mylib.old_api]",
            "      symbols: [mylib.old_api]\n      text: ['old_api']",
            r":7: rule 'my-rule', field 'match': match needs exactly one of symbols, imports, pattern, text; found symbols, text",
            id="two-match-kinds",
        ),
        pytest.param(
            "    match:\n      symbols: [mylib.old_api]",
            "    match: {}",
            r":6: rule 'my-rule', field 'match': match needs exactly one of .*; found none",
            id="no-match-kind",
        ),
        pytest.param(
            "      symbols: [mylib.old_api]",
            "      text: ['unbalanced (']\n    applies_to: [shell]",
            r":7: rule 'my-rule', field 'match.text.0': invalid regular expression",
            id="bad-regex",
        ),
        pytest.param(
            "      symbols: [mylib.old_api]",
            "      text: ['(a+)+$']\n    applies_to: [shell]",
            r":7: rule 'my-rule', field 'match.text.0': regular expression has a quantified group",
            id="catastrophic-regex",
        ),
        pytest.param(
            "      symbols: [mylib.old_api]",
            "      text: ['ipexrun|']\n    applies_to: [shell]",
            r":7: rule 'my-rule', field 'match.text.0': regular expression matches an empty line",
            id="empty-matching-regex",
        ),
        pytest.param(
            "      symbols: [mylib.old_api]",
            "      text: ['ipexrun']",
            r":7: rule 'my-rule', field 'match.text': a text rule needs 'applies_to'",
            id="text-without-applies-to",
        ),
        pytest.param(
            "    recipe:",
            "    applies_to: [python, dockerfile]\n    recipe:",
            r":10: rule 'my-rule', field 'applies_to': a symbols rule reads Python source; dockerfile files",
            id="symbols-on-a-dockerfile",
        ),
        pytest.param(
            "    recipe:",
            "    kb: [dot-half, dot-halves]\n    recipe:",
            r":10: rule 'my-rule', field 'kb.1': unknown knowledge-base id 'dot-halves' \(did you mean 'dot-half'\?\)",
            id="unknown-kb-id",
        ),
        pytest.param(
            "  - id: my-rule",
            "  - id: dot-half",
            r":3: rule 'dot-half', field 'id': is also a knowledge-base id",
            id="id-of-a-kb-entry",
        ),
        pytest.param(
            "    recipe:",
            "    fix: autocast-gpu\n    recipe:",
            r":10: rule 'my-rule', field 'fix': unknown fix 'autocast-gpu' \(did you mean 'autocast-xpu'\?\) \(known: autocast-xpu, ",
            id="unknown-fix-id",
        ),
        pytest.param(
            "      symbols: [mylib.old_api]",
            "      pattern: with-or",
            r":7: rule 'my-rule', field 'match.pattern': unknown pattern 'with-or' \(did you mean 'with-and'\?\)",
            id="unknown-pattern",
        ),
        pytest.param(
            "    recipe: Call mylib.new_api instead.\n",
            "",
            r":3: rule 'my-rule': a rule without 'fix' needs a 'recipe'",
            id="no-fix-no-recipe",
        ),
        pytest.param(
            "severity: warning",
            "severity: fatal",
            r":5: rule 'my-rule', field 'severity': 'fatal' is not one of \['error', 'warning', 'info'\]",
            id="bad-severity",
        ),
        pytest.param(
            "https://example.org",
            "http://example.org",
            r":12: rule 'my-rule', field 'references.0.url': 'http://example.org/ticket/1' does not match",
            id="plain-http-reference",
        ),
        pytest.param(
            "[mylib.old_api]",
            "[mylib.*.old_api]",
            r":7: rule 'my-rule', field 'match.symbols.0': 'mylib.\*.old_api' does not match",
            id="glob-in-the-middle",
        ),
        pytest.param(
            "      symbols: [mylib.old_api]",
            "      symbols: [mylib.old_api]\n      unless: ['uninstall']",
            r":8: rule 'my-rule', field 'match.unless': 'unless' belongs to a text rule; this is a symbols rule",
            id="unless-on-a-symbols-rule",
        ),
        pytest.param(
            "      symbols: [mylib.old_api]",
            "      symbols: [mylib.old_api]\n      names: [is_mylib_available]",
            r":8: rule 'my-rule', field 'match.names': 'names' belongs to a pattern rule; this is a symbols rule",
            id="names-on-a-symbols-rule",
        ),
    ],
)
def test_bad_rules_are_one_line_errors_naming_the_line(
    tmp_path: Path, old: str, new: str, expected: str
) -> None:
    """Every mistake is one line: the file and line, the rule, the field, what is wrong."""
    assert old in MINIMAL
    message = error_of(tmp_path, MINIMAL.replace(old, new, 1))
    assert message.startswith(str(tmp_path / "rules.yaml") + ":"), message
    assert re.search(expected, message), message


def test_yaml_alias_is_refused(tmp_path: Path) -> None:
    """Aliases (the billion-laughs vector) are refused outright, naming the line."""
    text = MINIMAL.replace("why: Because", "why: &why Because").replace(
        "replacement: mylib.new_api", "replacement: *why"
    )
    message = error_of(tmp_path, text)
    assert re.search(r"rules\.yaml:8: YAML aliases are not allowed", message), message


def test_duplicate_id(tmp_path: Path) -> None:
    """Two rules with one id: the second is named, with the first's index."""
    entry = MINIMAL.split("rules:\n", 1)[1]
    message = error_of(tmp_path, MINIMAL + entry)
    assert re.search(r"rules\.yaml:13: rule 'my-rule', field 'id': duplicate id \(first defined as rules\[0\]\)", message), message  # fmt: skip


def test_every_error_is_collected_in_line_order(tmp_path: Path) -> None:
    """``check_document`` reports all errors, by line; the valid rules still load."""
    second = MINIMAL.split("rules:\n", 1)[1].replace("my-rule", "other-rule")
    third = second.replace("other-rule", "third-rule")
    text = (
        MINIMAL.replace("severity: warning", "severity: fatal")
        + second.replace("    recipe: Call mylib.new_api instead.\n", "")
        + third
    )
    checked = code_rules.check_document("rules.yaml", text)
    lines = [int(e.message.split(":")[1]) for e in checked.errors]
    assert lines == sorted(lines) and len(lines) == 2, [e.message for e in checked.errors]
    assert [r.id for r in checked.rules] == ["third-rule"]


def test_a_fix_is_checked_where_the_catalogue_is_given(tmp_path: Path) -> None:
    """The loader checks a rule's fix against the catalogue it is given (the codemods'), and
    from its cache too; without one (a ``kb`` command, which loads no codemod) it is unchecked."""
    text = MINIMAL.replace("    recipe:", "    fix: autocast-gpu\n    recipe:", 1)
    path = write(tmp_path, text)
    assert [r.fix for r in code_rules.load(path).rules] == ["autocast-gpu"]  # cached now
    with pytest.raises(KnowledgeBaseError, match="unknown fix 'autocast-gpu'"):
        code_rules.load(path, known_fixes=FIX_CATALOGUE)
    assert code_rules.load(known_fixes=FIX_CATALOGUE).rules


def test_known_ids_can_be_given(tmp_path: Path) -> None:
    """A caller with its own knowledge base (overlays) says which ids exist."""
    text = MINIMAL.replace("    recipe:", "    kb: [site-issue]\n    recipe:")
    rules = code_rules.load(write(tmp_path, text), known_ids={"site-issue"}).rules
    assert rules[0].kb == ("site-issue",)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("rules: [", r"rules\.yaml:\d+: malformed YAML"),
        ("- 1\n- 2\n", r"rules\.yaml:1: code rules: the top level must be a mapping"),
        ("schema_version: 1\n", r"rules\.yaml:1: code rules: 'rules' is a required property"),
        (
            "schema_version: 2\nrules: []\n",
            r"rules\.yaml:1: code rules, field 'schema_version': 1 was expected",
        ),
    ],
)
def test_bad_documents(tmp_path: Path, text: str, expected: str) -> None:
    """What is wrong with the document as a whole is one line too."""
    assert re.search(expected, error_of(tmp_path, text))


def test_missing_unreadable_and_huge_files(tmp_path: Path) -> None:
    """Missing files, directories, non-UTF-8 and oversized files are one-line errors."""
    with pytest.raises(KnowledgeBaseError, match="no such code-rules file"):
        code_rules.load(tmp_path / "absent.yaml")
    with pytest.raises(KnowledgeBaseError, match="is a directory"):
        code_rules.load(tmp_path)
    binary = tmp_path / "bin.yaml"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(KnowledgeBaseError, match="not UTF-8"):
        code_rules.load(binary)
    big = write(tmp_path, "# " + "x" * code_rules.MAX_FILE_BYTES, "big.yaml")
    with pytest.raises(KnowledgeBaseError, match="larger than"):
        code_rules.load(big)


def _overlay_ids() -> list[str]:
    return [issue.id for issue in known_issues.load().issues]


def test_an_overlay_adds_a_rule_and_replaces_one_in_place_saying_so(
    tmp_path: Path, shipped: code_rules.CodeRules
) -> None:
    """A new id comes after the shipped rules; a shipped id is replaced where it stood, its
    replacement is said in ``notes``, and both name the overlay as their source."""
    replaced = shipped.rules[3]
    first = write(tmp_path, MINIMAL, "first.yaml")
    second = write(
        tmp_path,
        MINIMAL.replace("my-rule", replaced.id).replace("A site rule", "Our own words"),
        "second.yaml",
    )
    rules = code_rules.with_overlays(
        shipped, [first, second], known_ids=_overlay_ids(), known_fixes=FIX_CATALOGUE
    )
    assert [r.id for r in rules.rules] == [*(r.id for r in shipped.rules), "my-rule"]
    assert rules.rules[3].title == "Our own words"
    assert rules.source_of(replaced.id) == str(second)
    assert rules.source_of("my-rule") == str(first)
    assert rules.source_of(shipped.rules[0].id) is None
    assert rules.sources == (*shipped.sources, str(first), str(second))
    assert rules.notes == (
        f"{second}: rule '{replaced.id}' replaces the one of {shipped.sources[0]}",
    )


def test_an_overlay_replacing_an_earlier_overlays_rule_names_that_file(
    tmp_path: Path, shipped: code_rules.CodeRules
) -> None:
    first = write(tmp_path, MINIMAL, "first.yaml")
    second = write(tmp_path, MINIMAL.replace("A site rule", "Again"), "second.yaml")
    rules = code_rules.with_overlays(
        shipped, [first, second], known_ids=_overlay_ids(), known_fixes=FIX_CATALOGUE
    )
    assert rules.notes == (f"{second}: rule 'my-rule' replaces the one of {first}",)
    assert rules.get("my-rule") is not None and rules.get("my-rule").title == "Again"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (("recipe: Call mylib.new_api instead.", "fix: no-such-fix"), "unknown fix 'no-such-fix'"),
        (("symbols: [mylib.old_api]", "text: ['(a+)+']\n    applies_to: [shell]"),
         "itself quantified"),
        (("id: my-rule", "id: dot-half"), "is also a knowledge-base id"),
    ],
)  # fmt: skip
def test_an_overlay_is_validated_as_the_shipped_file_its_fixes_always(
    tmp_path: Path, shipped: code_rules.CodeRules, change: tuple[str, str], said: str
) -> None:
    """An overlay's fix is checked even where the shipped rules' is not (a plain scan), a
    regex that can backtrack for minutes is refused, and so is a knowledge-base id."""
    overlay = write(tmp_path, MINIMAL.replace(*change))
    with pytest.raises(KnowledgeBaseError) as caught:
        code_rules.with_overlays(
            shipped, [overlay], known_ids=_overlay_ids(), known_fixes=FIX_CATALOGUE
        )
    assert said in caught.value.message and str(overlay) in caught.value.message
    assert "\n" not in caught.value.message
