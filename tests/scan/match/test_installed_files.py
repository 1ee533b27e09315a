"""A build or script step that works on a file inside IPEX's installed package: the Dockerfile
line is real (adam2893/vellichor-web, whose maintainer removed it with IPEX: a patchelf step that
clears the executable-stack flag of IPEX's CPU library, which glibc 2.41 refuses to load
otherwise), trimmed; the preload is the form scripts use."""

from __future__ import annotations

from pathlib import Path

from scan_rules import places_of, write

from ipex_doctor.knowledge import code_rules

SHIPPED = code_rules.load()
RULE = "ipex-installed-file"


def _lines(root: Path) -> list[tuple[str, int]]:
    return places_of(root, SHIPPED, RULE)


def test_a_step_on_ipexs_library_is_found_where_it_names_the_file(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "Dockerfile": (
                "FROM python:3.11-slim\n"
                "RUN pip install intel-extension-for-pytorch==2.6.10+xpu\n"
                "# clear the execstack flag of IPEX's library\n"
                "RUN apt-get install -y patchelf \\\n"
                "    && patchelf --clear-execstack \\\n"
                "       /usr/local/lib/python3.11/site-packages/intel_extension_for_pytorch/lib/libintel-ext-pt-cpu.so \\\n"
                "    && true\n"
            ),
            "run.sh": (
                "#!/bin/sh\n"
                "export LD_PRELOAD=$VENV/lib/python3.10/site-packages/intel_extension_for_pytorch/lib/libintel-ext-pt-gpu.so\n"
                "python serve.py\n"
            ),
        },
    )
    assert _lines(tmp_path) == [("Dockerfile", 6), ("run.sh", 2)]


def test_deleting_or_printing_the_file_and_torchs_own_libraries_are_not_uses(
    tmp_path: Path,
) -> None:
    """Removing IPEX's files is the way off it; a message runs nothing; patching torch's own
    library is not IPEX's; the comment naming the library is a comment."""
    write(
        tmp_path,
        {
            "Dockerfile": (
                "FROM python:3.11-slim\n"
                "# patchelf .../intel_extension_for_pytorch/lib/libintel-ext-pt-cpu.so was needed once\n"
                "RUN rm -rf /usr/local/lib/python3.11/site-packages/intel_extension_for_pytorch/lib/\n"
                "RUN patchelf --clear-execstack /usr/local/lib/python3.11/site-packages/torch/lib/libtorch_cpu.so\n"
            ),
            "run.sh": 'echo "preloading intel_extension_for_pytorch/lib/libintel-ext-pt-cpu.so"\n',
        },
    )
    assert _lines(tmp_path) == []


def test_the_package_directory_and_its_library_directory_ending_a_path_are_found(
    tmp_path: Path,
) -> None:
    """na-radio-standalone's Dockerfile finds IPEX's shared libraries in the installed package
    and patches each; a library path ends at ``lib`` before the next entry of a search path.
    A package of another name that starts the same is not IPEX's."""
    write(
        tmp_path,
        {
            "Dockerfile": (
                "FROM python:3.10\n"
                "RUN find /usr/local/lib/python3.10/site-packages/intel_extension_for_pytorch"
                ' -name "*.so" -exec python /app/patch_elf.py {} \\;\n'
                "ENV LD_LIBRARY_PATH=/opt/venv/site-packages/intel_extension_for_pytorch/lib:$LD_LIBRARY_PATH\n"
                "RUN ls /opt/venv/site-packages/intel_extension_for_pytorch_helpers/\n"
                "RUN cat /opt/venv/site-packages/intel_extension_for_pytorch/library.txt\n"
            ),
        },
    )
    assert _lines(tmp_path) == [("Dockerfile", 2), ("Dockerfile", 3), ("Dockerfile", 5)]
