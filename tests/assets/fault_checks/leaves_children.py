"""A check that leaves a zombie child and a sleeping orphan behind; their pids go to a file."""

import os
import subprocess
import sys


def run(device):
    zombie = subprocess.Popen([sys.executable, "-c", "pass"])
    orphan = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    with open(os.environ["IPEX_DOCTOR_TEST_PIDFILE"], "w") as handle:
        handle.write(f"{zombie.pid} {orphan.pid}\n")
    return {"reproduced": False, "evidence": "returned, leaving a zombie and an orphan"}
