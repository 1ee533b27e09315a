"""The XPU API fixes: ``device-properties``, ``mem-get-info``, ``qconv-op-rename``."""

from __future__ import annotations

import libcst as cst

from ipex_doctor.scan.fix.codemods.base import CodemodContext, NameCodemod
from ipex_doctor.scan.fix.codemods.syntax import code_of, expr, is_starred, root_name

DEVICE_PROPERTIES = {
    "has_fp64_dtype": ("has_fp64", None),
    "has_xmx": ("has_subgroup_matrix_multiply_accumulate", "0"),
    "has_2d_block_array": ("has_subgroup_2d_block_io", "0"),
}
"""IPEX's device queries: the upstream ``_XpuDeviceProperties`` field that answers the same
question, and the device to ask about when the call names none (``None``: the current one)."""


class DeviceProperties(NameCodemod):
    """``device-properties``: ``torch.xpu.has_fp64_dtype(dev)`` ->
    ``torch.xpu.get_device_properties(dev).has_fp64``; ``has_xmx`` ->
    ``.has_subgroup_matrix_multiply_accumulate``; ``has_2d_block_array`` ->
    ``.has_subgroup_2d_block_io`` (also spelled ``intel_extension_for_pytorch.xpu.*``).

    The device: IPEX's functions take an ``int`` (``-1`` is the current device) and so does
    ``get_device_properties`` (``at::xpu::getDeviceProperties`` maps ``-1`` to the current
    device), so a given argument is kept as written. Without one, ``has_fp64_dtype`` asks the
    current device (default ``-1``) and becomes ``get_device_properties()``; ``has_xmx`` and
    ``has_2d_block_array`` ask device ``0`` in IPEX 2.8 (``device: int = 0`` in
    ``xpu/utils.py``; older releases used ``-1``), so they become ``get_device_properties(0)``.

    Refused: a use that is not a call, ``*args`` / ``**kwargs``, more than one argument.
    """

    FIX_ID = "device-properties"
    ORDER = 20
    DESCRIPTION = (
        "torch.xpu.has_fp64_dtype() -> torch.xpu.get_device_properties().has_fp64 "
        "(has_xmx, has_2d_block_array likewise)"
    )
    TRIGGERS = tuple(DEVICE_PROPERTIES)
    REQUIRES = ("xpu",)

    @classmethod
    def targets(cls) -> dict[str, str]:
        """Every spelling of the three functions, to the function's name."""
        return {
            f"{base}.{name}": name
            for name in DEVICE_PROPERTIES
            for base in (
                "torch.xpu",
                "torch.xpu.utils",
                "intel_extension_for_pytorch.xpu",
                "intel_extension_for_pytorch.xpu.utils",
            )
        }

    def plan(self, ctx: CodemodContext) -> None:
        """Plan each call of the three functions."""
        for node, name in ctx.references(self.targets()):
            call = ctx.names.call_of(node)
            if call is None:
                ctx.records.refuse(
                    node, f"{code_of(node)} is used without being called: rewrite by hand"
                )
                continue
            if any(is_starred(a) for a in call.args) or len(call.args) > 1:
                ctx.records.refuse(call, f"{name} takes at most one argument (the device index)")
                continue
            named = call.args[0].keyword if call.args else None
            if named is not None and named.value != "device":
                ctx.records.refuse(call, f"unknown keyword {named.value}=: the call is wrong")
                continue
            prefix = self._xpu_prefix(ctx, node, call)
            if prefix is None:
                ctx.records.refuse(
                    call, "the name torch means something else here: rewrite by hand"
                )
                continue
            self._plan_call(ctx, node, call, prefix, *DEVICE_PROPERTIES[name])

    def _xpu_prefix(
        self, ctx: CodemodContext, func: cst.BaseExpression, call: cst.Call
    ) -> str | None:
        """How to write ``torch.xpu`` here: the call's own prefix when it is ``torch.xpu``
        under some alias, else through the module's name for torch."""
        if isinstance(func, cst.Attribute) and ctx.names.qualified_names(func.value) == {
            "torch.xpu"
        }:
            return code_of(func.value)
        torch = ctx.imports.torch_name(call, root_name(func))
        return None if torch is None else f"{torch}.xpu"

    def _plan_call(
        self,
        ctx: CodemodContext,
        func: cst.BaseExpression,
        call: cst.Call,
        prefix: str,
        field: str,
        default_device: str | None,
    ) -> None:
        def edit(updated: cst.Call) -> cst.BaseExpression:
            inner = updated.with_changes(
                func=expr(f"{prefix}.get_device_properties"), lpar=[], rpar=[]
            )
            if not updated.args and default_device is not None:
                inner = inner.with_changes(args=[cst.Arg(cst.Integer(default_device))])
            return cst.Attribute(
                value=inner, attr=cst.Name(field), lpar=updated.lpar, rpar=updated.rpar
            )

        device = "" if call.args or default_device is None else default_device
        ctx.records.rewrite(
            call,
            edit,
            f"{code_of(func)}(...) -> {prefix}.get_device_properties({device or '...'}).{field}",
            consumes=func,
        )


