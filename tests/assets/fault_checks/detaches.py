"""A check that starts a detached grandchild (its own session, as a daemon would) and then
returns, hangs or waits to be interrupted, as IPEX_DOCTOR_TEST_DETACH_THEN says; the
grandchild's pid goes to IPEX_DOCTOR_TEST_PIDFILE."""

import os
import subprocess
import time


def run(device):
    daemon = subprocess.Popen(["setsid", "sleep", "377"])
    with open(os.environ["IPEX_DOCTOR_TEST_PIDFILE"], "w") as handle:
        handle.write(f"{daemon.pid}\n")
    if os.environ.get("IPEX_DOCTOR_TEST_DETACH_THEN") == "hang":
        time.sleep(600)
    return {"reproduced": False, "evidence": "returned, leaving a detached sleep 377"}
