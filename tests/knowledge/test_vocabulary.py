"""The stack's vocabulary (ipex_doctor/knowledge/stack_vocabulary.json): names read from the
stack's own files place a text in the Intel stack and, where no layer's wording does, in the
layer that owns the name; the names other stacks share are not in it, and its lists are the
ones the real wheels give."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, real_env

from ipex_doctor.knowledge import known_issues, vocabulary
from ipex_doctor.knowledge.explain import diagnose, names_intel_stack
from ipex_doctor.knowledge.known_issues import LAYERS

sys.path.insert(0, str(REPO / "tools"))
import stack_vocabulary as generator  # noqa: E402

KB = known_issues.load()
DOCUMENT = json.loads(vocabulary.VOCABULARY_FILE.read_text(encoding="utf-8"))


def _named(text: str) -> str:
    found = diagnose(text, KB)
    if found.matches:
        return found.matches[0].issue.id
    return f"layer:{found.layer.layer.id}" if found.layer is not None else "nothing"


def test_every_vocabulary_says_its_layer_kind_and_source_and_no_term_has_two_layers() -> None:
    owners: dict[tuple[str, str], str] = {}
    for listed in DOCUMENT["vocabularies"]:
        assert listed["layer"] in LAYERS, listed["id"]
        assert listed["kind"] in vocabulary.Terms._fields, listed["id"]
        assert listed["source"] and listed["size"] == len(listed["terms"]) > 0, listed["id"]
        assert listed["terms"] == sorted(set(listed["terms"])), listed["id"]
        for term in listed["terms"]:
            key = (listed["kind"], term.lower() if listed["kind"] == "library" else term)
            assert owners.setdefault(key, listed["layer"]) == listed["layer"], term
    # NOTE: what the generator leaves out, and why, is in the file; none of it is a term
    assert set(DOCUMENT["excluded"]).isdisjoint(vocabulary.terms().library)


def test_the_runtime_wheels_libraries_and_result_codes_are_the_vocabularys() -> None:
    """Read again from the real oneAPI runtime wheels (intel-sycl-rt 2025.3.1 and what it
    pulls): every library they ship outside the excluded names, with its layer, and every
    ``ur_result_t`` code of the ur_api.h they install."""
    prefix = Path(real_env("rt-matched")).parent.parent
    shipped = vocabulary.terms()
    libraries = generator.wheel_libraries([prefix])
    assert {"runtime", "sycl-build"} <= set(libraries)
    for layer, sources in libraries.items():
        for stems in sources.values():
            assert {stem: shipped.library.get(stem) for stem in stems} == dict.fromkeys(
                stems, layer
            )
    codes = generator.unified_runtime_codes(prefix)
    assert "UR_RESULT_ERROR_DEVICE_LOST" in codes
    assert codes == {t for t in shipped.word if t.startswith("UR_RESULT_")}


def test_ipexs_wheel_gives_oneccls_library_and_variables() -> None:
    """The IPEX 2.7 CPU wheel bundles oneCCL and Intel MPI: libccl and the CCL_ and I_MPI_
    names in their libraries are the distributed layer's; their MPICH-ABI file names are not."""
    prefix = Path(real_env("ipex27-torch28")).parent.parent
    shipped = vocabulary.terms()
    libraries = generator.wheel_libraries([prefix])
    assert libraries["distributed"]
    assert all(shipped.library[s] == "distributed" for s in libraries["distributed"].popitem()[1])
    (libccl,) = [p for p in prefix.glob("**/libccl.so.1") if not p.is_symlink()][:1]
    variables = generator.binary_strings(libccl, r"CCL_[A-Z0-9]+(?:_[A-Z0-9]+)*")
    assert "CCL_LOG_LEVEL" in variables
    assert all(shipped.word.get(name) == "distributed" for name in variables)
    assert "mpi" not in shipped.library and "fabric" not in shipped.library


@pytest.mark.parametrize(
    ("text", "named"),
    [
        # Intel MPI's own variable above its startup failure: the collectives' launcher
        (
            "[0] MPI startup(): I_MPI_FABRICS=shm:ofi\nAbort(1615247) on node 0 (rank 0 in comm 0): "
            "Fatal error in PMPI_Init: Other MPI error",
            "layer:distributed",
        ),
        # a frame of the GPU compute runtime, by its C++ namespace
        (
            "#0  0x00007ffff5a1b2c4 in NEO::DrmMemoryManager::allocateGraphicsMemoryWithProperties "
            "(this=0x555555f3c0a0)\n#1  0x00007ffff59e2d10 in ?? ()",
            "layer:level-zero",
        ),
        # a compute runtime setting given a value above the crash it may have caused
        (
            "$ export EnableImplicitScaling=0\n$ python train.py\nSegmentation fault (core dumped)",
            "layer:level-zero",
        ),
        # the Level Zero loader's logging variable
        (
            "ZEL_LOADER_LOGGING_LEVEL=trace python app.py\nFloating point exception (core dumped)",
            "layer:level-zero",
        ),
        # torch's XPU quantizer for Inductor, as a Windows path
        (
            '  File "C:\\venv\\Lib\\site-packages\\torch\\ao\\quantization\\quantizer\\'
            "xpu_inductor_quantizer.py\", line 88, in annotate\nKeyError: 'conv'",
            "layer:compiler",
        ),
        # oneDNN's ISA variable makes the text the stack's; the layer is the wording's (cpu)
        ("DNNL_MAX_CPU_ISA=AVX2 python bench.py\nIllegal instruction (core dumped)", "layer:cpu"),
        # a library of the runtime wheels that no wording names
        ("Segmentation fault in libtcm.so.1 (thread 7)", "layer:runtime"),
    ],
)
def test_a_name_of_the_stack_places_a_text_no_wording_places(text: str, named: str) -> None:
    assert names_intel_stack(text, KB)
    assert _named(text) == named