class MemGetInfo(NameCodemod):
    """``mem-get-info``: ``intel_extension_for_pytorch.xpu.mem_get_info`` (``ipex.xpu.
    mem_get_info``) -> ``torch.xpu.mem_get_info``, called or not: IPEX's function only calls
    ``torch.xpu.mem_get_info(device)`` (``xpu/memory.py``), with the same parameter. ``import
    torch`` is added when the module has none.

    Refused: an assignment to the name, and a place where the name ``torch`` means something
    else.
    """

    FIX_ID = "mem-get-info"
    ORDER = 21
    DESCRIPTION = "ipex.xpu.mem_get_info -> torch.xpu.mem_get_info"
    TRIGGERS = ("mem_get_info",)
    REQUIRES = ("intel_extension_for_pytorch",)
    TARGETS = (
        "intel_extension_for_pytorch.xpu.mem_get_info",
        "intel_extension_for_pytorch.xpu.memory.mem_get_info",
    )

    def plan(self, ctx: CodemodContext) -> None:
        """Plan each use of IPEX's function."""
        for node, _ in ctx.references(dict.fromkeys(self.TARGETS)):
            if isinstance(ctx.names.parent(node), (cst.AssignTarget, cst.Del, cst.AugAssign)):
                ctx.records.refuse(node, f"{code_of(node)} is assigned to here: rewrite by hand")
                continue
            torch = ctx.imports.torch_name(node)
            if torch is None:
                ctx.records.refuse(
                    node, "the name torch means something else here: rewrite by hand"
                )
                continue
            new = f"{torch}.xpu.mem_get_info"

            def edit(updated: cst.BaseExpression, new: str = new) -> cst.BaseExpression:
                return expr(new).with_changes(lpar=updated.lpar, rpar=updated.rpar)

            ctx.records.rewrite(node, edit, f"{code_of(node)} -> {new}", consumes=node)


QCONV_OLD = "torch.ops.onednn.qconv2d_pointwise"
QCONV_NEW = "qconv_pointwise"
QCONV_SAME_SCHEMA = ("default", "tensor")
QCONV_ARITY = 17


class QconvOpRename(NameCodemod):
    """``qconv-op-rename``: ``torch.ops.onednn.qconv2d_pointwise`` ->
    ``torch.ops.onednn.qconv_pointwise`` (only the attribute name).

    PyTorch PR #150751 made Inductor lower quantized convolutions to the general
    ``onednn::qconv_pointwise`` op, and PR #151092 registered the XPU kernels under it. The
    rename is only sound where the two ops take the same arguments. In torch 2.8.0 the
    ``default`` and ``.tensor`` overloads of both ops have the same schema (17 arguments, same
    names and types); ``qconv2d_pointwise.binary`` / ``.binary_tensor`` (the conv+add fusion,
    23 arguments) have no ``qconv_pointwise`` counterpart and still exist under the old name.
    So the rewrite is applied to an explicit ``.default`` / ``.tensor`` overload, and to a
    call of the op itself (which picks its overload from the arguments) only when it passes
    exactly 17 arguments, none of them ``*`` / ``**``: no binary overload takes 17. The new
    name exists from torch 2.8.0; the old one was not removed (still in 2.13).

    Refused: ``.binary`` / ``.binary_tensor``, a call with another argument count or with
    ``*`` / ``**``, and any other use (the op passed as a value, ``.overloads()``).
    """

    FIX_ID = "qconv-op-rename"
    ORDER = 22
    DESCRIPTION = "torch.ops.onednn.qconv2d_pointwise -> torch.ops.onednn.qconv_pointwise"
    TRIGGERS = ("qconv2d_pointwise",)

    def plan(self, ctx: CodemodContext) -> None:
        """Plan each use of the old op whose overload can be proven."""
        for node, _ in ctx.references({QCONV_OLD: None}):
            why = self._unproven(ctx, node)
            if why is not None or not isinstance(node, cst.Attribute):
                ctx.records.refuse(node, why or f"{code_of(node)}: rewrite by hand")
                continue

            def edit(updated: cst.Attribute) -> cst.Attribute:
                return updated.with_changes(attr=cst.Name(QCONV_NEW))

            ctx.records.rewrite(
                node, edit, f"{code_of(node)} -> ...onednn.{QCONV_NEW} (torch >= 2.8)"
            )

    def _unproven(self, ctx: CodemodContext, node: cst.BaseExpression) -> str | None:
        """Why the rename is not proven sound at ``node`` (``None``: it is)."""
        parent = ctx.names.parent(node)
        if isinstance(parent, cst.Attribute) and parent.value is node:
            overload = parent.attr.value
            if overload in QCONV_SAME_SCHEMA:
                return None
            return (
                f"overload .{overload} has no counterpart under onednn::{QCONV_NEW} (the "
                "conv+add fusion keeps the qconv2d name): leave it"
            )
        call = ctx.names.call_of(node)
        if call is None:
            return "the op is used as a value, so its overload cannot be known: rewrite by hand"
        starred = any(is_starred(a) for a in call.args)
        if starred or len(call.args) != QCONV_ARITY:
            passed = "* or ** arguments" if starred else f"{len(call.args)} arguments"
            return (
                f"the call passes {passed}, so it may pick the binary overload, which "
                f"onednn::{QCONV_NEW} lacks: name the overload (.default) or rewrite by hand"
            )
        return None
