"""The AMP fixes: ``autocast-xpu``, ``autocast-cpu``, ``autocast-xpu-state``, ``grad-scaler-xpu``.

Upstream torch has one device-generic AMP API (``torch.amp.autocast(device_type, ...)``,
``torch.amp.GradScaler(device, ...)``, ``torch.get_autocast_dtype(device_type)``, ...); the
per-device spellings are IPEX's (``torch.xpu.amp`` exists only while IPEX is imported) or
deprecated upstream (``torch.cpu.amp.autocast``, a FutureWarning since torch 2.4).
"""

from __future__ import annotations

from typing import ClassVar

import libcst as cst

from ipex_doctor.scan.fix.codemods.base import CallCodemod
from ipex_doctor.scan.fix.codemods.records import Edit
from ipex_doctor.scan.fix.codemods.syntax import (
    append_args,
    as_keyword,
    as_positional,
    code_of,
    expr,
    is_starred,
    keyword,
    prepend_args,
)

AUTOCAST_PARAMETERS = ("enabled", "dtype", "cache_enabled")
"""The parameters of ``torch.xpu.amp.autocast`` (IPEX) and ``torch.cpu.amp.autocast`` (torch),
in order; both are ``(enabled=True, dtype=torch.bfloat16, cache_enabled=True)``."""


class Autocast(CallCodemod):
    """``torch.<device>.amp.autocast(args)`` -> ``torch.amp.autocast("<device>", kwargs)``,
    as a call, a ``with`` item or a decorator.

    A plain ``args...`` move is not equivalent, and this rewrite does three things more:

    * positional arguments become keywords: the old order is ``(enabled, dtype,
      cache_enabled)``, ``torch.amp.autocast``'s is ``(device_type, dtype, enabled,
      cache_enabled)``, so ``autocast(False)`` would pass ``False`` as the dtype;
    * a missing ``dtype`` is written ``dtype=torch.bfloat16``: the old classes pass bfloat16
      explicitly, while ``torch.amp.autocast`` takes ``torch.get_autocast_dtype(device)``, which
      is float16 for ``xpu`` in torch 2.8 and, for any device, whatever an enclosing autocast
      region set (its ``__enter__`` calls ``torch.set_autocast_dtype``);
    * a missing ``cache_enabled`` is written ``cache_enabled=True`` for the same reason
      (``None`` means ``torch.is_autocast_cache_enabled()``, which an enclosing region sets).

    Refused: ``*args`` / ``**kwargs`` (what they hold cannot be mapped or pinned), an unknown
    keyword or more than three positional arguments (the old call is an error already), and a
    use that is not a call (``torch.amp.autocast`` needs the device at the call).
    """

    DEVICE: ClassVar[str] = ""

    def not_called(self, func: str) -> str:
        """Why a use of the old class that is not called is left alone."""
        return (
            f"{func} is used without being called: torch.amp.autocast needs "
            f'the device type ("{self.DEVICE}") at the call; rewrite by hand'
        )

    def call_refusal(self, call: cst.Call, target: str) -> str | None:
        """Why the call's arguments cannot be mapped onto ``torch.amp.autocast``'s."""
        positional = 0
        for arg in call.args:
            if is_starred(arg):
                return (
                    "arguments passed with * or ** cannot be mapped onto torch.amp.autocast's "
                    "parameters, nor its defaults pinned: rewrite by hand"
                )
            if arg.keyword is None:
                positional += 1
                if positional > len(AUTOCAST_PARAMETERS):
                    return "more than three positional arguments: the call is wrong"
            elif arg.keyword.value not in AUTOCAST_PARAMETERS:
                return f"unknown keyword {arg.keyword.value}=: the call is wrong"
        return None

    def call_edit(self, call: cst.Call, func: str, torch: str, target: str) -> tuple[Edit, str]:
        """The edit and summary of a call ``call_refusal`` accepts."""
        given = {
            AUTOCAST_PARAMETERS[i] if arg.keyword is None else arg.keyword.value
            for i, arg in enumerate(call.args)
        }
        pinned = [
            keyword(name, expr(value))
            for name, value in (("dtype", f"{torch}.bfloat16"), ("cache_enabled", "True"))
            if name not in given
        ]

        def edit(updated: cst.Call) -> cst.Call:
            args = [
                as_keyword(arg, AUTOCAST_PARAMETERS[i]) if arg.keyword is None else arg
                for i, arg in enumerate(updated.args)
            ]
            new = updated.with_changes(func=expr(f"{torch}.amp.autocast"), args=args)
            device = cst.Arg(cst.SimpleString(f'"{self.DEVICE}"'))
            return append_args(prepend_args(new, [device]), pinned)

        note = f" (pinned the old defaults: {', '.join(code_of(p) for p in pinned)})"
        summary = f'{func}(...) -> {torch}.amp.autocast("{self.DEVICE}", ...)'
        return edit, summary + (note if pinned else "")


