"""torchrun entry point for tests/runs/test_distributed.py: one doctor per rank, one odd rank.

    torchrun --nproc-per-node 4 --no-python PYTHON distributed_rank.py OUT.json PYTHON_A PYTHON_B

Every rank runs ``ipex-doctor check --distributed`` on PYTHON_A, except the last rank, which
examines PYTHON_B (another environment: the outlier the fleet report must name). Each rank
plays a node of its own (``IPEX_DOCTOR_NODE_NAME=node<rank>``), as one rank per node would. Rank 0 runs
the doctor as a child and writes its exit code to ``OUT.json.rank0-exit``, so the test reads
rank 0's own exit code rather than torchrun's summary of the job.
"""

import os
import signal
import subprocess
import sys

out, usual, odd = sys.argv[1:4]
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
python = odd if rank == world - 1 else usual
os.environ["IPEX_DOCTOR_NODE_NAME"] = f"node{rank}"
argv = [sys.executable, "-m", "ipex_doctor", "check", "--distributed", "--skip-sanity", "--device", "cpu",
        "--python", python, "--json", out, "--html", out + ".html", "--timeout", "300"]  # fmt: skip
if rank != 0:
    os.execv(sys.executable, argv)
child = subprocess.Popen(argv)
# NOTE: if torchrun stops the job, the doctor hears it too (and cleans up after itself).
signal.signal(signal.SIGTERM, lambda signum, frame: child.send_signal(signum))
code = child.wait()
with open(out + ".rank0-exit", "w") as handle:
    handle.write(str(code))
sys.exit(code)
