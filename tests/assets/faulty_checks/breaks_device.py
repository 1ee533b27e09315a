"""A check that leaves its device unusable (here: torch.arange no longer works)."""

import torch


def run(device):
    def broken(*args, **kwargs):
        raise RuntimeError("device lost (planted)")

    torch.arange = broken
    return {"reproduced": False, "evidence": "returned normally"}
