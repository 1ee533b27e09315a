"""A check that reports torch's global state (run after leaks_state), and the CPU threads the
worker left it (``threads``: its decision, asked for by naming the parameter)."""

import torch


def run(device, threads=None):
    state = {
        "grad_enabled": torch.is_grad_enabled(),
        "default_dtype": str(torch.get_default_dtype()),
    }
    return {
        "reproduced": False,
        "evidence": f"state {state}",
        "state": state,
        "threads_given": threads,
        "torch_threads": torch.get_num_threads(),
    }
