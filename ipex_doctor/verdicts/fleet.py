"""Fleet reports: many nodes' (or ranks') reports merged into one, with the outliers named.

A deployment fails when *one* node differs: another driver, another torch, a missing device, a
finding that fails only there. A fleet of thousands of nodes must still read in one screen, so
the fleet keeps of each node only what comparing needs (a ``NodeDigest``: its fingerprint and
its findings) and writes each *distinct* finding once, with the nodes it holds on
(``Finding.nodes``). Nodes with the same fingerprint form a group; the majority is weighed over
groups, so the work is linear in the nodes. One ``fleet-outlier`` finding names each set of
nodes that differs from the majority in the same way (a build, a driver, a device, a problem
only they have, a device far slower than its peers); a ``fleet-summary`` finding lists the
groups. It is an ordinary ``Report``, so every format, the gate and the exit codes apply.

``REPORT_READS`` says which parts of a node's report a fleet reads: a merge of thousands of
reports validates those against the report schema, not every evidence of every finding.
"""

from __future__ import annotations

import collections
import dataclasses
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ipex_doctor import __version__
from ipex_doctor.model.environment import Environment
from ipex_doctor.model.findings import Command, Evidence, Finding, Report, Status, now_utc
from ipex_doctor.verdicts.hostlist import compress
from ipex_doctor.verdicts.majority import majority_of
from ipex_doctor.verdicts.registry import spec

_SUMMARY, _OUTLIER = spec("fleet-summary"), spec("fleet-outlier")
_COLLECTIVES = spec("fleet-collectives")

_PACKAGES = (
    "torch",
    "torchvision",
    "intel-extension-for-pytorch",
    "oneccl-bind-pt",
    "intel-sycl-rt",
)
_PROBLEMS = frozenset({Status.WARN.value, Status.FAIL.value, Status.ERROR.value})
_NODE_WIDE = (None, "cpu")
"""Findings about the node rather than one accelerator: a node's first rank reports them."""
_NAMED_IN_SUMMARY = 12
"""Outlier nodes the summary names; more are counted (the outlier findings name them)."""
_NAMED_IN_TITLE = 6
_THROUGHPUT = "sanity-throughput"
_PEER_MODE = "train_amp"
"""The figure a device is held to its peers by: AMP training throughput, what the job runs."""

REPORT_READS: Mapping[str, Any] = {
    "schema_version": True,
    "complete": True,
    "environment": {
        "interpreter": {"executable": True, "version": True},
        "packages": {"name": True, "version": True},
        "host": {"cpu_model": True, "cpu_flags": True},
        "runtime": {"torch": True, "devices": True},
    },
    "findings": {},
}
"""The parts of a node's report that ``fingerprint`` and ``NodeDigest`` read
(``knowledge.schema.subset``): findings only as objects. A finding is read by its key
(``_key``): one whose key no node brought before is new, and ``Fleet.add`` hands it back for
the caller to validate whole; a finding with the key of one validated so has the same valid
key fields, and nothing else of it is read (the sanity throughput reads its evidence
defensively)."""


def fingerprint(environment: Mapping[str, Any]) -> dict[str, str]:
    """What must be the same on every node of a job (software builds, devices, CPU), read from
    a report's ``environment`` as JSON; every value as text, so nodes compare by equality."""
    packages = {p.get("name"): p.get("version") for p in environment.get("packages") or ()}
    runtime = environment.get("runtime") or {}
    torch = runtime.get("torch") or {}
    devices = runtime.get("devices") or ()
    host = environment.get("host") or {}
    facts: dict[str, Any] = {f"package {name}": packages.get(name) for name in _PACKAGES}
    facts["torch build"] = (torch.get("version"), torch.get("xpu_compiled"), torch.get("cuda"))
    # NOTE: the devices are counted; their memory and driver are the values they hold, so a
    # missing device is one difference (devices), not three, and a driver is told apart from
    # a device count.
    facts["devices"] = _counted(f"{d.get('type')} {d.get('name', '?')}" for d in devices)
    facts["device memory"] = tuple(sorted({str(d.get("total_memory", "?")) for d in devices}))
    facts["device driver"] = tuple(sorted({str(d.get("driver_version", "?")) for d in devices}))
    facts["cpu"] = (host.get("cpu_model"), tuple(host.get("cpu_flags") or ()))
    facts["python"] = (environment.get("interpreter") or {}).get("version")
    return {key: _text(value) for key, value in facts.items()}


