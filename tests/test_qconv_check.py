"""qconv-op-name's real call of the op: right on every CPU, and judged as what it is when not."""

from __future__ import annotations

import json
import subprocess

import pytest
from builders import make_env
from conftest import REPO, doctor_env, real_env

from ipex_doctor.knowledge import known_issues
from ipex_doctor.model.findings import Status
from ipex_doctor.model.observations import CheckRun, Outcome
from ipex_doctor.verdicts.judge import judge


@pytest.mark.envs
def test_qconv_real_call_matches_without_vnni_and_a_failed_one_is_an_error() -> None:
    """qconv-op-name's own int8 call agrees with the float conv on a CPU without VNNI too
    (ONEDNN_MAX_CPU_ISA=AVX2: pairs of u8 x s8 products summed into a saturating int16),
    where its 8-bit activations were off by 1.1e-01; and when a call does disagree (here
    with a tolerance of 0), the doctor reports the check as broken, not "not applicable"."""
    code = (
        "import json, sys\n"
        f"sys.path.insert(0, {str(REPO / 'checks')!r})\n"
        "import qconv_op_name as q\n"
        "normal = q.run('cpu')\n"
        "q.TOLERANCE = 0.0\n"
        "print(json.dumps([normal, q.run('cpu')], default=repr))\n"
    )
    done = subprocess.run(
        [real_env("reference"), "-c", code], capture_output=True, text=True, timeout=300,
        env=doctor_env({"ONEDNN_MAX_CPU_ISA": "AVX2"}), check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    normal, strict = json.loads(done.stdout)
    calls = normal["calls"].values()
    assert calls and all(c["ok"] and c["rel_error"] < 1e-6 for c in calls), normal["calls"]
    assert "check_failed" not in normal
    assert "rel. error" in strict["check_failed"] and "FAILED" in strict["evidence"]
    env = make_env(
        {"torch": "2.8.0+cpu"}, torch_facts={"version": "2.8.0+cpu", "xpu_compiled": False}
    )
    for result, status in ((normal, Status.SKIP), (strict, Status.ERROR)):
        run = CheckRun("qconv-op-name", "cpu", Outcome.OK, result=result)
        finding = next(
            f for f in judge(env, known_issues.load(), runs={"qconv-op-name": [run]})
            if f.id == "qconv-op-name"
        )  # fmt: skip
        assert (finding.status, finding.per_device) == (status, {"cpu": status})
    assert finding.title.startswith("Could not check: ")
    assert "failed its own verification" in finding.evidence.summary
