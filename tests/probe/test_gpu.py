"""The Intel GPU stack below torch, read from sysfs / device-node trees and from Level Zero.

The trees are **constructed** after published layouts (Linux's sysfs PCI ABI,
Documentation/ABI/testing/sysfs-bus-pci: ``vendor``, ``device``, ``class`` files and a
``driver`` link per device; Intel's driver guide for the ``render`` group on
``/dev/dri/renderD128``, https://dgpu-docs.intel.com/driver/installation.html): no Intel GPU
exists on this project's machines. This machine's own tree and its real Level Zero loader are
read as well.
"""

from __future__ import annotations

import grp
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from audited import started_by
from conftest import venv_with_a_site_hook

from ipex_doctor import resources
from ipex_doctor.probe import gpu, host

ARC_A770 = ("0000:03:00.0", "0x8086", "0x56a0", "0x030000", "i915")
BATTLEMAGE_UNBOUND = ("0000:04:00.0", "0x8086", "0xe20b", "0x030000", None)
H100 = ("0000:17:00.0", "0x10de", "0x2330", "0x030200", "nvidia")


def build_tree(root: Path, *devices: tuple[str, str, str, str, str | None], nodes: int = 0,
               node_group: int | None = None, node_mode: int = 0o660, container: bool = False,
               wsl: bool = False) -> Path:  # fmt: skip
    """A sysfs/dev/proc tree with ``devices`` on the PCI bus and ``nodes`` render nodes."""
    for slot, vendor, device, klass, driver in devices:
        where = root / "sys/bus/pci/devices" / slot
        where.mkdir(parents=True)
        for name, value in (("vendor", vendor), ("device", device), ("class", klass)):
            (where / name).write_text(value + "\n")
        if driver:
            target = root / "sys/bus/pci/drivers" / driver
            target.mkdir(parents=True, exist_ok=True)
            (where / "driver").symlink_to(target)
    (root / "dev/dri").mkdir(parents=True, exist_ok=True)
    for index in range(nodes):
        node = root / "dev/dri" / f"renderD{128 + index}"
        node.write_text("")
        node.chmod(node_mode)
        if node_group is not None:
            os.chown(node, -1, node_group)
    (root / "proc").mkdir(exist_ok=True)
    (root / "proc/version").write_text(
        "Linux version 5.15.153.1-microsoft-standard-WSL2\n" if wsl else "Linux version 6.8.0\n"
    )
    if container:
        (root / ".dockerenv").write_text("")
    return root


def test_an_arc_a770_bound_to_i915_is_found_with_its_family(tmp_path: Path) -> None:
    root = build_tree(tmp_path, ARC_A770, H100, nodes=1)
    found = gpu.display_devices(root)
    assert [d["vendor"] for d in found] == ["0x8086", "0x10de"]
    arc = found[0]
    assert arc["driver"] == "i915" and arc["family"].startswith("Arc A-series")
    assert "family" not in found[1]  # not Intel: listed, not classified


def test_a_battlemage_without_a_driver_needs_xe(tmp_path: Path) -> None:
    found = gpu.display_devices(build_tree(tmp_path, BATTLEMAGE_UNBOUND))
    assert found[0]["driver"] is None and found[0]["drivers"] == ["xe"]


def test_render_node_access_and_group(tmp_path: Path) -> None:
    root = build_tree(tmp_path, ARC_A770, nodes=2)
    nodes = host.render_nodes(root)
    assert [n["path"] for n in nodes] == ["/dev/dri/renderD128", "/dev/dri/renderD129"]
    assert all(n["in_group"] for n in nodes)  # created by this user
    assert grp.getgrgid(os.getegid()).gr_name == nodes[0]["group"]


def test_containers_and_wsl_are_recognised(tmp_path: Path) -> None:
    assert gpu.surroundings(build_tree(tmp_path / "a", container=True))["container"] is True
    assert gpu.surroundings(build_tree(tmp_path / "b", wsl=True))["wsl"] is True
    assert gpu.surroundings(build_tree(tmp_path / "c")) == {"container": False, "wsl": False,
                                                            "dxg": False}  # fmt: skip


def test_the_real_pci_bus_is_read_and_classified() -> None:
    """Real: whatever display devices this machine has are listed with vendor and driver, and
    an Intel one gets a family (tested on the hardware found, not on what a machine lacks)."""
    for device in gpu.display_devices():
        assert {"slot", "vendor", "device", "driver"} <= set(device), device
        if device["vendor"] == gpu.INTEL:
            assert "family" in device and "drivers" in device, device


