"""The code rules' facts, checked against real modules: torch 2.8 alone (``torch28-only``) and
torch 2.8 with IPEX 2.8.0+cpu and torchvision 0.23 (``reference``).

For every rule: the upstream names its replacement relies on exist in torch 2.8; an IPEX API
that the CPU build provides exists with IPEX and not without it; a ``torch.xpu`` alias that only
IPEX's XPU build injects is absent upstream and from the CPU build too (which is why such rules
say ``unverified``). The facts a fix relies on (argument orders, defaults, schemas, the
launchers' options) are checked one by one.

Each environment's interpreter is started once (importing IPEX takes seconds) and answers every
question in one JSON document.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import doctor_env, real_env

from ipex_doctor.knowledge import code_rules
from ipex_doctor.knowledge.code_rules import CodeRule, IpexBuild

pytestmark = pytest.mark.envs

NEVER_DEFINED = {"torch.xpu.amp.GradScaler", "torch.xpu.amp.grad_scaler.GradScaler"}
"""Names a rule matches although no torch or IPEX release ever defined them (code carried over
from torch.cuda.amp); they must stay absent everywhere."""

CHECKABLE = {"torch", "intel_extension_for_pytorch", "torchvision"}
"""The top-level packages the test environments have: names elsewhere cannot be checked here."""

# NOTE: the probe runs inside the examined interpreter: standard library, torch, IPEX only.
PROBE = r'''
import argparse, importlib, inspect, json, os, sys, warnings

request = json.loads(sys.stdin.read())
if request["import_ipex"]:
    import intel_extension_for_pytorch  # noqa: F401  (it rebinds torch names when imported)
import torch

def exists(name):
    """Whether dotted ``name`` resolves: the longest importable module, then attributes. An
    operator namespace (``torch.ops.torch_ipex``) exists when the dispatcher holds an operator
    in it: ``torch.ops`` makes up any namespace asked for."""
    parts = name.split(".")
    if parts[:2] == ["torch", "ops"] and len(parts) == 3:
        prefix = parts[2] + "::"
        return any(op.startswith(prefix) for op in torch._C._dispatch_get_all_op_names())
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except Exception:
            continue
        for part in parts[cut:]:
            try:
                obj = getattr(obj, part)
            except Exception:
                return False
        return True
    return False

def params(func):
    return [
        [p.name, p.kind.name, None if p.default is p.empty else repr(p.default)]
        for p in inspect.signature(func).parameters.values()
    ]

def warned(make):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        make()
    return [f"{w.category.__name__}: {w.message}" for w in caught]

def options(parser):
    return sorted({s for action in parser._actions for s in action.option_strings})

facts = {"exists": {name: exists(name) for name in request["names"]}}
facts["autocast"] = params(torch.amp.autocast.__init__)
facts["cpu_autocast"] = params(torch.cpu.amp.autocast.__init__)
facts["grad_scaler"] = params(torch.amp.GradScaler.__init__)
facts["custom_fwd"] = params(torch.amp.custom_fwd)
facts["custom_bwd"] = params(torch.amp.custom_bwd)
facts["adamw"] = params(torch.optim.AdamW.__init__)
facts["xpu_autocast_dtype"] = str(torch.get_autocast_dtype("xpu"))
torch.set_autocast_enabled("xpu", False)
torch.set_autocast_dtype("xpu", torch.bfloat16)
facts["xpu_state_roundtrip"] = [torch.is_autocast_enabled("xpu"), str(torch.get_autocast_dtype("xpu"))]
facts["cpu_autocast_warning"] = warned(lambda: torch.cpu.amp.autocast())
facts["cpu_grad_scaler_warning"] = warned(lambda: torch.cpu.amp.GradScaler())
facts["cpu_grad_scaler_module"] = torch.cpu.amp.GradScaler.__module__
with torch.cpu.amp.autocast() and torch.no_grad():
    facts["with_and"] = [torch.is_autocast_enabled("cpu"), torch.is_grad_enabled()]
with torch.amp.autocast("cpu"), torch.no_grad():
    facts["with_comma"] = [torch.is_autocast_enabled("cpu"), torch.is_grad_enabled()]
schemas = {}
for name in ("qconv_pointwise", "qconv2d_pointwise"):
    packet = getattr(torch.ops.onednn, name)
    schemas[name] = {
        overload: [[a.name, str(a.type)] for a in getattr(packet, overload)._schema.arguments]
        for overload in packet.overloads()
    }
facts["qconv"] = schemas
stub = os.path.join(os.path.dirname(torch.__file__), "_C", "__init__.pyi")
with open(stub, encoding="utf-8") as handle:
    text = handle.read()
block = text[text.index("class _XpuDeviceProperties"):]
facts["xpu_properties"] = block[: block.index("\nclass ", 1)]
import torch._dynamo
facts["dynamo_backends"] = sorted(torch._dynamo.list_backends(exclude_tags=()))
try:
    torch.compile(torch.nn.Linear(2, 2), backend="ipex")
    facts["compile_ipex_backend"] = "accepted"
except Exception as exc:
    facts["compile_ipex_backend"] = type(exc).__name__
from torch.backends.xeon import run_cpu
parser = argparse.ArgumentParser()
run_cpu.create_args(parser)
facts["run_cpu_options"] = options(parser)
if request["import_ipex"]:
    import intel_extension_for_pytorch as ipex
    from importlib import metadata
    from intel_extension_for_pytorch.cpu.launch import launch
    import torchvision
    parser = argparse.ArgumentParser()
    launch.init_parser(parser)
    facts["ipex_launch_options"] = options(parser)
    facts["ipexrun"] = [
        ep.value
        for ep in metadata.distribution("intel-extension-for-pytorch").entry_points
        if ep.group == "console_scripts" and ep.name == "ipexrun"
    ]
    facts["ipex_xpu_autocast"] = params(ipex.xpu.amp.autocast.__init__)
    facts["frozen_bn"] = [
        params(ipex.nn.FrozenBatchNorm2d.__init__),
        params(torchvision.ops.FrozenBatchNorm2d.__init__),
    ]
print(json.dumps(facts))
'''


def _names(rules: tuple[CodeRule, ...]) -> list[str]:
    """Every dotted name a rule states, as the probe resolves it (a glob: its prefix)."""
    names: set[str] = set(NEVER_DEFINED)
    for rule in rules:
        names.update(s.removesuffix(".*") for s in rule.match.symbols)
        names.update(rule.match.imports)
        names.update(rule.replacement_symbols)
    return sorted(names)


def _probe(env: str, import_ipex: bool, names: list[str]) -> dict[str, Any]:
    request = json.dumps({"import_ipex": import_ipex, "names": names})
    done = subprocess.run(
        [real_env(env), "-c", PROBE], input=request, capture_output=True, text=True,
        timeout=600, env=doctor_env(), check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    facts: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return facts


@pytest.fixture(scope="module")
def rules() -> tuple[CodeRule, ...]:
    return code_rules.load().rules


@pytest.fixture(scope="module")
def upstream(rules: tuple[CodeRule, ...]) -> dict[str, Any]:
    """torch 2.8 alone."""
    return _probe("torch28-only", False, _names(rules))


@pytest.fixture(scope="module")
def with_ipex(rules: tuple[CodeRule, ...]) -> dict[str, Any]:
    """torch 2.8 with IPEX 2.8.0+cpu imported, and torchvision 0.23."""
    return _probe("reference", True, _names(rules))


def _symbol_rules(rules: tuple[CodeRule, ...]) -> Iterator[tuple[CodeRule, str]]:
    for rule in rules:
        for symbol in rule.match.symbols:
            yield rule, symbol.removesuffix(".*")


# ------------------------------------------------------------------ what every rule states


def test_replacement_symbols_exist_in_torch_28(
    rules: tuple[CodeRule, ...], upstream: dict[str, Any], with_ipex: dict[str, Any]
) -> None:
    """Every upstream name a replacement relies on exists in torch 2.8 without IPEX (a
    torchvision name in torchvision 0.23, which only the reference environment has)."""
    missing = [
        (rule.id, name)
        for rule in rules
        for name in rule.replacement_symbols
        if not (with_ipex if name.startswith("torchvision.") else upstream)["exists"][name]
    ]
    assert not missing


def test_ipex_apis_exist_with_ipex_cpu_and_not_without(
    rules: tuple[CodeRule, ...], upstream: dict[str, Any], with_ipex: dict[str, Any]
) -> None:
    """A rule about an API of IPEX's CPU build (ipex_build cpu or any) names what IPEX 2.8.0+cpu
    really has, and what torch alone lacks: the code fails without IPEX."""
    checked = 0
    for rule in rules:
        if not rule.needs_ipex or rule.ipex_build is IpexBuild.XPU:
            continue
        names = [s.removesuffix(".*") for s in rule.match.symbols] + list(rule.match.imports)
        for name in names:
            if name.split(".")[0] not in CHECKABLE:
                assert rule.unverified, (rule.id, name)  # NOTE: not installed here, e.g. optimum
                continue
            assert with_ipex["exists"][name], (rule.id, name, "missing with IPEX 2.8.0+cpu")
            assert not upstream["exists"][name], (rule.id, name, "present in torch alone")
            checked += 1
    assert checked > 50  # NOTE: the loop really ran (81 names in the shipped rules)


def test_xpu_only_names_are_not_upstream_nor_in_the_cpu_build(
    rules: tuple[CodeRule, ...], upstream: dict[str, Any], with_ipex: dict[str, Any]
) -> None:
    """A torch.xpu name that only IPEX's XPU build injects is absent from torch 2.8, and from
    torch 2.8 with IPEX's CPU build imported (which injects nothing into torch.xpu): so these
    rules cannot be verified here, and say so."""
    for rule, name in _symbol_rules(rules):
        if not (rule.needs_ipex and rule.ipex_build is IpexBuild.XPU):
            continue
        assert rule.unverified.startswith("XPU only"), rule.id
        if name.startswith("torch."):
            assert not upstream["exists"][name], (rule.id, name)
            assert not with_ipex["exists"][name], (rule.id, name)


def test_upstream_deprecated_names_still_exist(
    rules: tuple[CodeRule, ...], upstream: dict[str, Any], with_ipex: dict[str, Any]
) -> None:
    """A rule about an upstream name (not IPEX's) matches one that torch 2.8 still has, so
    the code runs today and the rule is about moving on; the names no release ever defined are
    absent everywhere; a name of a package the test environments lack (the oneCCL bindings)
    cannot be checked, and its rule says so."""
    for rule, name in _symbol_rules(rules):
        if rule.needs_ipex:
            continue
        if name.split(".")[0] not in CHECKABLE:
            assert rule.unverified, (rule.id, name)  # NOTE: the oneCCL bindings, not installed here
            continue
        if name in NEVER_DEFINED:
            assert not upstream["exists"][name] and not with_ipex["exists"][name], name
        else:
            assert upstream["exists"][name], (rule.id, name)


# ------------------------------------------------------------------ what the fixes rely on


def _names_and_kinds(params: list[list[Any]]) -> list[str]:
    return [name for name, kind, _ in params if kind != "VAR_KEYWORD" and name != "self"]


def test_autocast_arguments_must_move_by_keyword(
    upstream: dict[str, Any], with_ipex: dict[str, Any]
) -> None:
    """The old classes take (enabled, dtype, cache_enabled), torch.amp.autocast (device_type,
    dtype, enabled, cache_enabled): positional arguments would land in the wrong place. IPEX's
    xpu autocast defaults to bfloat16 and torch.amp.autocast("xpu") to float16 in torch 2.8, so
    the xpu fix writes dtype=torch.bfloat16 out."""
    assert _names_and_kinds(upstream["autocast"]) == ["device_type", "dtype", "enabled", "cache_enabled"]  # fmt: skip
    old = upstream["cpu_autocast"]
    assert _names_and_kinds(old) == ["enabled", "dtype", "cache_enabled"]
    assert old[2][2] == "torch.bfloat16"
    ipex_xpu = with_ipex["ipex_xpu_autocast"]
    assert _names_and_kinds(ipex_xpu) == ["enabled", "dtype", "cache_enabled"]
    assert ipex_xpu[2][2] == "torch.bfloat16"
    assert upstream["xpu_autocast_dtype"] == "torch.float16"


def test_autocast_state_replacements_take_the_device(upstream: dict[str, Any]) -> None:
    """torch.set_autocast_enabled / set_autocast_dtype / is_autocast_enabled /
    get_autocast_dtype accept "xpu" in torch 2.8 (no XPU device needed)."""
    assert upstream["xpu_state_roundtrip"] == [False, "torch.bfloat16"]


def test_deprecation_warnings_name_the_replacements(upstream: dict[str, Any]) -> None:
    """torch 2.8's own FutureWarnings point at torch.amp.autocast / GradScaler('cpu')."""
    assert any(
        w.startswith("FutureWarning") and "torch.amp.autocast('cpu', args...)" in w
        for w in upstream["cpu_autocast_warning"]
    )
    assert any(
        w.startswith("FutureWarning") and "torch.amp.GradScaler('cpu', args...)" in w
        for w in upstream["cpu_grad_scaler_warning"]
    )


def test_grad_scaler_device_comes_first_and_ipex_rebinds_the_cpu_one(
    upstream: dict[str, Any], with_ipex: dict[str, Any]
) -> None:
    """torch.amp.GradScaler's first parameter is the device; importing IPEX's CPU build
    replaces torch.cpu.amp.GradScaler by its own copy."""
    assert _names_and_kinds(upstream["grad_scaler"])[0] == "device"
    assert upstream["cpu_grad_scaler_module"] == "torch.cpu.amp.grad_scaler"
    assert with_ipex["cpu_grad_scaler_module"] == "intel_extension_for_pytorch.cpu.autocast._grad_scaler"  # fmt: skip


def test_custom_fwd_needs_the_device_type(upstream: dict[str, Any]) -> None:
    """torch.amp.custom_fwd / custom_bwd take device_type as a keyword-only argument."""
    for facts in (upstream["custom_fwd"], upstream["custom_bwd"]):
        assert ["device_type", "KEYWORD_ONLY", None] in facts


def test_with_and_enters_only_the_second_manager(upstream: dict[str, Any]) -> None:
    """`with torch.cpu.amp.autocast() and torch.no_grad():` runs without autocast; the comma
    form enters both."""
    assert upstream["with_and"] == [False, False]
    assert upstream["with_comma"] == [True, False]


def test_device_properties_declare_the_replacement_fields(upstream: dict[str, Any]) -> None:
    """torch 2.8's XPU device properties carry has_fp64, has_subgroup_matrix_multiply_accumulate
    and has_subgroup_2d_block_io (read from its type stub: the object needs an XPU build)."""
    block = upstream["xpu_properties"]
    for field in (
        "has_fp64",
        "has_subgroup_matrix_multiply_accumulate",
        "has_subgroup_2d_block_io",
    ):
        assert f"    {field}: _bool" in block, field


def test_qconv_rename_is_safe_only_for_the_unary_overloads(upstream: dict[str, Any]) -> None:
    """In torch 2.8 onednn::qconv_pointwise has the default and tensor overloads of
    qconv2d_pointwise with the same arguments, and no binary ones."""
    new, old = upstream["qconv"]["qconv_pointwise"], upstream["qconv"]["qconv2d_pointwise"]
    assert set(new) == {"default", "tensor"}
    assert {"binary", "binary_tensor"} <= set(old)
    for overload in new:
        assert new[overload] == old[overload], overload


def test_launcher_options_shared_by_both_launchers(with_ipex: dict[str, Any]) -> None:
    """The options the launcher fix may carry over are accepted by IPEX 2.8's CPU launcher and
    by torch 2.8's run_cpu; ipexrun is IPEX's console script for its launcher module."""
    for option in code_rules.LAUNCHER_COMMON_OPTIONS:
        assert option in with_ipex["ipex_launch_options"], option
        assert option in with_ipex["run_cpu_options"], option
    assert with_ipex["ipexrun"] == ["intel_extension_for_pytorch.launcher:main"]
    # NOTE: names the recipe says run_cpu spells differently, and IPEX's multi-node options
    for ipex_only in ("--cores-list", "--use-logical-cores", "--log-dir", "--nnodes"):
        assert ipex_only in with_ipex["ipex_launch_options"]
        assert ipex_only not in with_ipex["run_cpu_options"]
    for torch_only in ("--core-list", "--use-logical-core", "--log-path", "--enable-tcmalloc"):
        assert torch_only in with_ipex["run_cpu_options"]


def test_ipex_compile_backend_exists_only_with_ipex(
    upstream: dict[str, Any], with_ipex: dict[str, Any]
) -> None:
    """torch.compile(backend="ipex") needs IPEX imported to register the backend; torch alone
    refuses the name when torch.compile is called."""
    assert "ipex" in with_ipex["dynamo_backends"]
    assert "ipex" not in upstream["dynamo_backends"]
    assert upstream["compile_ipex_backend"] == "InvalidBackend"
    assert with_ipex["compile_ipex_backend"] == "accepted"


def test_frozen_batchnorm_is_a_drop_in(with_ipex: dict[str, Any]) -> None:
    """IPEX's FrozenBatchNorm2d and torchvision's take the same parameters and defaults."""
    ipex_params, torchvision_params = with_ipex["frozen_bn"]
    assert ipex_params == torchvision_params


def test_adamw_has_the_fused_switch(upstream: dict[str, Any]) -> None:
    """torch.optim.AdamW(..., fused=True) exists in torch 2.8 (ipex.optimize's fused step)."""
    assert "fused" in _names_and_kinds(upstream["adamw"])
