"""A C++ build against IPEX's C++ library: CMake's ``find_package(IPEX)`` and what it sets, the
library named to the linker, and a ``cmake -D`` naming where IPEX lies. The CMake and shell
lines are the eighteenth audit's (rickybalin/ALCF's LibTorch examples on Aurora, whose
maintainer removed them with IPEX) and IPEX's own documents' (its DPC++ extension's
``CMakeLists.txt``); the Python lines are a build helper's link arguments."""

from __future__ import annotations

from pathlib import Path

import pytest
from scan_rules import found, scan, write

from ipex_doctor.knowledge import code_rules

SHIPPED = code_rules.load()
RULES = ("ipex-cpp-library", "ipex-cmake-variable")

CASES = {
    # Each line that finds, links or includes IPEX is one finding: the package or the library by
    # name is ipex-cpp-library's, a variable it set or a path named for IPEX is
    # ipex-cmake-variable's; torch's own lines, comments and messages are not IPEX's.
    "a LibTorch program's CMake build": (
        {
            "CMakeLists.txt": (
                "cmake_minimum_required(VERSION 3.5 FATAL_ERROR)\n"
                "find_package(Torch REQUIRED)\n"
                "set(TORCH_LIBS ${TORCH_LIBRARIES})\n"
                "find_library(IPEX_LIB intel-ext-pt-gpu PATHS ${INTEL_EXTENSION_FOR_PYTORCH_PATH}/lib NO_DEFAULT_PATH REQUIRED)\n"
                "set(TORCH_LIBS ${TORCH_LIBS} ${IPEX_LIB})\n"
                "include_directories(SYSTEM ${INTEL_EXTENSION_FOR_PYTORCH_PATH}/include)\n"
                "# find_package(IPEX REQUIRED) once built the same\n"
                'message(STATUS "IPEX libraries: ${IPEX_LIBRARIES}")\n'
                "add_executable(exe introspection.cpp)\n"
                "target_link_libraries(exe ${TORCH_LIBS})\n"
            ),
            "cmake/lltm.cmake": (
                "FIND_PACKAGE(IPEX REQUIRED)\n"
                'target_link_libraries(lltm_xpu "${TORCH_IPEX_LIBRARIES}")\n'
                "if(IPEX_FOUND)\n"
                "endif()\n"
            ),
            "doConfig.sh": (
                "#!/bin/bash\n"
                "cmake \\\n"
                "    -DCMAKE_PREFIX_PATH=`python -c 'import torch;print(torch.utils.cmake_prefix_path)'` \\\n"
                "    -DINTEL_EXTENSION_FOR_PYTORCH_PATH=`python -c 'import torch; print(torch.__path__[0])'` \\\n"
                "    ./\n"
                "make\n"
            ),
        },
        [
            ("CMakeLists.txt", 4, "ipex-cpp-library"),
            ("CMakeLists.txt", 5, "ipex-cmake-variable"),
            ("CMakeLists.txt", 6, "ipex-cmake-variable"),
            ("cmake/lltm.cmake", 1, "ipex-cpp-library"),
            ("cmake/lltm.cmake", 2, "ipex-cmake-variable"),
            ("cmake/lltm.cmake", 3, "ipex-cmake-variable"),
            ("doConfig.sh", 4, "ipex-cpp-library"),
        ],
    ),
    # A build helper that links the library by name; its shared object's file is
    # ipex-installed-file's, and a build target of IPEX's own (intel-ext-pt-gpu-op-...), a glob
    # of its file names or another library that starts the same is not the library.
    "a Python build helper's link arguments": (
        {
            "build.py": (
                'libraries = ["ze_loader", "sycl", "torch", "intel-ext-pt-gpu"]\n'
                "extra_link_args = ['-lintel-ext-pt-cpu']\n"
                'log = "Built target intel-ext-pt-gpu-op-TripleOps"\n'
                'preload = "libintel-ext-pt-gpu.so"\n'
                '_GPU_RUNTIME = ("libze_*", "libintel-ext-pt-gpu*")\n'
            ),
        },
        [("build.py", 1, "ipex-cpp-library"), ("build.py", 2, "ipex-cpp-library")],
    ),
    # ${IPEX_VERSION} in a shell script is an install's (the CMake variable rule reads CMake
    # alone); a CMake build of torch alone names nothing of IPEX's.
    "shell variables named for IPEX and torch's own CMake": (
        {
            "install.sh": 'pip install "intel-extension-for-pytorch==${IPEX_VERSION}"\n',
            "CMakeLists.txt": (
                "find_package(Torch REQUIRED)\n"
                "find_package(IPEXTools)\n"
                'target_link_libraries(app "${TORCH_LIBRARIES}")\n'
            ),
        },
        [],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_cpp_build_against_ipex_is_found_line_by_line(case: str, tmp_path: Path) -> None:
    files, expected = CASES[case]
    write(tmp_path, files)
    result = scan(tmp_path, SHIPPED, docs=True)
    assert [(p, line, rule) for p, line, rule, _ in found(result) if rule in RULES] == expected
