"""A check that reports torch's global state (run after leaks_state)."""

import torch


def run(device):
    state = {
        "grad_enabled": torch.is_grad_enabled(),
        "default_dtype": str(torch.get_default_dtype()),
    }
    return {"reproduced": False, "evidence": f"state {state}", "state": state}
