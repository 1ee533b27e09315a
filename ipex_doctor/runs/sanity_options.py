"""How to run the ResNet-50 AMP sanity run: its options, light enough for the command line to
build without importing the runner (the run is planned in ``sanity_plan``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class SanityOptions:
    """How to run the sanity run (the CLI's --profile, --amp-dtype, --lr, ...)."""

    profile: str = "quick"
    amp_dtype: str = "bfloat16"
    lr: float | None = None
    weights: str | None = None
    data: str | None = None
    use_ipex: bool = True

    def args(self) -> dict[str, Any]:
        """Keyword arguments for the script's ``run(device, **args)``."""
        args: dict[str, Any] = {
            "profile": self.profile,
            "amp_dtype": self.amp_dtype,
            "weights": self.weights,
            "data": self.data,
            "use_ipex": self.use_ipex,
        }
        if self.lr is not None:
            args["lr"] = self.lr
        return args