class AutocastXpu(Autocast):
    """``autocast-xpu``: IPEX's ``torch.xpu.amp.autocast``."""

    FIX_ID = "autocast-xpu"
    ORDER = 10
    DESCRIPTION = 'torch.xpu.amp.autocast(...) -> torch.amp.autocast("xpu", ...)'
    TRIGGERS = ("autocast",)
    REQUIRES = ("xpu",)
    DEVICE = "xpu"
    TARGETS = (
        "torch.xpu.amp.autocast",
        "torch.xpu.amp.autocast_mode.autocast",
        "intel_extension_for_pytorch.xpu.amp.autocast",
        "intel_extension_for_pytorch.xpu.amp.autocast_mode.autocast",
    )


class AutocastCpu(Autocast):
    """``autocast-cpu``: torch's deprecated ``torch.cpu.amp.autocast`` (IPEX CPU's docs used it)."""

    FIX_ID = "autocast-cpu"
    ORDER = 11
    DESCRIPTION = 'torch.cpu.amp.autocast(...) -> torch.amp.autocast("cpu", ...)'
    TRIGGERS = ("autocast",)
    REQUIRES = ("cpu",)
    DEVICE = "cpu"
    TARGETS = ("torch.cpu.amp.autocast", "torch.cpu.amp.autocast_mode.autocast")


AUTOCAST_STATE = {
    "get_autocast_xpu_dtype": ("get_autocast_dtype", None),
    "is_autocast_xpu_enabled": ("is_autocast_enabled", None),
    "set_autocast_xpu_enabled": ("set_autocast_enabled", "enabled"),
    "set_autocast_xpu_dtype": ("set_autocast_dtype", "dtype"),
}
"""IPEX's XPU autocast state functions: the upstream function that takes the device type
first, and the name of the one parameter the old one takes (``None``: none). The mapping is
IPEX's own deprecation messages (``intel_extension_for_pytorch/xpu/amp/__init__.py``)."""