def test_the_real_level_zero_loader_says_what_zeinit_returned() -> None:
    """Real, with Debian's libze1 (make sysdeps): the loader loads and zeInit answers: with no
    Intel GPU on this machine it fails uninitialised with no device; with one it names a
    result and counts what it found."""
    facts = gpu.level_zero(shutil.which("python3") or "python3")
    assert facts["ran"] is True
    installed = Path("/usr/lib/x86_64-linux-gnu/libze_loader.so.1").exists()
    if not installed and not os.environ.get("CI"):
        assert facts["loader"] is None
        pytest.skip("libze1 is not installed (make sysdeps installs it)")
    assert facts["loader"] == "libze_loader.so.1"
    intel = [d for d in gpu.display_devices() if d["vendor"] == gpu.INTEL]
    if not intel:
        assert facts["ze_init"] == "ZE_RESULT_ERROR_UNINITIALIZED" and facts["devices"] == 0
    else:
        assert str(facts["ze_init"]).startswith("ZE_RESULT_")
        assert isinstance(facts["devices"], int)


def _level_zero_script() -> str:
    return str(resources.path("probe/scripts/level_zero.py"))


def test_the_level_zero_probe_asks_the_linkers_cache_once(tmp_path: Path) -> None:
    """The probe starts at most one process, ``ldconfig -p``, whatever it finds: it looked
    each GPU runtime up with ``find_library``, which ran ldconfig for each name and, for one
    it does not list (all three on a machine without Intel's runtime), gcc and ld too."""
    done, started = started_by(tmp_path / "started.json", _level_zero_script(), module=False)
    assert done.returncode == 0, done.stderr
    assert started in ([], [["/sbin/ldconfig", "-p"]])
    assert isinstance(json.loads(done.stdout)["gpu_runtime"], list)


def test_a_gpu_runtime_on_ld_library_path_is_found(tmp_path: Path) -> None:
    """A versioned runtime library in a ``LD_LIBRARY_PATH`` directory (where the Level Zero
    loader's dlopen finds it, as a oneAPI environment script sets it) is listed; a file that
    only starts with the name is not. (find_library looked there for an unversioned ``.so``
    only, with ld.)"""
    libs = tmp_path / "lib"
    libs.mkdir()
    (libs / "libze_intel_gpu.so.1").write_bytes(b"\x7fELF")
    (libs / "libigdrcl_extra.so").write_bytes(b"\x7fELF")

    def listed(ld_library_path: str) -> set[str]:
        done = subprocess.run(
            [sys.executable, "-I", _level_zero_script()],
            capture_output=True, text=True, timeout=120, check=False,
            env={**os.environ, "LD_LIBRARY_PATH": ld_library_path},
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return set(json.loads(done.stdout)["gpu_runtime"])

    assert listed(f"{tmp_path / 'missing'}:{libs}") == listed("") | {"ze_intel_gpu"}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the probe reads Linux libraries")
def test_the_runtime_probe_given_the_prefix_runs_no_site_hook_and_searches_the_same(
    tmp_path: Path,
) -> None:
    """Given the environment's prefix (what ``site`` would set), the probe runs without
    ``site``: the hook never runs, and the environment's lib is searched as with ``site``."""
    python, starts = venv_with_a_site_hook(tmp_path)
    env_dir = Path(python).parent.parent
    _, with_site = gpu.runtime_facts_of(gpu.start_runtime_probe(python))
    assert starts.exists()  # NOTE: the hook is real: a start with site runs it
    starts.unlink()
    _, without = gpu.runtime_facts_of(gpu.start_runtime_probe(python, prefix=str(env_dir)))
    assert not starts.exists()
    assert {"dir": str(env_dir / "lib"), "source": "environment"} in without["search"]
    assert without["search"] == with_site["search"]


def test_the_examination_runs_the_environments_site_hooks_once_in_the_handshake(
    tmp_path: Path,
) -> None:
    """The handshake needs ``site`` (it reads where the interpreter looks for packages); the
    CPUID and runtime probes after it do not, and run none of the environment's hooks."""
    from ipex_doctor.probe import static_facts
    from ipex_doctor.probe.options import ProbeOptions

    python, starts = venv_with_a_site_hook(tmp_path)
    subprocess.run([python, "-I", "-c", "pass"], check=True)
    one_start = starts.read_text(encoding="utf-8")  # NOTE: lib64 -> lib: a hook may run twice
    starts.unlink()
    with static_facts.begin(ProbeOptions(python, 60.0, runtime_probe=False)) as examining:
        facts = examining.finish()
    assert facts.interpreter.prefix == str(Path(python).parent.parent)
    assert facts.host.isa_source == "cpuid" or facts.host.isa_note
    assert starts.read_text(encoding="utf-8") == one_start
