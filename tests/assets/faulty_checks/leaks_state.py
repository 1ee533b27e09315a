"""A check that changes torch's global state and returns normally."""

import torch


def run(device):
    torch.set_grad_enabled(False)
    torch.set_default_dtype(torch.float64)
    return {"reproduced": False, "evidence": "left grad disabled and float64 as default"}