class AutocastXpuState(CallCodemod):
    """``autocast-xpu-state``: ``torch.xpu.get_autocast_xpu_dtype()`` ->
    ``torch.get_autocast_dtype("xpu")``, ``is_autocast_xpu_enabled()`` ->
    ``torch.is_autocast_enabled("xpu")``, ``set_autocast_xpu_enabled(b)`` ->
    ``torch.set_autocast_enabled("xpu", b)``, ``set_autocast_xpu_dtype(d)`` ->
    ``torch.set_autocast_dtype("xpu", d)`` (torch 2.4+), under ``torch.xpu``,
    ``torch.xpu.amp`` or ``intel_extension_for_pytorch.xpu[.amp]``.

    Refused: a use that is not a call, ``*args`` / ``**kwargs``, or the wrong number of
    arguments (the old call is an error already).
    """

    FIX_ID = "autocast-xpu-state"
    ORDER = 12
    DESCRIPTION = (
        'torch.xpu.get_autocast_xpu_dtype() -> torch.get_autocast_dtype("xpu") '
        "(is_autocast_xpu_enabled, set_autocast_xpu_enabled, set_autocast_xpu_dtype "
        "likewise)"
    )
    TRIGGERS = ("autocast_xpu",)

    @classmethod
    def targets(cls) -> dict[str, str]:
        """Every spelling of the four functions, to the function's name."""
        return {
            f"{base}.{name}": name
            for name in AUTOCAST_STATE
            for base in (
                "torch.xpu",
                "torch.xpu.amp",
                "intel_extension_for_pytorch.xpu",
                "intel_extension_for_pytorch.xpu.amp",
            )
        }

    def not_called(self, func: str) -> str:
        """Why a use of a function that is not called is left alone."""
        return f"{func} is used without being called: rewrite by hand"

    def call_refusal(self, call: cst.Call, target: str) -> str | None:
        """Why the call's arguments are not the function's one parameter (or none)."""
        name = target.rsplit(".", 1)[-1]
        parameter = AUTOCAST_STATE[name][1]
        wanted = 0 if parameter is None else 1
        if any(is_starred(a) for a in call.args) or len(call.args) != wanted:
            return f"{name} takes {wanted} argument(s), given as written here"
        named = call.args[0].keyword if call.args else None
        if named is not None and named.value != parameter:
            return f"unknown keyword {named.value}=: the call is wrong"
        return None

    def call_edit(self, call: cst.Call, func: str, torch: str, target: str) -> tuple[Edit, str]:
        """The call of the upstream function, ``"xpu"`` first, the argument positional."""
        new_func = f"{torch}.{AUTOCAST_STATE[target.rsplit('.', 1)[-1]][0]}"

        def edit(updated: cst.Call) -> cst.Call:
            args = [as_positional(a) for a in updated.args]
            new = updated.with_changes(func=expr(new_func), args=args)
            return prepend_args(new, [cst.Arg(cst.SimpleString('"xpu"'))])

        rest = ", ..." if call.args else ""
        return edit, f'{func}(...) -> {new_func}("xpu"{rest})'


class GradScalerXpu(CallCodemod):
    """``grad-scaler-xpu``: ``torch.xpu.amp.GradScaler(args)`` ->
    ``torch.amp.GradScaler("xpu", args)``. The arguments stay as written: after the device,
    ``torch.amp.GradScaler``'s parameters are ``(init_scale, growth_factor, backoff_factor,
    growth_interval, enabled)`` with the same defaults as every per-device GradScaler.

    Refused: ``*args`` / ``**kwargs`` (a device could hide there), a ``device=`` keyword, and
    a use that is not a call.
    """

    FIX_ID = "grad-scaler-xpu"
    ORDER = 13
    DESCRIPTION = 'torch.xpu.amp.GradScaler(...) -> torch.amp.GradScaler("xpu", ...)'
    TRIGGERS = ("GradScaler",)
    REQUIRES = ("xpu",)
    TARGETS = ("torch.xpu.amp.GradScaler", "torch.xpu.amp.grad_scaler.GradScaler")

    def not_called(self, func: str) -> str:
        """Why a use of the old class that is not called is left alone."""
        return (
            f"{func} is used without being called: torch.amp.GradScaler "
            'needs the device ("xpu") at the call; rewrite by hand'
        )

    def call_refusal(self, call: cst.Call, target: str) -> str | None:
        """Why the call cannot be rewritten (a device may hide in its arguments)."""
        if any(is_starred(a) for a in call.args):
            return "arguments passed with * or **: rewrite by hand"
        if any(a.keyword is not None and a.keyword.value == "device" for a in call.args):
            return "a device= argument: rewrite by hand"
        return None

    def call_edit(self, call: cst.Call, func: str, torch: str, target: str) -> tuple[Edit, str]:
        """The edit and summary of a call ``call_refusal`` accepts."""

        def edit(updated: cst.Call) -> cst.Call:
            new = updated.with_changes(func=expr(f"{torch}.amp.GradScaler"))
            return prepend_args(new, [cst.Arg(cst.SimpleString('"xpu"'))])

        return edit, f'{func}(...) -> {torch}.amp.GradScaler("xpu", ...)'
