"""merge: many nodes' reports into one fleet report that names the outliers, each finding once."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import REPO, run_doctor

from ipex_doctor.model.environment import Environment
from ipex_doctor.model.findings import Status
from ipex_doctor.verdicts import hostlist
from ipex_doctor.verdicts.fleet import Fleet, NodeDigest, fingerprint

FIXTURE = REPO / "tests" / "assets" / "reports" / "xpu-ipex2120-arc-a770.json"
RECORDED = REPO / "tests" / "assets" / "reports" / "cpu-reference-check.json"
SCHEMA = json.loads((REPO / "docs" / "report.schema.json").read_text())


def _write(tmp_path: Path, count: int, odd: dict[int, Any] | None = None) -> Path:
    """``count`` copies of the XPU report in a directory, ``odd[i]`` changing node i's copy."""
    directory = tmp_path / "nodes"
    directory.mkdir()
    width = len(str(count - 1))
    for index in range(count):
        data = json.loads(FIXTURE.read_text())
        if odd and index in odd:
            odd[index](data)
        (directory / f"node{index:0{width}d}.json").write_text(json.dumps(data))
    return directory


def _other_torch_and_driver(data: dict[str, Any]) -> None:
    for package in data["environment"]["packages"]:
        if package["name"] == "torch":
            package["version"] = "2.1.0"
    data["environment"]["runtime"]["devices"][0]["driver_version"] = "1.3.26918"


def _qconv_fails(data: dict[str, Any]) -> None:
    finding = next(f for f in data["findings"] if f["id"] == "qconv-op-name")
    finding["status"], finding["verdict"] = "fail", "affected"


def _merge(*args: str) -> tuple[Any, dict[str, Any]]:
    done = run_doctor("merge", *args, "--json", "-")
    return done, json.loads(done.stdout)


def test_merge_names_the_outlier(tmp_path: Path) -> None:
    """The node with another torch and driver is the one outlier, with both differences; every
    finding is written once, with the nodes it holds on."""
    done, report = _merge(str(_write(tmp_path, 4, {3: _other_torch_and_driver})))
    assert done.returncode == 1
    jsonschema.validate(report, SCHEMA)
    assert report["command"] == "fleet"
    outliers = [f for f in report["findings"] if f["id"] == "fleet-outlier"]
    assert [f["nodes"] for f in outliers] == [["node3"]]
    summary = outliers[0]["evidence"]["summary"]
    assert "package torch: 2.1.0" in summary and "device driver" in summary
    fleet = next(f for f in report["findings"] if f["id"] == "fleet-summary")["evidence"]["data"]
    assert fleet["node_count"] == 4
    assert [group["nodes"] for group in fleet["groups"]] == [["node0", "node1", "node2"], ["node3"]]
    grad = [f for f in report["findings"] if f["id"] == "grad-mode-divergence"]
    assert [(f["device"], f["nodes"]) for f in grad] == [
        ("xpu:0", ["node0", "node1", "node2", "node3"])
    ]


def test_a_problem_on_few_nodes_names_them_and_shows_in_the_matrix(tmp_path: Path) -> None:
    directory = _write(tmp_path, 12, {4: _qconv_fails, 9: _qconv_fails})
    done = run_doctor("merge", str(directory))
    assert done.returncode == 1
    assert "node[04,09] (2 of 12 nodes) differ from the other nodes" in done.stdout
    assert "qconv-op-name is fail only on 2 of 12 nodes" in done.stdout
    assert "on 2 of 12: node[04,09]" in done.stdout
    assert "Finding x node group" in done.stdout
    header = next(line for line in done.stdout.splitlines() if "node[00-03,05-08,10-11]" in line)
    assert header.index("node[00-03") < header.index("node[04,09]")  # the majority first


def test_a_thousand_identical_nodes_read_in_one_screen(tmp_path: Path) -> None:
    directory = _write(tmp_path, 1000)
    done = run_doctor("merge", str(directory), "--junit-xml", str(tmp_path / "f.xml"))
    lines = done.stdout.splitlines()
    assert len(lines) < 60, done.stdout
    assert "Fleet of 1000 nodes" in done.stdout and "1 group of" in done.stdout
    assert "on all 1000 nodes" in done.stdout and "fleet-outlier" not in done.stdout
    assert "Finding x node" not in done.stdout  # nothing differs: no matrix
    cases = ET.parse(tmp_path / "f.xml").getroot().iter("testcase")
    names = [case.get("name") for case in cases]
    single = json.loads(FIXTURE.read_text())["findings"]
    assert len(names) == len(set(names)) <= len(single) + 1  # + fleet-summary


