"""Write explain's stack vocabulary (ipex_doctor/knowledge/stack_vocabulary.json) from the software.

    python tools/stack_vocabulary.py --runtime-env PREFIX --ipex-env PREFIX [--ipex-env PREFIX]
                                     --level-zero DIR --level-zero-version TAG [--check]

Each vocabulary is read from the stack's own files, never from the texts of the corpus:

* the shared libraries each layer ships: the file names in the wheels' RECORD (the oneAPI
  runtime wheels intel-sycl-rt, intel-cmplr-lib-ur, intel-cmplr-lib-rt, intel-opencl-rt, umf,
  tcmlib under ``--runtime-env``; IPEX's CPU wheels, with the oneCCL they bundle, under each
  ``--ipex-env``), and the Level Zero drivers the loader looks for (its sources under
  ``--level-zero``, a checkout of oneapi-src/level-zero);
* the result codes: ``ze_result_t`` of Level Zero's ze_api.h, ``ur_result_t`` of the ur_api.h
  that intel-sycl-rt installs;
* the environment variables each layer reads: the names the Level Zero loader's sources pass to
  getenv, and the upper-case strings of a layer's prefix inside its own libraries (libsycl,
  Unified Runtime's loader and Level Zero adapter, oneCCL's libccl, the Intel MPI that IPEX's
  wheel bundles, IPEX's own library with the oneDNN built into it).

Which layer owns which library or prefix is the table below (``LIBRARY_LAYERS``,
``STRING_FAMILIES``), and so are the names left out because they are not the Intel stack's
alone (``EXCLUDED``): the Khronos OpenCL ICD loader, hwloc, libfabric, the MPICH-ABI names of
Intel MPI, oneTBB and the compiler runtime that CPU programs everywhere load. ``--check``
compares the file with what the sources give now and exits 1 when they differ.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "ipex_doctor" / "knowledge" / "stack_vocabulary.json"

LIBRARY_LAYERS = {
    # wheel (distribution name) -> layer of every library it ships, less EXCLUDED
    "intel_sycl_rt": "runtime",
    "intel_cmplr_lib_ur": "runtime",
    "intel_cmplr_lib_rt": "runtime",
    "intel_opencl_rt": "runtime",
    "umf": "runtime",
    "tcmlib": "runtime",
    "intel_extension_for_pytorch": "torch",
}
LIBRARY_OVERRIDES = {
    # the link-time optimisation plugin of oneAPI's icx, in the compiler runtime wheel
    "icx-lto": "sycl-build",
    # oneCCL, which IPEX's CPU wheels bundle
    "ccl": "distributed",
}
EXCLUDED = {
    "opencl": "the Khronos OpenCL ICD loader: every vendor's OpenCL loads it",
    "hwloc": "the Portable Hardware Locality library, of every HPC stack",
    "fabric": "libfabric and its providers, of every HPC stack",
    "mpi": "Intel MPI's MPICH-ABI name, the same file name as MPICH's",
    "mpicxx": "Intel MPI's MPICH-ABI name, the same file name as MPICH's",
    "mpifort": "Intel MPI's MPICH-ABI name, the same file name as MPICH's",
    "tbb": "oneTBB, which CPU programs everywhere load without the GPU stack",
    "imf": "the Intel compiler runtime, which CPU programs (numba's icc_rt) load anywhere",
    "intlc": "the Intel compiler runtime, which CPU programs load anywhere",
    "irc": "the Intel compiler runtime, which CPU programs load anywhere",
    "irng": "the Intel compiler runtime, which CPU programs load anywhere",
    "svml": "the Intel compiler runtime, which CPU programs (numba's icc_rt) load anywhere",
    "qkmalloc": "an allocator of the compiler runtime, no layer of its own",
    "onnxruntime": "ONNX Runtime's own library name, which every ONNX Runtime ships",
    "_c": "a Python extension's generic name",
    "_isa_help": "a Python extension's generic name",
}
"""Library stems (no ``lib``, no version) the wheels ship that are no word of the Intel stack
alone, with the reason. Each layer's other libraries are, as are the CL_* codes only with an
Intel word (OpenCL's codes are every vendor's: explain's code facts handle that)."""
STRING_FAMILIES: tuple[tuple[str, str, str, str], ...] = (
    # (library glob under the environment, name regex, layer, what it is)
    (
        "lib/libsycl.so.*",
        r"SYCL_[A-Z0-9]+(?:_[A-Z0-9]+)+",
        "runtime",
        "the SYCL runtime's variables",
    ),
    (
        "lib/libsycl.so.*",
        r"ONEAPI_[A-Z0-9]+(?:_[A-Z0-9]+)+",
        "selection",
        "oneAPI's device selector",
    ),
    (
        "lib/libur_loader.so.*",
        r"UR_(?:ADAPTERS|LOADER|LOG|ENABLE)_[A-Z0-9_]*[A-Z0-9]",
        "runtime",
        "Unified Runtime's loader variables",
    ),
    (
        "lib/libur_adapter_level_zero.so.*",
        r"UR_L0_[A-Z0-9_]*[A-Z0-9]",
        "runtime",
        "Unified Runtime's Level Zero adapter variables",
    ),
    (
        "lib/libur_adapter_level_zero.so.*",
        r"ZES?_(?!RESULT_)[A-Z0-9_]*[A-Z0-9]",
        "level-zero",
        "the Level Zero variables Unified Runtime's adapter reads",
    ),
    ("**/libccl.so.*", r"CCL_[A-Z0-9]+(?:_[A-Z0-9]+)*", "distributed", "oneCCL's variables"),
    (
        "**/opt/mpi/lib/libmpi.so.*",
        r"I_MPI_[A-Z0-9_]*[A-Z0-9]",
        "distributed",
        "Intel MPI's variables",
    ),
    ("**/libintel-ext-pt-cpu.so", r"IPEX_[A-Z0-9_]*[A-Z0-9]", "torch", "IPEX's variables"),
    (
        "**/libintel-ext-pt-cpu.so",
        r"(?:ONEDNN|DNNL)_[A-Z0-9_]*[A-Z0-9]",
        "onednn",
        "oneDNN's variables, as IPEX builds it in",
    ),
)
SELECTION = {"SYCL_DEVICE_FILTER", "SYCL_DEVICE_ALLOWLIST"}
"""The SYCL runtime's variables that choose devices: the selection layer's, not the runtime's."""
SYCL_BUILD = re.compile(r"SYCL_(PROGRAM_|JIT_|DEVICELIB_|USE_KERNEL_SPV|DUMP_IMAGES)")
"""The SYCL runtime's variables that change how device programs are built."""
_LIBRARY = re.compile(
    r"(?:^|/)(lib)?([\w+-]+?(?:\.[a-z][\w+-]*)*?)(?:\.\d+)*(?:\.so(?:\.\d+)*|\.dll)$"
)


def library_stem(name: str) -> str:
    """``libsycl.so.8`` -> ``sycl``; ``ze_loader.dll`` -> ``ze_loader``."""
    hit = _LIBRARY.search(name)
    return hit[2].lower() if hit else ""


def _records(prefix: Path) -> Iterable[tuple[str, str, str]]:
    """(distribution, version, file) for every file of every wheel under ``prefix``."""
    for record in sorted(prefix.glob("lib/python3*/site-packages/*.dist-info/RECORD")):
        dist, _, version = record.parent.name.removesuffix(".dist-info").partition("-")
        for line in record.read_text(encoding="utf-8").splitlines():
            yield dist.lower(), version, line.split(",", 1)[0]


def wheel_libraries(prefixes: list[Path]) -> dict[str, dict[str, set[str]]]:
    """Per layer, per source (wheel and version), the library stems the wheels ship."""
    found: dict[str, dict[str, set[str]]] = {}
    for prefix in prefixes:
        for dist, version, path in _records(prefix):
            stem = library_stem(path)
            layer = LIBRARY_OVERRIDES.get(stem) or LIBRARY_LAYERS.get(dist)
            if not stem or layer is None or stem in EXCLUDED or stem.startswith(("_c", "_")):
                continue
            # NOTE: libfabric's providers (libtcp-fi, libverbs-1.1-fi) are generic HPC names
            if stem.endswith("-fi") or stem.startswith("fabric"):
                continue
            found.setdefault(layer, {}).setdefault(f"{dist} {version} wheel (RECORD)", set()).add(
                stem
            )
    return found


def level_zero(checkout: Path) -> tuple[set[str], set[str], dict[str, set[str]]]:
    """Level Zero's result codes (ze_api.h), the variables its loader reads, and the library
    stems of the drivers and layers the loader looks for, by layer."""
    header = (checkout / "include" / "ze_api.h").read_text(encoding="utf-8")
    enum = header[header.index("typedef enum _ze_result_t") :]
    enum = enum[: enum.index("} ze_result_t;")]
    codes = set(re.findall(r"^\s+(ZE_RESULT_[A-Z0-9_]+)\b", enum, re.MULTILINE))
    codes.discard("ZE_RESULT_FORCE_UINT32")
    variables: set[str] = set()
    # NOTE: the loader's own library is named by the top-level CMake target
    cmake = (checkout / "CMakeLists.txt").read_text(encoding="utf-8")
    libraries: dict[str, set[str]] = {
        "level-zero": set(re.findall(r"set\(TARGET_LOADER_NAME (\w+)\)", cmake))
    }
    for source in sorted((checkout / "source").rglob("*.[ch]*")):
        text = source.read_text(encoding="utf-8", errors="replace")
        variables |= set(re.findall(r"getenv\w*\(\s*\"(ZEL?_[A-Z0-9_]+)\"", text))
        if "loader" in source.parts or "layers" in source.parts:
            for stem in re.findall(r"\"(?:lib)?(ze_(?:loader|intel_\w+|\w+_layer))\b", text):
                libraries.setdefault("npu" if re.search("npu|vpu", stem) else "level-zero",
                                     set()).add(stem)  # fmt: skip
    return codes, variables, libraries


def unified_runtime_codes(prefix: Path) -> set[str]:
    """``ur_result_t`` of the ur_api.h the runtime wheels install."""
    header = (prefix / "include" / "ur_api.h").read_text(encoding="utf-8")
    enum = header[header.index("typedef enum ur_result_t") :]
    enum = enum[: enum.index("} ur_result_t;")]
    codes = set(re.findall(r"^\s+(UR_RESULT_[A-Z0-9_]+)\b", enum, re.MULTILINE))
    codes.discard("UR_RESULT_FORCE_UINT32")
    return codes


def binary_strings(path: Path, pattern: str) -> set[str]:
    """The NUL-terminated strings of ``path`` that are ``pattern`` whole."""
    data = path.read_bytes()
    return {m.decode() for m in re.findall(rb"(?<=\x00)(" + pattern.encode() + rb")(?=\x00)", data)}


def _version_of(prefix: Path, library: Path) -> str:
    for dist, version, path in _records(prefix):
        if path.endswith(library.name) or library.name.startswith(Path(path).name):
            return f"{dist} {version}"
    return "?"


def compute_runtime(checkout: Path) -> tuple[set[str], set[str]]:
    """The GPU compute runtime's debug and release settings (what it reads from the
    environment once NEOReadDebugKeys=1, and the release ones always), from its declarations,
    and its C++ namespaces."""
    settings = {"NEOReadDebugKeys"}
    folder = checkout / "shared" / "source" / "debug_settings"
    for declarations in sorted(folder.glob("*variables*.inl")):
        text = declarations.read_text(encoding="utf-8")
        settings |= set(
            re.findall(r"DECLARE_(?:DEBUG|RELEASE)_(?:SCOPED_)?VARIABLE\([^,]+,\s*(\w+)", text)
        )
    return settings, {"NEO::", "L0::"}


_XPU_MODULE = re.compile(r"(?:^|[/_])(?:xpu|xccl)(?:[/_.]|$)")
TORCH_PATH_LAYERS = (("torch/_inductor/", "compiler"), ("torch/ao/", "compiler"),
                     ("torch/distributed/", "distributed"), ("torch/", "torch"))  # fmt: skip
"""The layer of a torch module or header with XPU in its name, by the first prefix it has."""


def torch_xpu_paths(prefix: Path) -> tuple[str, dict[str, set[str]]]:
    """The files of the torch wheel under ``prefix`` whose path names XPU or XCCL (a folder
    ``xpu``, a file ``xpu_*``/``*_xpu``): torch's own XPU modules and headers, by layer."""
    found: dict[str, set[str]] = {}
    source = ""
    for dist, version, path in _records(prefix):
        if dist != "torch" or "__pycache__" in path or not _XPU_MODULE.search(path):
            continue
        source = f"torch {version} wheel (RECORD)"
        layer = next(layer for start, layer in TORCH_PATH_LAYERS if path.startswith(start))
        found.setdefault(layer, set()).add(path)
    return source, found


def vocabularies(
    runtime: Path,
    ipex: list[Path],
    checkout: Path,
    version: str,
    neo: Path,
    neo_version: str,
    torch_env: Path,
) -> list[dict[str, object]]:
    """Every vocabulary, each with its layer, kind, source and sorted terms."""
    found: list[dict[str, object]] = []

    def add(ident: str, layer: str, kind: str, source: str, terms: Iterable[str]) -> None:
        listed = sorted(set(terms))
        if listed:
            found.append({"id": ident, "layer": layer, "kind": kind, "source": source,
                          "size": len(listed), "terms": listed})  # fmt: skip

    for layer, sources in sorted(wheel_libraries([runtime, *ipex]).items()):
        for source, stems in sorted(sources.items()):
            add(f"{layer}-libraries {source.split()[0]}", layer, "library", source, stems)
    codes, variables, drivers = level_zero(checkout)
    tag = f"oneapi-src/level-zero {version}"
    add("level-zero-results", "level-zero", "word", f"{tag} include/ze_api.h (ze_result_t)", codes)
    add("level-zero-variables", "level-zero", "word", f"{tag} source/ (getenv names)", variables)
    for layer, stems in sorted(drivers.items()):
        add(f"{layer}-loader-libraries", layer, "library",
            f"{tag} CMakeLists.txt (the loader), source/loader and source/layers (what it loads)", stems)  # fmt: skip
    add("unified-runtime-results", "runtime", "word",
        f"{_version_of(runtime, runtime / 'include' / 'ur_api.h')} include/ur_api.h (ur_result_t)",
        unified_runtime_codes(runtime))  # fmt: skip
    settings, namespaces = compute_runtime(neo)
    where = f"intel/compute-runtime {neo_version}"
    add(
        "level-zero-settings",
        "level-zero",
        "setting",
        f"{where} shared/source/debug_settings/*variables*.inl (DECLARE_*_VARIABLE)",
        settings,
    )
    add(
        "level-zero-namespaces",
        "level-zero",
        "namespace",
        f"{where} (namespace NEO in shared/, namespace L0 in level_zero/)",
        namespaces,
    )
    source, paths = torch_xpu_paths(torch_env)
    for layer, found_paths in sorted(paths.items()):
        add(f"{layer}-torch-xpu-paths", layer, "path", source, found_paths)
    for glob, pattern, layer, what in STRING_FAMILIES:
        for prefix in [runtime, *ipex]:
            for library in sorted(prefix.glob(glob)):
                if library.is_symlink():
                    continue
                names = binary_strings(library, pattern)
                source = f"{_version_of(prefix, library)}: strings of {library.name} ({what})"
                by_layer: dict[str, set[str]] = {}
                for name in names:
                    owner = layer
                    if name in SELECTION:
                        owner = "selection"
                    elif layer == "runtime" and SYCL_BUILD.match(name):
                        owner = "sycl-build"
                    by_layer.setdefault(owner, set()).add(name)
                for owner, terms in sorted(by_layer.items()):
                    add(
                        f"{owner}-variables {library_stem(library.name)}",
                        owner,
                        "word",
                        source.replace(library.name, f"lib{library_stem(library.name)}.so"),
                        terms,
                    )
    return _merged(found)


def _merged(found: list[dict[str, object]]) -> list[dict[str, object]]:
    """One vocabulary per id: the same library read from two wheels' versions is one list."""
    merged: dict[str, dict[str, object]] = {}
    for vocabulary in found:
        ident = str(vocabulary["id"])
        if ident in merged:
            old = merged[ident]
            terms = sorted(set(old["terms"]) | set(vocabulary["terms"]))  # type: ignore[call-overload]
            source = (
                old["source"]
                if vocabulary["source"] == old["source"]
                else (f"{old['source']}; {vocabulary['source']}")
            )
            old.update(terms=terms, size=len(terms), source=source)
        else:
            merged[ident] = dict(vocabulary)
    return list(merged.values())


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runtime-env", type=Path, required=True)
    parser.add_argument("--ipex-env", type=Path, action="append", default=[])
    parser.add_argument("--level-zero", type=Path, required=True)
    parser.add_argument("--level-zero-version", required=True, help="its tag and commit")
    parser.add_argument("--compute-runtime", type=Path, required=True)
    parser.add_argument("--compute-runtime-version", required=True, help="its tag and commit")
    parser.add_argument("--torch-env", type=Path, required=True)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    document = {
        "about": "Words of the Intel stack by layer, read from its own files by "
        "tools/stack_vocabulary.py (never edited by hand); explain reads them "
        "(ipex_doctor/knowledge/vocabulary.py). Each term is Intel-only.",
        "excluded": EXCLUDED,
        "vocabularies": vocabularies(
            args.runtime_env,
            args.ipex_env,
            args.level_zero,
            args.level_zero_version,
            args.compute_runtime,
            args.compute_runtime_version,
            args.torch_env,
        ),
    }
    text = json.dumps(document, indent=1, sort_keys=False) + "\n"
    if args.check:
        same = OUTPUT.read_text(encoding="utf-8") == text
        print("stack_vocabulary.json is " + ("current" if same else "out of date"))
        return 0 if same else 1
    OUTPUT.write_text(text, encoding="utf-8")
    total = sum(int(str(v["size"])) for v in document["vocabularies"])  # type: ignore[attr-defined]
    print(f"wrote {OUTPUT.relative_to(ROOT)}: {total} terms")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