def test_between_layers_that_only_names_place_the_lowest_rung_wins() -> None:
    """A library of the runtime (libumf) and a variable of the Level Zero loader: the loader is
    under the runtime, so its layer; a layer's wording outranks any name."""
    text = "Segmentation fault in libumf.so.1 (thread 7)\nZEL_ENABLE_LOADER_LOGGING=1"
    assert vocabulary.hits(text) and _named(text) == "layer:level-zero"
    worded = "I_MPI_FABRICS=shm\nRuntimeError: XPU out of memory. Tried to allocate 2.00 GiB"
    assert _named(worded) == "xpu-out-of-memory"


PROSE = "The option EnableImplicitScaling is discussed in the README"
NEAR_MISSES = [
    # the Khronos ICD loader, MPICH's ABI names, oneTBB, hwloc, numba's SVML: every stack's
    "OSError: libOpenCL.so.1: cannot open shared object file: No such file or directory",
    "error while loading shared libraries: libmpi.so.12: cannot open shared object file",
    "ImportError: libtbb.so.12: cannot open shared object file: No such file or directory",
    "OSError: libhwloc.so.15: cannot open shared object file",
    "NumbaWarning: libsvml.so: cannot open shared object file; SVML not available",
    # OpenCL's codes from AMD's and NVIDIA's platforms
    "clEnqueueNDRangeKernel returned CL_OUT_OF_RESOURCES (-5) on AMD Accelerated Parallel Processing",
    "clBuildProgram: CL_BUILD_PROGRAM_FAILURE on platform NVIDIA CUDA",
    # CUDA, ROCm, MPS and NCCL with their own variables and libraries
    "NCCL WARN NET/IB : No device found.\nNCCL_DEBUG=INFO\nlibnccl.so.2: cannot open shared object",
    "HIP error: hipErrorNoDevice\nHIP_VISIBLE_DEVICES=0 libamdhip64.so",
    "PYTORCH_ENABLE_MPS_FALLBACK=1\nRuntimeError: MPS backend out of memory",
    "CUDA_VISIBLE_DEVICES=0 python x.py\nRuntimeError: CUDA error: out of memory",
    # plain Python, and a compute runtime setting named in prose (no value given)
    "OMP_NUM_THREADS=4 python run.py\nValueError: too many values to unpack (expected 2)",
    PROSE,
    '  File "/venv/lib/python3.12/site-packages/torch/cuda/__init__.py", line 3\nKeyError: 1',
]


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_a_name_other_stacks_share_is_no_name_of_the_stack(text: str) -> None:
    assert vocabulary.hits(text) == []


def test_the_near_misses_hold_the_broader_names_they_stand_guard_against(tmp_path: Path) -> None:
    """A vocabulary that kept what the generator leaves out (every library the wheels ship,
    OpenCL's codes, every upper-case variable) would claim the near misses: they test
    something."""
    broad = dict(DOCUMENT)
    broad["vocabularies"] = [
        *DOCUMENT["vocabularies"],
        {"id": "broad", "layer": "runtime", "kind": "library", "source": "-", "size": 7,
         "terms": ["opencl", "mpi", "tbb", "hwloc", "svml", "nccl", "amdhip64"]},
        {"id": "broad-words", "layer": "runtime", "kind": "word", "source": "-", "size": 6,
         "terms": ["CL_OUT_OF_RESOURCES", "CL_BUILD_PROGRAM_FAILURE", "NCCL_DEBUG",
                   "HIP_VISIBLE_DEVICES", "PYTORCH_ENABLE_MPS_FALLBACK", "CUDA_VISIBLE_DEVICES",
                   "OMP_NUM_THREADS"]},
        {"id": "broad-paths", "layer": "torch", "kind": "path", "source": "-", "size": 1,
         "terms": ["torch/cuda/__init__.py"]},
    ]  # fmt: skip
    path = tmp_path / "broad.json"
    path.write_text(json.dumps(broad), encoding="utf-8")
    # NOTE: the setting named in prose is a shipped name: the positive case beside it
    # ("export EnableImplicitScaling=0") is what it stands guard against
    assert [text for text in NEAR_MISSES if not vocabulary.hits(text, path)] == [PROSE]


def test_explain_reads_the_vocabulary_only_when_it_explains() -> None:
    """Importing explain (kb list, kb show, --help) reads no vocabulary file."""
    code = (
        "import ipex_doctor.knowledge.explain, ipex_doctor.knowledge.vocabulary as v\n"
        "print(v.terms.cache_info().currsize)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "0"