def test_three_odd_nodes_of_a_thousand_are_named_in_the_first_screen(tmp_path: Path) -> None:
    odd = {17: _other_torch_and_driver, 512: _qconv_fails, 999: _qconv_fails}
    done, report = _merge(str(_write(tmp_path, 1000, odd)))
    named = {n for f in report["findings"] if f["id"] == "fleet-outlier" for n in f["nodes"]}
    assert named == {"node017", "node512", "node999"}
    console = run_doctor("merge", str(tmp_path / "nodes")).stdout.splitlines()
    first_screen = "\n".join(console[:40])
    assert "node017 differs" in first_screen and "node[512,999]" in first_screen
    junit = run_doctor("merge", str(tmp_path / "nodes"), "--junit-xml", "-").stdout
    case = next(
        c for c in ET.fromstring(junit).iter("testcase") if c.get("name") == "qconv-op-name"
    )
    failure = case.find("failure")
    assert failure is not None and failure.text is not None
    assert "Where: fail on 2 of 1000: node[512,999]; pass on 998 of 1000" in failure.text


def test_ranks_of_one_node_are_one_node_with_each_device_once() -> None:
    """A node's first rank gives the node-wide findings, a further rank only its device's."""
    data = json.loads(FIXTURE.read_text())
    environment = Environment.from_dict(data["environment"])
    first = NodeDigest.of_data("h1", data)
    second = NodeDigest(
        "h1",
        first.fingerprint,
        tuple(
            {**f, "device": "xpu:1"} if f.get("device") == "xpu:0"
            else {**f, "per_device": {"xpu:1": "pass"}, "status": "pass"}
            if f["id"] == "qconv-op-name"
            else f
            for f in data["findings"]
        ),
    )  # fmt: skip
    fleet = Fleet()
    fleet.add(first)
    fleet.add(second, devices_only=True)
    report = fleet.report(environment)
    dot = [(f.device, f.nodes) for f in report.findings if f.id == "dot-half"]
    assert dot == [("xpu:0", ("h1",)), ("xpu:1", ("h1",))]
    mismatch = [f.nodes for f in report.findings if f.id == "torch-ipex-mismatch"]
    assert mismatch == [("h1",)]  # node-wide: once
    qconv = [dict(f.per_device) for f in report.findings if f.id == "qconv-op-name"]
    assert {"xpu:1": Status.PASS} in qconv  # judged from the second rank's device: kept
    with pytest.raises(ValueError, match="two reports of one node"):
        fleet.add(first)


def test_fingerprint_is_text_and_equal_for_equal_environments() -> None:
    data = json.loads(FIXTURE.read_text())
    facts = fingerprint(data["environment"])
    assert all(isinstance(v, str) for v in facts.values())
    assert facts["package torch"] == "2.1.0.post0+cxx11.abi"
    assert facts == fingerprint(json.loads(FIXTURE.read_text())["environment"])


def test_identical_nodes_have_no_outlier(tmp_path: Path) -> None:
    _, report = _merge(str(_write(tmp_path, 3)))
    assert not [f for f in report["findings"] if f["id"] == "fleet-outlier"]


def test_merge_gate_and_ignores(tmp_path: Path) -> None:
    directory = str(_write(tmp_path, 4, {3: _other_torch_and_driver}))
    ignored = run_doctor(
        "merge",
        directory,
        "--fail-on",
        "never",
        "--ignore",
        "fleet-outlier=node3 is being reimaged",
    )
    assert ignored.returncode == 0


