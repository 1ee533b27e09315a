"""torchrun entry point for tests/test_distributed.py: one doctor per rank, one odd rank.

    torchrun --nproc-per-node 4 --no-python PYTHON distributed_rank.py OUT.json PYTHON_A PYTHON_B

Every rank runs ``ipex-doctor check --distributed`` on PYTHON_A, except the last rank, which
examines PYTHON_B (another environment: the outlier the fleet report must name).
"""

import os
import sys

out, usual, odd = sys.argv[1:4]
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
python = odd if rank == world - 1 else usual
os.execv(
    sys.executable,
    [sys.executable, "-m", "ipex_doctor", "check", "--distributed", "--skip-sanity", "--device", "cpu",
     "--python", python, "--json", out, "--timeout", "120"],
)  # fmt: skip
