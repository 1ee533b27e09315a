"""A ``--device`` value, parsed once where the user typed it and passed on typed: a selector
(``auto``, ``all``, ``local``) or a kind of device (``cpu``, ``xpu``, ``cuda``), with an index
for one accelerator (``cuda:1``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

SELECTORS = ("auto", "all", "local")
"""Specs that choose devices from those present: the first accelerator, every device, this
rank's device."""

_SPEC = re.compile(r"^(auto|all|local|cpu|xpu|cuda)(?::(\d+))?$")


@dataclass(frozen=True)
class DeviceSpec:
    """A validated ``--device``; ``str()`` gives it back as the user would write it."""

    kind: str
    """A selector (``SELECTORS``) or a kind of device (``cpu``, ``xpu``, ``cuda``)."""
    index: int | None = None
    """The one accelerator of ``kind`` named (``cuda:1``), else ``None``."""

    @classmethod
    def parse(cls, text: str) -> DeviceSpec:
        """``text`` read case-insensitively, spaces around it ignored; ``ValueError`` when it
        is not a device spec (an index is only for ``xpu`` and ``cuda``)."""
        match = _SPEC.match(text.strip().lower())
        if match is None or (match.group(2) is not None and match.group(1) not in ("xpu", "cuda")):
            raise ValueError(f"{text!r} is not a device")
        return cls(match.group(1), None if match.group(2) is None else int(match.group(2)))

    def __str__(self) -> str:
        return self.kind if self.index is None else f"{self.kind}:{self.index}"

    @property
    def selects(self) -> bool:
        """Whether it chooses among the devices present (``auto``, ``all``, ``local``)."""
        return self.kind in SELECTORS


AUTO = DeviceSpec("auto")
"""The default: the first accelerator, else the CPU."""
LOCAL = DeviceSpec("local")
"""Under a launcher: this rank's accelerator, and the CPU on the node's first local rank."""
ALL = DeviceSpec("all")