def _counted(labels: Iterable[str]) -> tuple[str, ...]:
    """``("6 x xpu Intel(R) Data Center GPU Max 1550",)``: each label once, with its count."""
    counts = collections.Counter(labels)
    return tuple(f"{n} x {label}" if n > 1 else label for label, n in sorted(counts.items()))


def _text(value: Any) -> str:
    if isinstance(value, tuple):
        return "(" + ", ".join(_text(v) for v in value) + ")" if value else "none"
    return "none" if value is None else str(value)


@dataclass(frozen=True)
class NodeDigest:
    """What a fleet keeps of one node's (or rank's) report."""

    name: str
    fingerprint: Mapping[str, str]
    findings: tuple[Mapping[str, Any], ...]
    """The node's findings as JSON, as its report wrote them."""
    complete: bool = True
    python: str = ""
    throughput: Mapping[str, float] = dataclasses.field(default_factory=dict)
    """AMP training img/s by device and regime (``device · batch N of SxS, layout``), from the
    node's sanity run: what its devices are held to their peers by."""

    @classmethod
    def of_data(cls, name: str, data: Mapping[str, Any]) -> NodeDigest:
        """The digest of a report read as JSON (already checked against the schema)."""
        environment = data.get("environment") or {}
        findings = tuple(data.get("findings") or ())
        return cls(
            name=name,
            fingerprint=fingerprint(environment),
            findings=findings,
            complete=bool(data.get("complete", True)),
            python=str((environment.get("interpreter") or {}).get("executable", "")),
            throughput=_throughput(findings),
        )

    @classmethod
    def of_report(cls, name: str, report: Report) -> NodeDigest:
        """The digest of a report in memory."""
        return cls.of_data(name, report.to_dict())

    def to_dict(self) -> dict[str, Any]:
        """JSON, as ranks send it to rank 0."""
        return {
            "name": self.name,
            "fingerprint": dict(self.fingerprint),
            "findings": list(self.findings),
            "complete": self.complete,
            "python": self.python,
            "throughput": dict(self.throughput),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> NodeDigest:
        """Inverse of ``to_dict``."""
        return cls(
            name=str(data["name"]),
            fingerprint={str(k): str(v) for k, v in dict(data["fingerprint"]).items()},
            findings=tuple(data["findings"]),
            complete=bool(data.get("complete", True)),
            python=str(data.get("python", "")),
            throughput={str(k): float(v) for k, v in dict(data.get("throughput") or {}).items()},
        )


def _throughput(findings: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """AMP training img/s per device and regime, from a node's sanity-throughput findings
    (evidence data is free-form JSON: a figure that is not a positive number says nothing)."""
    found: dict[str, float] = {}
    for finding in findings:
        if finding.get("id") != _THROUGHPUT or not isinstance(finding.get("evidence"), dict):
            continue
        data = finding["evidence"].get("data")
        figure = data.get(_PEER_MODE) if isinstance(data, dict) else None
        if isinstance(figure, bool) or not isinstance(figure, (int, float)) or figure <= 0:
            continue
        regime = data.get("regime") if isinstance(data.get("regime"), dict) else {}
        shape = f"batch {regime.get('batch', '?')} of {regime.get('image', '?')}x{regime.get('image', '?')}"
        found[f"{finding.get('device') or 'cpu'} · {shape}, {regime.get('layout', '?')}"] = float(
            figure
        )
    return found


def _about_an_accelerator(finding: Mapping[str, Any]) -> bool:
    """Whether a finding concerns an accelerator: made on one, or judged from runs on one."""
    if finding.get("device") not in _NODE_WIDE:
        return True
    return any(device not in _NODE_WIDE for device in finding.get("per_device") or {})


def _key(finding: Mapping[str, Any]) -> Hashable:
    """Two nodes hold the same finding when these agree (the evidence text may differ: the
    first node's stands for all)."""
    per_device = finding.get("per_device") or {}
    return (
        finding.get("id"),
        finding.get("device"),
        finding.get("status"),
        finding.get("verdict"),
        tuple(sorted(per_device.items())),
    )


@dataclass
class _Node:
    name: str
    group: int
    complete: bool = True
    throughput: Mapping[str, float] = dataclasses.field(default_factory=dict)


class Fleet:
    """A fleet report built one node at a time: ``add`` each digest, then ``report``.

    Memory holds each distinct finding once plus, per node, its name, its group and the keys of
    its problems; time is linear in the nodes and their findings.
    """

    def __init__(self) -> None:
        self._nodes: list[_Node] = []
        self._by_name: dict[str, _Node] = {}
        self._groups: dict[tuple[tuple[str, str], ...], int] = {}
        self._prints: list[Mapping[str, str]] = []
        self._distinct: dict[Hashable, tuple[Mapping[str, Any], list[str]]] = {}
        self._slow_figures: dict[str, dict[str, float]] = {}
        """Each slow node's own figures, by device and regime (the outlier's evidence)."""

    def __len__(self) -> int:
        return len(self._nodes)

    def add(
        self, digest: NodeDigest, *, devices_only: bool = False
    ) -> list[tuple[int, Mapping[str, Any]]]:
        """Fold one node in; the findings it brings that no node brought before, with their
        index in its report (the fleet report shows these as they are: the caller validates
        them whole). ``devices_only``: a
        further rank of a node already added under the same name; only its accelerator
        findings count (the first rank gave the rest)."""
        node = self._by_name.get(digest.name)
        if node is None:
            identity = tuple(sorted(digest.fingerprint.items()))
            group = self._groups.setdefault(identity, len(self._groups))
            if group == len(self._prints):
                self._prints.append(digest.fingerprint)
            node = _Node(digest.name, group, complete=digest.complete)
            self._nodes.append(node)
            self._by_name[digest.name] = node
        elif not devices_only:
            raise ValueError(f"two reports of one node named {digest.name!r}")
        node.complete = node.complete and digest.complete
        if digest.throughput:
            node.throughput = {**node.throughput, **digest.throughput}
        new: list[tuple[int, Mapping[str, Any]]] = []
        for index, finding in enumerate(digest.findings):
            try:
                if devices_only and not _about_an_accelerator(finding):
                    continue
                key = _key(finding)
                kept = self._distinct.get(key)
            except (AttributeError, TypeError):
                # NOTE: a key field of the wrong shape (a list for an id, per_device not an
                # object): new by definition; validating it names the place.
                new.append((index, finding))
                continue
            if kept is None:
                kept = self._distinct[key] = (finding, [])
                new.append((index, finding))
            kept[1].append(digest.name)
        return new

    def report(self, environment: Environment, *, extra: Sequence[Finding] = ()) -> Report:
        """The fleet report, ``environment`` (the first node's) on top."""
        if not self._nodes:
            raise ValueError("no reports to merge")
        outliers = self._outliers() if len(self._nodes) > 2 else []
        # NOTE: the node names go in as they are (strings already): decoding a fleet's
        # hundreds of thousands of them one by one was a third of a merge.
        findings = [
            dataclasses.replace(
                Finding.from_dict(
                    {**finding, "nodes": [], "per_device": finding.get("per_device") or {}}
                ),
                nodes=tuple(nodes),
            )
            for finding, nodes in self._distinct.values()
        ]
        return Report(
            doctor_version=__version__,
            created_at=now_utc(),
            command=Command.FLEET,
            environment=environment,
            findings=(self._summary(outliers), *outliers, *extra, *findings),
            complete=all(node.complete for node in self._nodes),
        )

    def _members(self) -> list[list[str]]:
        members: list[list[str]] = [[] for _ in self._prints]
        for node in self._nodes:
            members[node.group].append(node.name)
        return members

    def _summary(self, outliers: Sequence[Finding]) -> Finding:
        members = self._members()
        odd = sorted({name for finding in outliers for name in finding.nodes})
        incomplete = [node.name for node in self._nodes if not node.complete]
        groups = [
            {"nodes": names, "fingerprint": dict(self._prints[index])}
            for index, names in sorted(enumerate(members), key=lambda item: -len(item[1]))
        ]
        # NOTE: the outlier findings name their nodes; past a few, the summary only counts
        # them (the evidence data keeps every name), so a large fleet still reads in a screen.
        named = f": {compress(odd)}" if 0 < len(odd) <= _NAMED_IN_SUMMARY else ""
        text = (
            f"{_count(len(self._nodes), 'node')} in {_count(len(groups), 'group')} of identical "
            f"builds, devices and CPU; {_count(len(odd), 'outlier node')}{named}"
            + (f" in {_count(len(outliers), 'outlier')} above" if odd and not named else "")
        )
        if incomplete:
            text += f"; incomplete reports from {compress(incomplete)}"
        return _SUMMARY.finding(
            Status.PASS,
            Evidence(
                text,
                {
                    "node_count": len(self._nodes),
                    "groups": groups,
                    "incomplete": incomplete,
                    "outlier_nodes": compress(odd),
                },
            ),
            title=f"Fleet of {_count(len(self._nodes), 'node')}",
        )

    def _outliers(self) -> list[Finding]:
        """One finding per distinct way of differing from the majority, naming its nodes."""
        total = len(self._nodes)
        members = self._members()
        sizes = [len(names) for names in members]
        group_differences: list[list[str]] = [[] for _ in members]
        for key in dict.fromkeys(k for facts in self._prints for k in facts):
            counts: collections.Counter[str] = collections.Counter()
            for index, facts in enumerate(self._prints):
                counts[facts.get(key, "none")] += sizes[index]
            if len(counts) < 2:
                continue
            majority = majority_of(counts)
            for index, facts in enumerate(self._prints):
                mine = facts.get(key, "none")
                if mine == majority:
                    continue
                if majority is None:
                    group_differences[index].append(
                        f"{key}: {mine} (no value is held by a majority)"
                    )
                else:
                    group_differences[index].append(
                        f"{key}: {mine} (the {counts[majority]} others: {majority})"
                    )
        # NOTE: a problem is rare when at most half the nodes have it; counted once per key
        rare: dict[str, list[str]] = collections.defaultdict(list)
        for finding, nodes in self._distinct.values():
            if finding.get("status") in _PROBLEMS and len(nodes) * 2 <= total:
                where = f" on {finding['device']}" if finding.get("device") else ""
                text = f"{finding.get('id')}{where} is {finding.get('status')} only on {len(set(nodes))} of {total} nodes"
                for name in dict.fromkeys(nodes):
                    rare[name].append(text)
        slow = self._slow_devices()
        by_difference: dict[tuple[str, ...], list[str]] = {}
        for node in self._nodes:
            differences = (
                *group_differences[node.group],
                *rare.get(node.name, ()),
                *slow.get(node.name, ()),
            )
            if differences:
                by_difference.setdefault(differences, []).append(node.name)
        return [
            _outlier(names, list(differences), total, self._figures_of(names))
            for differences, names in by_difference.items()
        ]

    def _figures_of(self, names: Sequence[str]) -> dict[str, dict[str, float]]:
        return {name: self._slow_figures[name] for name in names if name in self._slow_figures}

    def _slow_devices(self) -> dict[str, list[str]]:
        """Per node, each device whose AMP training throughput is under ``LINK_FRACTION`` of
        the fleet's median for that device and regime (with at least 3 nodes to weigh). The
        text leaves the node's own figure out, so nodes slow in the same place group into one
        outlier."""
        figures: dict[str, list[tuple[float, str]]] = collections.defaultdict(list)
        for node in self._nodes:
            for where, figure in node.throughput.items():
                figures[where].append((figure, node.name))
        slow: dict[str, list[str]] = collections.defaultdict(list)
        self._slow_figures.clear()
        for where, found in figures.items():
            if len(found) < 3:
                continue
            values = sorted(figure for figure, _ in found)
            median = values[len(values) // 2]
            for figure, name in found:
                if figure < LINK_FRACTION * median:
                    self._slow_figures.setdefault(name, {})[where] = figure
                    slow[name].append(
                        f"AMP training throughput on {where} under {LINK_FRACTION:.0%} of the "
                        f"fleet's median of {median:,.1f} img/s"
                    )
        return slow


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")


def _outlier(
    names: list[str],
    differences: list[str],
    total: int,
    throughput: Mapping[str, Mapping[str, float]],
) -> Finding:
    listed = compress(names)
    verb = "differs" if len(names) == 1 else f"({len(names)} of {total} nodes) differ"
    # NOTE: a title stays one line however many nodes share the difference: it names a few,
    # the finding's nodes and its evidence name them all.
    named = listed if len(names) <= _NAMED_IN_TITLE else f"{names[0]} and {len(names) - 1} more"
    data: dict[str, Any] = {"nodes": listed, "differences": differences}
    if throughput:
        data["throughput"] = {name: dict(figures) for name, figures in throughput.items()}
    return _OUTLIER.finding(
        Status.FAIL,
        Evidence("; ".join(differences), data),
        title=f"{named} {verb} from the other nodes",
        remediation="Make every node of the job run the same builds and drivers; "
        "examine such a node alone with 'ipex-doctor check' on it.",
        nodes=tuple(names),
    )


def merge(
    digests: Iterable[NodeDigest], environment: Environment, *, extra: Sequence[Finding] = ()
) -> Report:
    """One fleet report from node digests (a node named twice: its further ranks add their
    accelerator findings), ``environment`` on top."""
    fleet = Fleet()
    seen: set[str] = set()
    for digest in digests:
        fleet.add(digest, devices_only=digest.name in seen)
        seen.add(digest.name)
    return fleet.report(environment, extra=extra)


def collectives_finding(ranks: Sequence[Mapping[str, Any]]) -> Finding:
    """Correctness and bandwidth of all_reduce / all_gather across ``ranks`` (rank 0's view):
    a wrong result on any rank fails, a rank far below the median bandwidth warns."""
    facts = [r.get("collectives") or {} for r in ranks]
    wrong = [
        f"rank {f.get('rank')}"
        for f in facts
        if not (f.get("all_reduce_ok") and f.get("all_gather_ok"))
    ]
    bandwidths = sorted(float(f.get("busbw_gbps") or 0.0) for f in facts)
    median = bandwidths[len(bandwidths) // 2] if bandwidths else 0.0
    slow = [
        f"rank {f.get('rank')} ({f.get('host')}): {float(f.get('busbw_gbps') or 0):.3f} GB/s"
        for f in facts
        if median and float(f.get("busbw_gbps") or 0.0) < LINK_FRACTION * median
    ]
    first = facts[0] if facts else {}
    summary = (
        f"{len(facts)} ranks, backend {first.get('backend')}: all_reduce {first.get('all_reduce_mib')} MiB "
        f"bus bandwidth median {median:.3f} GB/s (min {bandwidths[0] if bandwidths else 0:.3f}, "
        f"max {bandwidths[-1] if bandwidths else 0:.3f}); all_reduce and all_gather "
        + ("correct on every rank" if not wrong else f"WRONG on {', '.join(wrong)}")
    )
    status = Status.FAIL if wrong else (Status.WARN if slow else Status.PASS)
    if slow:
        summary += (
            f"; far below the others (< {LINK_FRACTION:.0%} of the median): {', '.join(slow)}"
        )
    return _COLLECTIVES.finding(
        status,
        Evidence(summary, {"ranks": facts}),
        remediation="Check the slow or wrong ranks' interconnect, driver and NIC/fabric settings "
        "(CCL_*, I_MPI_*, NCCL_* variables), then rerun."
        if status is not Status.PASS
        else "",
    )


LINK_FRACTION = 0.5
"""A rank whose all_reduce bus bandwidth is below half the median is 'far below its peers'."""
