"""ipex-llm (``ipex_llm``, ``bigdl.llm`` before March 2024), which Intel archived on 2026-01-28:
its imports and uses in Python (and LlamaIndex's and LangChain's classes built on it), its
requirement and install lines, its environment script, its commands and settings, and its
container images are found, each by its own rule, and ``--fix`` leaves them to the user (no
mechanical replacement: the upstream class it wrapped takes other arguments)."""

from __future__ import annotations

from pathlib import Path

from scan_rules import found, scan, write

from ipex_doctor.knowledge import code_rules

SHIPPED = code_rules.load()

# NOTE: the shape of ipex-llm's own GPU examples (python/llm/example/GPU/HuggingFace/LLM)
GENERATE = """\
import torch

from ipex_llm.transformers import AutoModelForCausalLM
from transformers import LlamaTokenizer

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-chat-hf",
                                             load_in_4bit=True,
                                             optimize_model=True)
model = model.half().to("xpu")
"""
BIGDL = """\
from bigdl.llm import optimize_model
import bigdl.llm.transformers as llm_t

model = optimize_model(load())
other = llm_t.AutoModel.from_pretrained("x", load_in_4bit=True)
"""
# NOTE: LlamaIndex's and LangChain's classes built on it (the nineteenth audit's RAG demos)
RAG = """\
from llama_index.llms.ipex_llm import IpexLLM
from llama_index.embeddings.ipex_llm import IpexLLMEmbedding
from langchain_community.llms import IpexLLM as LcIpexLLM

llm = IpexLLM.from_model_id_low_bit(model_name="m", tokenizer_name="m", device_map="xpu")
embed = IpexLLMEmbedding(model_name="bge", device="xpu")
lc = LcIpexLLM.from_model_id(model_id="m")
"""
# NOTE: names that only resemble it: a project's own module, a URL, a checkout, a listing
NEAR = """\
import ipex_llm_helpers
from mytools import bigdl
url = "https://github.com/intel/ipex-llm"
"""


def test_ipex_llm_in_code_requirements_scripts_and_images_is_found(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "generate.py": GENERATE,
            "old.py": BIGDL,
            "rag.py": RAG,
            "serve.sh": (
                "export IPEX_LLM_QUANTIZE_KV_CACHE=1\n"
                "python -m ipex_llm.vllm.xpu.entrypoints.openai.api_server --port 8000\n"
            ),
            "compose.yaml": (
                "services:\n  ollama:\n    command: >\n"
                '      bash -c "source ipex-llm-init --gpu --device Arc && ollama serve"\n'
            ),
            "near.py": NEAR,
            "requirements.txt": "transformers==4.37.0\nipex-llm[xpu]==2.2.0\n",
            "Dockerfile": (
                "FROM intelanalytics/ipex-llm-serving-xpu:0.8.3-b19\n"
                "RUN pip install --pre --upgrade ipex-llm[cpp]\n"
            ),
            "run.sh": (
                "#!/bin/bash\ngit clone https://github.com/intel/ipex-llm.git\ncd ipex-llm\n"
                "pip list | grep ipex-llm\nsource ipex-llm-init -t\npython generate.py\n"
            ),
        },
    )
    result = scan(tmp_path, SHIPPED)
    assert [(path, line, rule) for path, line, rule, _ in found(result)] == [
        ("Dockerfile", 1, "ipex-llm-container-image"),
        ("Dockerfile", 2, "ipex-llm-requirement"),
        ("compose.yaml", 4, "ipex-llm-init"),
        ("generate.py", 3, "ipex-llm-import"),
        ("generate.py", 6, "ipex-llm-api"),
        ("old.py", 1, "ipex-llm-import"),
        ("old.py", 2, "ipex-llm-import"),
        ("old.py", 4, "ipex-llm-api"),
        ("old.py", 5, "ipex-llm-api"),
        ("rag.py", 1, "ipex-llm-integration-import"),
        ("rag.py", 2, "ipex-llm-integration-import"),
        ("rag.py", 3, "ipex-llm-integration-import"),
        ("rag.py", 5, "ipex-llm-api"),
        ("rag.py", 6, "ipex-llm-api"),
        ("rag.py", 7, "ipex-llm-api"),
        ("requirements.txt", 2, "ipex-llm-requirement"),
        ("run.sh", 4, "ipex-llm-command"),
        ("run.sh", 5, "ipex-llm-init"),
        ("serve.sh", 1, "ipex-llm-command"),
        ("serve.sh", 2, "ipex-llm-command"),
    ]
    assert not any(match.mechanical for match in result.matches)