def test_merge_refuses_garbage_and_empty_directories(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    done = run_doctor("merge", str(FIXTURE), str(bad))
    assert done.returncode == 2 and "not JSON" in done.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    done = run_doctor("merge", str(empty))
    assert done.returncode == 2 and "no *.json reports" in done.stderr


def test_a_report_of_a_directory_that_links_out_of_it_is_refused(tmp_path: Path) -> None:
    """A fleet directory (an artifact of many nodes' reports) whose ``node9.json`` links to a
    report elsewhere (another run's, another team's): it is not read into the fleet report;
    one line, exit 2, naming where it leads, and no report written. Before, it was merged as
    a node. A link that stays in the directory is read, and so is a link named as a file."""
    directory = _write(tmp_path, 2)
    outside = tmp_path / "elsewhere" / "private.json"
    outside.parent.mkdir()
    outside.write_text(FIXTURE.read_text())
    link = directory / "node9.json"
    link.symlink_to(outside)
    done = run_doctor("merge", str(directory), "--json", "-")
    assert done.returncode == 2 and done.stdout == "", done.stderr
    assert done.stderr.splitlines() == [
        f"ipex-doctor: error: {link} links to {outside}, outside {directory}: a directory "
        "stands for the reports in it (name the file itself to merge it)"
    ]
    assert _merge(str(directory / "node0.json"), str(link))[0].returncode == 1
    link.unlink()
    link.symlink_to("node0.json")
    assert _merge(str(directory))[0].returncode == 1


@pytest.mark.parametrize(
    ("names", "text"),
    [
        (["n01", "n02", "n03", "x"], "n[01-03],x"),
        ([f"node{i:04d}" for i in range(1, 1000)] + ["node1003"], "node[0001-0999,1003]"),
        (["n7", "n8", "n9", "n10"], "n[7-9],n10"),
        (["h:rank0", "h:rank3", "a"], "a,h:rank[0,3]"),
        (["gpu-a1"], "gpu-a1"),
    ],
)
def test_host_lists_fold_like_slurm_and_unfold_again(names: list[str], text: str) -> None:
    assert hostlist.compress(names) == text
    assert sorted(hostlist.expand(text)) == sorted(names)


def _devices(count: int, driver: str = "1.6.31294") -> list[dict[str, Any]]:
    device = {
        "type": "xpu",
        "name": "Intel(R) Data Center GPU Max 1550",
        "total_memory": 68719476736,
    }
    return [{**device, "index": i, "driver_version": driver} for i in range(count)]


def _throughput(device: str, train_amp: float) -> dict[str, Any]:
    """A sanity-throughput finding of the recorded reference run, moved to ``device``."""
    recorded = json.loads(RECORDED.read_text())
    finding = next(f for f in recorded["findings"] if f["id"] == "sanity-throughput")
    finding.update(device=device, per_device={device: "pass"})
    finding["evidence"]["data"]["train_amp"] = train_amp
    return finding


def _six_cards(data: dict[str, Any], index: int, figures: dict[int, float] | None = None) -> None:
    """Node ``index`` with six cards, each with its AMP training throughput (the ``figures``
    given, else within 4 % of 1450 img/s, as measured figures vary)."""
    data["environment"]["runtime"]["devices"] = _devices(6)
    for card in range(6):
        figure = (figures or {}).get(card, 1450.0 * (0.96 + 0.08 * ((index * 7 + card) % 5) / 4))
        data["findings"].append(_throughput(f"xpu:{card}", figure))


def test_a_card_far_below_its_peers_is_named_and_ordinary_spread_is_not(tmp_path: Path) -> None:
    """A device under half the fleet's median AMP training throughput (same device and regime)
    makes its node an outlier with its own figure in the evidence; figures within a few
    percent of each other, as every run measures them, name nobody."""
    slow = {5: {3: 480.0}, 11: {3: 470.0}}
    odd = {i: (lambda d, i=i: _six_cards(d, i, slow.get(i))) for i in range(12)}
    done, report = _merge(str(_write(tmp_path, 12, odd)))
    jsonschema.validate(report, SCHEMA)
    outliers = [f for f in report["findings"] if f["id"] == "fleet-outlier"]
    assert [f["nodes"] for f in outliers] == [["node05", "node11"]]
    evidence = outliers[0]["evidence"]
    assert "AMP training throughput on xpu:3" in evidence["summary"]
    assert "under 50% of the fleet's median" in evidence["summary"]
    assert evidence["data"]["throughput"]["node05"] == {
        "xpu:3 · batch 4 of 224x224, channels_last": 480.0
    }


def test_a_missing_card_is_one_difference_not_three(tmp_path: Path) -> None:
    """Five cards where the others have six: the device count differs; the memory and driver
    the cards hold do not (one cause, one difference)."""

    def five(data: dict[str, Any]) -> None:
        data["environment"]["runtime"]["devices"] = _devices(5)

    def six(data: dict[str, Any]) -> None:
        data["environment"]["runtime"]["devices"] = _devices(6)

    _, report = _merge(str(_write(tmp_path, 5, {0: six, 1: six, 2: five, 3: six, 4: six})))
    outlier = next(f for f in report["findings"] if f["id"] == "fleet-outlier")
    assert outlier["nodes"] == ["node2"]
    assert outlier["evidence"]["data"]["differences"] == [
        "devices: (5 x xpu Intel(R) Data Center GPU Max 1550) "
        "(the 4 others: (6 x xpu Intel(R) Data Center GPU Max 1550))"
    ]


def test_a_fleet_console_shows_problems_and_differences_and_v_shows_the_rest(
    tmp_path: Path,
) -> None:
    """Passes and notes that say nothing about what differs stay behind -v in a fleet view;
    an outlier's evidence line names all its nodes."""
    directory = _write(tmp_path, 12, {4: _qconv_fails, 9: _qconv_fails})
    quiet = run_doctor("merge", str(directory)).stdout
    assert "node[04,09]: qconv-op-name is fail only on 2 of 12 nodes" in quiet
    passes = [line for line in quiet.splitlines() if line.startswith("  ✓") and "fleet" not in line]
    assert passes == []
    verbose = run_doctor("merge", str(directory), "-v").stdout
    assert any(
        line.startswith("  ✓") and "fleet-summary" not in line for line in verbose.splitlines()
    )


@pytest.mark.parametrize(
    ("where", "value", "said"),
    [
        ("first-node finding", {"id": ["not", "text"]}, "$.findings[0].id"),
        ("later-node finding", {"status": "bogus"}, "$.findings[0].status"),
        ("later-node cpu flags", "avx2", "$.environment.host.cpu_flags"),
    ],
)
def test_merge_refuses_a_malformed_part_it_reads_in_one_line(
    tmp_path: Path, where: str, value: Any, said: str
) -> None:
    """What the fleet reads is checked against the report schema, whichever node it comes
    from: one line naming the file and the place, exit 2, never a crash."""

    def spoil(data: dict[str, Any]) -> None:
        if where.endswith("cpu flags"):
            data["environment"]["host"]["cpu_flags"] = value
        else:
            data["findings"][0].update(value)

    index = 0 if where.startswith("first") else 2
    done = run_doctor("merge", str(_write(tmp_path, 4, {index: spoil})))
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr
    assert f"node{index}.json: not a valid ipex-doctor report ({said}" in lines[0]


@pytest.mark.parametrize(
    ("where", "refused"),
    [
        ("a new finding's evidence", True),  # validated whole: walked, so checked
        ("the runtime the fleet compares", True),
        ("a finding whose key an earlier node brought", False),  # read by its key alone
    ],
)
def test_merge_checks_the_depth_of_what_it_walks(tmp_path: Path, where: str, refused: bool) -> None:
    """A node's report nested 200 levels deep (under the parser's own limit, far over a
    report's 64): refused in one line where the merge walks that part; a part it never reads
    is never walked, so it cannot break the merge."""
    deep: Any = 1
    for _ in range(200):
        deep = [deep]

    def spoil(data: dict[str, Any]) -> None:
        if where.startswith("the runtime"):
            data["environment"]["runtime"]["torch"]["deep"] = deep
        elif where.startswith("a new"):
            data["findings"][0]["status"], data["findings"][0]["verdict"] = "fail", "affected"
            data["findings"][0]["evidence"]["data"]["deep"] = deep
        else:
            data["findings"][0]["evidence"]["data"]["deep"] = deep

    done = run_doctor("merge", str(_write(tmp_path, 3, {2: spoil})), "--json", "-")
    if refused:
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert "node2.json: " in done.stderr and "nested deeper than 64 levels" in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
    else:
        assert done.returncode in (0, 1) and "Traceback" not in done.stderr, done.stderr
        assert "deep" not in done.stdout
