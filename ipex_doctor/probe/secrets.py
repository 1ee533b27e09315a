"""Keep secrets out of reports: an allow-list of environment variables and a scrubber.

Only variables that change how PyTorch, IPEX, oneAPI or the Level Zero driver behave are
reported, and never their values when they look like credentials. Every string that goes into
a report (exception texts, captured output) is also scrubbed of the *values* of secret-looking
variables and of ``user:password@`` credentials in URLs, because a crashing import can print
anything.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ipex_doctor.secret_shapes import REDACTED, scrub

ENV_PREFIXES = (
    "ZE_",
    "ONEAPI_",
    "SYCL_",
    "IGC_",
    "CCL_",
    "I_MPI_",
    "IPEX_",
    "ONEDNN_",
    "DNNL_",
    "OMP_",
    "KMP_",
    "MKL_",
    "UR_",
    "PI_",
    "NEOReadDebugKeys",
    "PYTORCH_",
    "TORCH_",
    "XPU_",
)
ENV_NAMES = frozenset(
    {
        "ATEN_CPU_CAPABILITY",
        "LD_PRELOAD",
        "LD_LIBRARY_PATH",
        "OverrideDefaultFP64Settings",
        "CMPLR_ROOT",
        "MKLROOT",
        "DPCPPROOT",
        "CUDA_VISIBLE_DEVICES",
        "SETVARS_COMPLETED",
        "PYTHONPATH",
    }
)

_SECRET_NAME = re.compile(
    r"(TOKEN|SECRET|PASSW|API_?KEY|ACCESS_?KEY|PRIVATE|CREDENTIAL|AUTH|SESSION|COOKIE)",
    re.IGNORECASE,
)
_MIN_SECRET_LEN = 6


def is_reported(name: str) -> bool:
    """Whether environment variable ``name`` belongs in a report."""
    return name in ENV_NAMES or name.startswith(ENV_PREFIXES)


class Redactor:
    """Scrubs secrets out of text; built once from the environment of the run."""

    def __init__(self, environ: Mapping[str, str]) -> None:
        values = {
            value
            for name, value in environ.items()
            if _SECRET_NAME.search(name) and len(value) >= _MIN_SECRET_LEN
        }
        # NOTE: longest first, so a secret that contains another is replaced whole.
        self._values = sorted(values, key=len, reverse=True)

    def text(self, text: str) -> str:
        """``text`` with secret values, URL credentials and token-shaped strings replaced."""
        for value in self._values:
            if value in text:
                text = text.replace(value, REDACTED)
        return scrub(text)

    def value_of(self, name: str, value: str) -> str:
        """The reportable value of variable ``name``."""
        if _SECRET_NAME.search(name):
            return REDACTED
        return self.text(value)

    def deep(self, data: Any) -> Any:
        """A copy of JSON-like ``data`` with every string scrubbed (keys too)."""
        if isinstance(data, str):
            return self.text(data)
        if isinstance(data, Mapping):
            return {self.text(str(k)): self.deep(v) for k, v in data.items()}
        if isinstance(data, list | tuple):
            return [self.deep(item) for item in data]
        return data


def reported_env_vars(environ: Mapping[str, str], redactor: Redactor) -> dict[str, str]:
    """The allow-listed variables of ``environ``, values redacted where needed, sorted."""
    return {
        name: redactor.value_of(name, value)
        for name, value in sorted(environ.items())
        if is_reported(name)
    }
