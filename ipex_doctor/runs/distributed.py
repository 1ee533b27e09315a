"""check --distributed: join the job's process group in a worker, gather the reports on rank 0.

Each rank has diagnosed its own device (its node's CPU and node-wide facts too, when it is the
node's first local rank); a fresh worker then joins torch.distributed with the job's backend,
checks the collectives and gathers every rank's digest (fingerprint and findings, not the whole
report) on rank 0, which merges them into one fleet report (``verdicts/fleet.py``).
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Mapping

from ipex_doctor import resources
from ipex_doctor.model.findings import Report
from ipex_doctor.model.observations import Outcome
from ipex_doctor.probe.session import Session
from ipex_doctor.runs.device_selection import local_devices
from ipex_doctor.verdicts.fleet import NodeDigest, collectives_finding, merge
from ipex_doctor.verdicts.launch import launch_finding

NODE_NAME_VARIABLES = ("IPEX_DOCTOR_NODE_NAME", "SLURMD_NODENAME")
"""Where a rank's node name comes from before the host name (containers often have random
host names; Slurm knows the node's)."""


def node_name(environ: Mapping[str, str] | None = None) -> str:
    """The name this rank's node has in the fleet report."""
    environ = os.environ if environ is None else environ
    for variable in NODE_NAME_VARIABLES:
        if environ.get(variable, "").strip():
            return environ[variable].strip()
    return socket.gethostname()


def rank_device(report: Report, local_rank: int) -> str:
    """This rank's device for the collectives: its local accelerator (as ``--device local``
    picks it), else cpu."""
    mine = local_devices(report.environment, local_rank)
    return mine[0] if mine else "cpu"


def gather(
    python: str, report: Report, *, timeout: float, device: str
) -> tuple[int | None, Report | None, str]:
    """Join the job's process group in a worker, check collectives, gather reports on rank 0.

    Returns ``(rank, fleet report on rank 0 else None, error)``. Every failure (a rank that
    never joins, a backend that breaks) is an error string, never an exception.
    """
    script = str(resources.path("probe/scripts/collective.py"))
    try:
        session = Session(python, probe=False)
    except OSError as exc:
        return None, None, f"could not start {python}: {exc.strerror}"
    try:
        session.start_up(timeout)
        run = session.run_check(
            "collectives",
            script,
            device,
            timeout * 2,
            args={
                "report": json.dumps(NodeDigest.of_report(node_name(), report).to_dict()),
                "timeout": timeout,
            },
        )
    except BaseException:
        session.close(grace=0)  # NOTE: stopped by the launcher: end the worker at once
        raise
    finally:
        session.close()
    if run.outcome is not Outcome.OK:
        return None, None, f"the collective step {run.outcome}: {run.error}"
    rank = int(run.result.get("rank", -1))
    if rank != 0:
        return rank, None, ""
    ranks = sorted(run.result.get("ranks") or (), key=lambda r: int(r.get("rank", 0)))
    # NOTE: the ranks of one node are one node of the fleet: its lowest rank gives the node's
    # fingerprint and node-wide findings, each further rank adds its own device's findings
    digests = (NodeDigest.from_dict(json.loads(r["report"])) for r in ranks)
    extra = (collectives_finding(ranks), launch_finding(ranks))
    fleet = merge(digests, report.environment, extra=extra)
    return 0, fleet, ""
