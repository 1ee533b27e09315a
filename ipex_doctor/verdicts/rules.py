"""The rules: built-in detectors that judge the knowledge base's environment entries.

The knowledge base is data: it names a rule (``rule: torch-ipex-mismatch``) and carries the
versions, texts and references. A rule is the small piece of logic a version range cannot
express (a relation between two packages, a CPU flag, a device property, what an import did).
Rules read the ``Environment`` only; they never run anything.

Each rule returns a ``RuleVerdict``: a verdict, a sentence of evidence, the data behind it and,
where the fix depends on this environment, a specific remediation to put before the KB's one.
The judge (``judge``) turns it into the entry's finding. The names a KB may use are the
knowledge base's (``knowledge.rule_names``); ``RULES`` here has one rule for each.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ipex_doctor.knowledge import remedies
from ipex_doctor.model.environment import IPEX, IPEX_MODULE
from ipex_doctor.model.remedy import PipAction
from ipex_doctor.model.terms import Reference, Verdict
from ipex_doctor.model.versions import major_minor, parse
from ipex_doctor.verdicts import fatal_imports

if TYPE_CHECKING:
    from ipex_doctor.model.environment import Environment, ImportOutcome


@dataclass(frozen=True)
class RuleVerdict:
    """What a rule concluded about one entry in one environment (the judge makes the same from
    an entry's version facts or its check's runs when the entry names no rule)."""

    verdict: Verdict
    evidence: str
    data: Mapping[str, Any] = field(default_factory=dict)
    remediation: str = ""
    """A remediation specific to this environment, shown before the entry's general one."""
    actions: tuple[PipAction, ...] = ()
    """The pip commands that apply it here (see ``remedies``)."""
    replaces_remediation: bool = False
    """The specific remediation is the whole story: the entry's general one and its
    workaround would be unrelated advice here."""
    title: str = ""
    """A title for this environment, instead of the entry's wording for the status."""
    references: tuple[Reference, ...] = ()
    """Sources for the versions found here (the installed release's own code), cited before
    the entry's references."""


Earlier = Mapping[str, RuleVerdict]
"""The verdicts of the rules a rule needs (``NEEDS``), by rule name."""
RuleFn = Callable[["Environment", bool | None, Earlier], RuleVerdict]
"""A rule gets the environment, whether a version is in the entry's affected ranges, and the
verdicts of the rules it needs; it never calls another rule itself."""


def observe_rule(
    env: Environment,
    rule: str,
    in_range: bool | None,
    seen: dict[str, RuleVerdict] | None = None,
) -> RuleVerdict:
    """The verdict of ``rule`` in ``env``, the rules it needs (``NEEDS``) observed first.

    ``seen`` caches the verdicts of needed rules across the entries of one judgement (they do
    not depend on the entry's version ranges). An unknown ``rule`` raises ``KeyError``: the
    loader refused it already (``knowledge.rule_names``).
    """
    seen = {} if seen is None else seen
    earlier = {}
    for needed in NEEDS.get(rule, ()):
        if needed not in seen:
            seen[needed] = observe_rule(env, needed, None, seen)
        earlier[needed] = seen[needed]
    return RULES[rule](env, in_range, earlier)


def _na(reason: str) -> RuleVerdict:
    return RuleVerdict(Verdict.NOT_APPLICABLE, reason)


def _failure_text(outcome: ImportOutcome) -> str:
    text = f"{outcome.error_type}: {outcome.error}" if outcome.error_type else str(outcome.error)
    if outcome.missing_library:
        text += f" (missing shared library: {outcome.missing_library})"
    return text


def _import_data(outcome: ImportOutcome | None) -> dict[str, Any]:
    return {} if outcome is None else {"import": outcome.to_dict()}


def torch_missing(env: Environment, in_range: bool | None, earlier: Earlier) -> RuleVerdict:
    """torch is not installed in the examined interpreter."""
    if env.package("torch") is not None:
        torch = env.package("torch")
        assert torch is not None
        return RuleVerdict(Verdict.NOT_AFFECTED, f"torch {torch.version} is installed")
    intel_gpu = bool(env.host.render_nodes)
    index = remedies.PYTORCH_INDEX + "xpu" if intel_gpu else None
    return RuleVerdict(
        Verdict.AFFECTED,
        f"torch is not installed in {env.interpreter.executable} "
        f"(Python {env.interpreter.version}, prefix {env.interpreter.prefix})",
        {"python": env.interpreter.executable},
        actions=(remedies.install(env, "torch", index_url=index),),
    )


def torch_import_failed(env: Environment, in_range: bool | None, earlier: Earlier) -> RuleVerdict:
    """torch is installed but ``import torch`` fails (or the probe could not run)."""
    if env.package("torch") is None:
        return _na("torch is not installed")
    if not env.runtime.ran:
        return RuleVerdict(
            Verdict.AFFECTED, f"the runtime probe could not run: {env.runtime.skip_reason}"
        )
    outcome = env.runtime.import_of("torch")
    if outcome is None:
        return RuleVerdict(
            Verdict.AFFECTED,
            f"the interpreter ended before importing torch ({env.runtime.unfinished_stage})",
            {"output_tail": env.runtime.output_tail},
        )
    if outcome.ok:
        return RuleVerdict(
            Verdict.NOT_AFFECTED,
            f"import torch {outcome.version} succeeded in {outcome.seconds or 0:.1f} s",
            _import_data(outcome),
        )
    causes = _causes_of("torch-import-failed", "torch", earlier)
    if causes:
        return _points_to(causes, outcome, "torch does not import", "torch then imports")
    return RuleVerdict(
        Verdict.AFFECTED, f"import torch failed: {_failure_text(outcome)}", _import_data(outcome)
    )


def _causes_of(rule: str, module: str, earlier: Earlier) -> list[str]:
    """The rules among ``rule``'s ``NEEDS`` that are affected and explain ``module``'s failed
    import: all of it, unless the cause names the imports it explains (``explains``)."""
    return [
        name
        for name in NEEDS[rule]
        if earlier[name].verdict is Verdict.AFFECTED
        and module in earlier[name].data.get("explains", (module,))
    ]


def _points_to(causes: list[str], outcome: ImportOutcome, what: str, after: str) -> RuleVerdict:
    """The verdict of a failed import that ``causes`` explain: it only points there."""
    return _pointer(
        causes,
        f"import {outcome.module} failed",
        _failure_text(outcome),
        _import_data(outcome),
        title=what,
        after=after,
    )


def _pointer(
    causes: list[str],
    what: str,
    detail: str,
    data: Mapping[str, Any],
    *,
    title: str,
    after: str = "",
) -> RuleVerdict:
    """The verdict of an entry whose failure ``causes`` explain: it only points there.

    NOTE: one cause is one finding: the failure is reported (and fixed) under its cause; this
    entry only points there (status skip, its title naming the cause), so the gate counts the
    cause once."""
    named = ", ".join(causes)
    return RuleVerdict(
        Verdict.NOT_APPLICABLE,
        f"{what}, explained by {named} (reported there)" + (f": {detail}" if detail else ""),
        {**data, "explained_by": causes},
        remediation=f"Apply the fix of {named}" + (f"; {after}." if after else "."),
        replaces_remediation=True,
        title=f"{title[0].upper()}{title[1:]}: the cause is {named}",
    )


def torch_ipex_mismatch(env: Environment, in_range: bool | None, earlier: Earlier) -> RuleVerdict:
    """IPEX X.Y needs torch X.Y: its ``__init__`` refuses any other major.minor."""
    torch_v, ipex_v = env.torch_version(), env.ipex_version()
    if torch_v is None or ipex_v is None:
        return _na("needs both torch and IPEX installed")
    torch_mm, ipex_mm = major_minor(torch_v), major_minor(ipex_v)
    data: dict[str, Any] = {"torch": torch_v, "ipex": ipex_v}
    ipex = env.package(IPEX)
    variant = None if ipex is None else env.effective_variant(ipex)
    # NOTE: cite the check of the release installed here; another release's file would show
    # another line than the one this IPEX accepts.
    source = remedies.ipex_version_check(ipex_v, variant)
    cited = (source,) if source is not None else ()
    if torch_mm == ipex_mm:
        return RuleVerdict(
            Verdict.NOT_AFFECTED, f"torch {torch_v} matches IPEX {ipex_v} ({torch_mm}.*)", data,
            references=cited,
        )  # fmt: skip
    outcome = env.runtime.import_of(IPEX_MODULE)
    observed = ""
    if outcome is not None and not outcome.ok:
        printed = next(
            (line.strip() for line in outcome.output.splitlines() if "ERROR!" in line), ""
        )
        observed = (
            f"; importing IPEX printed {printed!r} and failed: "
            if printed
            else ("; importing IPEX failed: ")
        )
        observed += _failure_text(outcome)
        data.update(_import_data(outcome))
    data["explains"] = [IPEX_MODULE]
    fix, actions = _mismatch_fix(env, torch_mm or "", ipex_mm or "", ipex_v, variant)
    return RuleVerdict(
        Verdict.AFFECTED,
        f"IPEX {ipex_v} needs torch {ipex_mm}.*, but torch {torch_v} is installed{observed}",
        data,
        remediation=fix,
        actions=tuple(actions),
        # NOTE: the fix names the versions found here and the pair to pin; the entry's
        # general advice would only repeat it without them.
        replaces_remediation=True,
        references=cited,
    )


def _mismatch_fix(
    env: Environment, torch_mm: str, ipex_mm: str, ipex_v: str, variant: str | None
) -> tuple[str, list[PipAction]]:
    """The smallest consistent change: move IPEX to torch's line if IPEX has one, else remove
    IPEX (torch is newer than every IPEX), else move torch (and torchvision) to IPEX's line.
    Each text names the installed versions and the pair to pin that the change leaves."""
    actions = remedies.move_ipex(env, torch_mm, variant)
    if actions:
        return (
            f"Install the IPEX release built for torch {torch_mm} (one package; torch and "
            f"torchvision stay as they are). Moving torch to {ipex_mm}.*, the line of the "
            f"installed IPEX {ipex_v}, would instead download gigabytes and break a torchvision "
            f"built for this torch. Then pin the pair that matches, "
            f"{remedies.matching_pair(torch_mm, variant)}, so other installs cannot move torch.",
            actions,
        )
    if remedies.is_after_last_ipex(torch_mm):
        return (
            f"No IPEX exists for torch {torch_mm}: IPEX was retired after "
            f"{remedies.LAST_IPEX_LINE}. Uninstall IPEX and use upstream PyTorch (torch.xpu, "
            f"torch.amp, torch.compile) instead; to keep IPEX {ipex_v}, move torch (and "
            f"torchvision) to {ipex_mm}.* and pin the pair that matches, "
            f"{remedies.matching_pair(ipex_mm, variant)}.",
            [remedies.uninstall(env, IPEX)],
        )
    return (
        f"No IPEX release exists for torch {torch_mm}: move torch to {ipex_mm}.*, the line the "
        f"installed IPEX {ipex_v} was built for (torchvision moves with it), then pin the pair "
        f"that matches, {remedies.matching_pair(ipex_mm, variant)}, so other installs cannot "
        "move torch.",
        remedies.move_torch(env, ipex_mm),
    )


def ipex_os_exit(env: Environment, in_range: bool | None, earlier: Earlier) -> RuleVerdict:
    """Some IPEX releases call ``os.exit`` (which does not exist) after the mismatch message."""
    if env.package(IPEX) is None:
        return _na("IPEX is not installed")
    if not in_range:
        return RuleVerdict(Verdict.NOT_AFFECTED, f"IPEX {env.ipex_version()} exits cleanly")
    mismatch = earlier["torch-ipex-mismatch"].verdict is Verdict.AFFECTED
    outcome = env.runtime.import_of(IPEX_MODULE)
    seen = outcome is not None and "has no attribute 'exit'" in (outcome.error or "")
    if mismatch or seen:
        return RuleVerdict(
            Verdict.AFFECTED,
            f"IPEX {env.ipex_version()} printed its version-mismatch error and then failed with "
            "\"AttributeError: module 'os' has no attribute 'exit'\""
            if seen
            else f"IPEX {env.ipex_version()} will fail with an AttributeError after its mismatch error",
            _import_data(outcome),
        )
    return RuleVerdict(
        Verdict.LATENT,
        f"IPEX {env.ipex_version()} has the os.exit bug, but it only shows on a torch mismatch",
    )


def torchvision_broken(env: Environment, in_range: bool | None, earlier: Earlier) -> RuleVerdict:
    """torchvision does not import, or was built for another torch."""
    tv, torch = env.package("torchvision"), env.package("torch")
    if tv is None or torch is None:
        return _na("needs both torch and torchvision installed")
    data: dict[str, Any] = {"torchvision": tv.version, "torch": env.torch_version()}
    problems = []
    outcome = env.runtime.import_of("torchvision")
    killed = outcome is not None and outcome.fatal is not None
    if outcome is not None and not outcome.ok:
        # NOTE: an import a signal killed is judged by its place (import-crashed), unless a
        # pairing problem below explains it
        if not killed:
            problems.append(f"import torchvision failed: {_failure_text(outcome)}")
        data.update(_import_data(outcome))
    tv_v, torch_v = parse(tv.version), parse(env.torch_version() or torch.version)
    tv_line = None if tv_v is None else f"{tv_v.major}.{tv_v.minor}"
    expected = (
        None if torch_v is None else remedies.torchvision_for(f"{torch_v.major}.{torch_v.minor}")
    )
    built_for = None if tv_line is None else remedies.torch_for(tv_line)
    if expected is not None and built_for is not None and expected != tv_line:
        problems.append(f"torchvision {tv.version} is built for torch {built_for}, not {torch_v}")
    tv_variant, torch_variant = tv.variant.accelerator, env.effective_variant(torch)
    missing = "" if outcome is None else (outcome.missing_library or "")
    if tv_variant is None and "cuda" in missing:
        tv_variant = "cuda"  # NOTE: its extension links libc10_cuda.so: a CUDA build
    if tv_variant and torch_variant and tv_variant != torch_variant:
        problems.append(
            f"torchvision {tv.version} is a {tv_variant} build but torch {env.torch_version()} "
            f"is a {torch_variant} build"
        )
    if not problems and killed:
        return RuleVerdict(
            Verdict.NOT_APPLICABLE,
            f"torchvision {tv.version} matches torch; its import was killed by a signal, which "
            "import-crashed judges",
            data,
            title="torchvision does not import: see import-crashed",
        )
    if not problems:
        ok = "imports" if outcome is not None else "is installed"
        return RuleVerdict(
            Verdict.NOT_AFFECTED, f"torchvision {tv.version} {ok} and matches torch", data
        )
    data["explains"] = ["torchvision", IPEX_MODULE]  # NOTE: IPEX imports torchvision
    remedy, actions = "", []
    if expected is not None:
        remedy = f"Install the torchvision built for this torch ({expected}.*), from the index torch came from."
        actions = remedies.install_torchvision(env, expected)
    return RuleVerdict(
        Verdict.AFFECTED, "; ".join(problems), data, remediation=remedy, actions=tuple(actions)
    )


def ipex_import_failed(env: Environment, in_range: bool | None, earlier: Earlier) -> RuleVerdict:
    """IPEX is installed but does not import, for a reason no more specific entry explains."""
    if env.package(IPEX) is None:
        return _na("IPEX is not installed")
    outcome = env.runtime.import_of(IPEX_MODULE)
    if outcome is None:
        torch_import = env.runtime.import_of("torch")
        if torch_import is not None and not torch_import.ok:
            return _na("torch itself does not import")
        return _na("the runtime probe did not reach the IPEX import")
    if outcome.ok:
        return RuleVerdict(
            Verdict.NOT_AFFECTED,
            f"import intel_extension_for_pytorch {outcome.version} succeeded in "
            f"{outcome.seconds or 0:.1f} s",
            _import_data(outcome),
        )
    causes = _causes_of("ipex-import-failed", IPEX_MODULE, earlier)
    if causes:
        return _points_to(causes, outcome, "IPEX does not import", "IPEX then imports")
    return RuleVerdict(
        Verdict.AFFECTED,
        f"import intel_extension_for_pytorch failed: {_failure_text(outcome)}",
        _import_data(outcome),
    )


_ONEAPI_LIBRARY = re.compile(
    r"lib(mkl_\w+|sycl|ze_loader|OpenCL|svml|imf|intlc|irng|ur_\w+|umf|tbb|iomp5|ccl|pti\w*)"
    r"\.so",
)
_ONEAPI_SYMBOL = re.compile(r"undefined symbol: (iJIT_NotifyEvent|\w*sycl\w*)")


def oneapi_runtime_libs(env: Environment, in_range: bool | None, earlier: Earlier) -> RuleVerdict:
    """An import failed on a missing or mismatched oneAPI runtime library."""
    failed = [o for o in env.runtime.imports if not o.ok]
    if not env.runtime.ran or not env.runtime.imports:
        return _na("nothing was imported")
    for outcome in failed:
        if outcome.fatal is not None:
            continue  # NOTE: a signal's death is judged by its place (fatal_imports), not text
        text = f"{outcome.error}\n{outcome.missing_library or ''}\n{outcome.output}"
        library = _ONEAPI_LIBRARY.search(text)
        symbol = _ONEAPI_SYMBOL.search(text)
        if library or symbol:
            what = (
                f"library {library.group(0)}" if library else f"symbol {symbol.group(1)}"  # type: ignore[union-attr]
            )
            oneapi = [p.name + " " + p.version for p in env.packages if _is_oneapi_wheel(p.name)]
            return RuleVerdict(
                Verdict.AFFECTED,
                f"import {outcome.module} failed on the oneAPI runtime {what}: "
                f"{_failure_text(outcome)}",
                {**_import_data(outcome), "oneapi_wheels": oneapi, "explains": [outcome.module]},
            )
    return RuleVerdict(Verdict.NOT_AFFECTED, "no import failed on a oneAPI runtime library")


def _is_oneapi_wheel(name: str) -> bool:
    return name.startswith(("intel-", "onemkl-", "oneccl", "mkl", "dpcpp", "umf", "tbb", "impi"))


def _cpu_without(env: Environment, *alternatives: tuple[str, ...]) -> bool:
    """True when the CPU has none of the flag groups (each group needs all of its flags)."""
    return not any(all(env.host.has_flag(f) for f in group) for group in alternatives)


def cpu_no_avx2(env: Environment, in_range: bool | None, earlier: Earlier) -> RuleVerdict:
    """A CPU without AVX2 where the installed stack needs it: IPEX CPU >= 2.1 refuses to run
    (or, 2.8 under an emulated Nehalem, dies on an illegal instruction while importing), and
    an import that an illegal instruction killed on such a CPU died of it (torch 2.8's, when
    numpy's OpenBLAS picked kernels the emulated Nehalem lacks).

    The flags are what the examined process can execute (CPUID in that process), so an
    emulated or masked CPU is judged as the process sees it. ``in_range`` is ``None`` when
    another rule asks (``NEEDS``): then the version is judged here. ``explains`` in the data
    names the imports whose failure this is the cause of."""
    ipex = env.package(IPEX)
    sigill = fatal_imports.killed(env, sigill=True)
    if ipex is None and not sigill:
        return _na("IPEX is not installed and no import died of an illegal instruction")
    if not env.host.cpu_flags:
        return _na("the CPU flags could not be read")
    if env.host.has_flag("avx2"):
        return RuleVerdict(Verdict.NOT_AFFECTED, f"{env.host.cpu_model} has AVX2")
    version = parse(env.ipex_version() or "")
    predates = in_range is False or (
        in_range is None and version is not None and version.release < (2, 1)
    )
    ipex_needs_it = ipex is not None and not predates
    if not ipex_needs_it and not sigill:
        return RuleVerdict(
            Verdict.NOT_AFFECTED, f"IPEX {env.ipex_version()} predates the AVX2 check"
        )
    flags = " ".join(env.host.cpu_flags)
    evidence = (
        f"{env.host.cpu_model} has no {fatal_imports.lacking_text(env.host)} (the flags this "
        f"interpreter can execute: {flags}; read with {env.host.isa_source})"
    )
    explains = [IPEX_MODULE] if ipex_needs_it else []
    remedies_here = []
    for died in sigill:
        cause = fatal_imports.cause_of(died, env)
        evidence += f"; {fatal_imports.death(died)}: {cause.cause}"
        explains.append(died.module)
        if not (ipex_needs_it and cause.place.packages == (IPEX_MODULE,)):
            remedy = cause.remedy[0].lower() + cause.remedy[1:]
            remedies_here.append(f"To import {died.module} on this CPU: {remedy}")
    if not ipex_needs_it:
        remedies_here.append(
            "Or run on a CPU with AVX2 (Intel Haswell, AMD Excavator or newer; in a VM or "
            "emulator, expose the host's AVX2 to the guest)."
        )
    outcome = env.runtime.import_of(IPEX_MODULE)
    if outcome is not None and not outcome.ok and outcome.fatal is None:
        evidence += f"; import intel_extension_for_pytorch failed: {_failure_text(outcome)}"
    died_of = ", ".join(d.module for d in sigill)
    return RuleVerdict(
        Verdict.AFFECTED,
        evidence,
        {
            "cpu_flags": list(env.host.cpu_flags),
            "lacking": fatal_imports.lacking(env.host),
            "explains": list(dict.fromkeys(explains)),
            "imports": [d.to_dict() for d in sigill],
        },
        remediation=" ".join(dict.fromkeys(remedies_here)),
        # NOTE: the entry's general advice is IPEX's (a CPU with AVX2, or torch without IPEX):
        # where IPEX is not what needs AVX2 it would be unrelated.
        replaces_remediation=not ipex_needs_it,
        title=f"CPU without AVX2: an illegal instruction killed import {died_of}" if sigill else "",
    )


def import_illegal_instruction(
    env: Environment, in_range: bool | None, earlier: Earlier
) -> RuleVerdict:
    """An import was killed by SIGILL: an instruction this CPU, as the process sees it, lacks.

    On a CPU without AVX2 ``cpu-no-avx2`` owns it (and this entry points there); otherwise the
    place it struck names the likely cause (``fatal_imports.PLACES``) and the instruction sets
    this CPU lacks are named."""
    return _killed_imports(env, earlier, "import-illegal-instruction", sigill=True)


def import_crashed(env: Environment, in_range: bool | None, earlier: Earlier) -> RuleVerdict:
    """An import was killed by a signal other than SIGILL (SIGSEGV, SIGBUS, SIGABRT...): the
    signal and the place it struck name the likely cause (``fatal_imports.PLACES``); a torch
    pairing that does not hold (``torch-ipex-mismatch``, ``torchvision-broken``) owns it."""
    return _killed_imports(env, earlier, "import-crashed", sigill=False)


def _killed_imports(env: Environment, earlier: Earlier, rule: str, *, sigill: bool) -> RuleVerdict:
    """The verdict of ``rule`` over the imports a signal killed (SIGILL's or the others'):
    those another affected rule explains point there (``NEEDS``), the rest are this entry's,
    each with the cause its place names."""
    what = "an illegal instruction" if sigill else "a signal"
    if not env.runtime.ran:
        return _na(f"nothing was imported ({env.runtime.skip_reason})")
    killed = fatal_imports.killed(env, sigill=sigill)
    if not killed:
        return RuleVerdict(Verdict.NOT_AFFECTED, f"no import was killed by {what}")
    explained = {d.module: _causes_of(rule, d.module, earlier) for d in killed}
    mine = [d for d in killed if not explained[d.module]]
    data: dict[str, Any] = {
        "imports": [d.to_dict() for d in killed],
        "explains": [d.module for d in mine],
    }
    if sigill:
        data.update(cpu_flags=list(env.host.cpu_flags), lacking=fatal_imports.lacking(env.host))
    if not mine:
        causes = list(dict.fromkeys(c for d in killed for c in explained[d.module]))
        deaths = "; ".join(fatal_imports.death(d) for d in killed)
        return _pointer(causes, deaths, "", data, title=f"{what} killed an import")
    causes_here = [fatal_imports.cause_of(d, env) for d in mine]
    evidence = "; ".join(
        f"{fatal_imports.death(d)}: most likely {c.cause}"
        for d, c in zip(mine, causes_here, strict=True)
    )
    if sigill:
        flags = " ".join(env.host.cpu_flags) or "unknown"
        evidence += (
            f"; {env.host.cpu_model} has no {fatal_imports.lacking_text(env.host)} (the flags "
            f"this interpreter can execute: {flags}; read with {env.host.isa_source})"
        )
    signals = ", ".join(dict.fromkeys(str(d.fatal.signal) for d in mine if d.fatal))
    return RuleVerdict(
        Verdict.AFFECTED,
        evidence,
        data,
        remediation=" ".join(dict.fromkeys(c.remedy for c in causes_here)),
        replaces_remediation=True,
        title=f"import {', '.join(d.module for d in mine)} was killed by {signals}",
    )


_ONEDNN_CAPS = ("ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA", "ATEN_CPU_CAPABILITY")
"""Variables that make oneDNN (and so IPEX's prepack test) see less of the CPU than it has."""


def bf16_prepack_isa(env: Environment, in_range: bool | None, earlier: Earlier) -> RuleVerdict:
    """``ipex.optimize(dtype=torch.bfloat16)`` weight prepack needs AVX-512 BW/VL/DQ or AVX-NE-CONVERT.

    IPEX's own answer (``onednn_has_bf16_support``, reported by the runtime probe) decides when
    there is one: it is the very test behind the assertion, and sees a ``ONEDNN_MAX_CPU_ISA``
    cap that the CPU flags do not. Without it, the flags the examined process can execute.
    """
    ipex = env.package(IPEX)
    if ipex is None:
        return _na("IPEX is not installed")
    if env.effective_variant(ipex) != "cpu":
        return _na("only IPEX's CPU build prepacks weights (XPU does not)")
    if earlier["cpu-no-avx2"].verdict is Verdict.AFFECTED:
        return _na("IPEX does not run on this CPU (see cpu-no-avx2), so it prepacks nothing")
    outcome = env.runtime.import_of(IPEX_MODULE)
    if outcome is not None and not outcome.ok:
        return _na("IPEX does not import here (see ipex-import-failed), so it prepacks nothing")
    torch_import = env.runtime.import_of("torch")
    if outcome is None and torch_import is not None and not torch_import.ok:
        return _na("torch does not import here (see torch-import-failed), so IPEX prepacks nothing")
    said = env.runtime.ipex.get("onednn_has_bf16_support")
    lacking = _cpu_without(env, ("avx_ne_convert",), ("avx512bw", "avx512vl", "avx512dq"))
    if said is None and not env.host.cpu_flags:
        return _na("the CPU flags could not be read")
    cap = [f"{name}={env.env_vars[name]}" for name in _ONEDNN_CAPS if env.env_vars.get(name)]
    refuses = said is False if isinstance(said, bool) else lacking
    if not refuses:
        return RuleVerdict(
            Verdict.NOT_AFFECTED, f"{env.host.cpu_model} supports BF16 weight prepack"
        )
    data = {"cpu_flags": list(env.host.cpu_flags), "ipex_onednn_has_bf16_support": said}
    advice = (
        "ipex.optimize(model, dtype=torch.bfloat16, weights_prepack=False) and run the model "
        "under torch.amp.autocast('cpu', dtype=torch.bfloat16) (without autocast, fp32 input "
        "then fails with 'mat1 and mat2 must have the same dtype'); or dtype=torch.float."
    )
    if cap and not lacking:
        return RuleVerdict(
            Verdict.AFFECTED,
            f"{env.host.cpu_model} can prepack BF16 weights, but {', '.join(cap)} makes IPEX "
            "see less of it, so ipex.optimize(dtype=torch.bfloat16) refuses to prepack",
            {**data, "capped_by": cap},
            remediation=f"Unset {', '.join(c.split('=')[0] for c in cap)}; or use {advice}",
            replaces_remediation=True,
        )
    return RuleVerdict(
        Verdict.AFFECTED,
        f"{env.host.cpu_model} has neither avx_ne_convert nor avx512bw+avx512vl+avx512dq, so "
        "ipex.optimize(dtype=torch.bfloat16) refuses to prepack BF16 weights here",
        data,
        remediation=f"On this CPU use {advice}",
        replaces_remediation=True,
    )


def bf16_no_native_isa(env: Environment, in_range: bool | None, earlier: Earlier) -> RuleVerdict:
    """Without AVX512-BF16 or AMX, BF16 math on the CPU is emulated and slow."""
    if env.package("torch") is None:
        return _na("torch is not installed")
    if not env.host.cpu_flags:
        return _na("the CPU flags could not be read")
    native = [f for f in ("amx_bf16", "avx512_bf16") if env.host.has_flag(f)]
    if native:
        return RuleVerdict(
            Verdict.NOT_AFFECTED,
            f"{env.host.cpu_model} has native BF16 ({', '.join(native)})",
            {"native_bf16": native},
        )
    return RuleVerdict(
        Verdict.AFFECTED,
        f"{env.host.cpu_model} has no AVX512-BF16 or AMX: BF16 runs emulated on this CPU",
        {"cpu_flags": list(env.host.cpu_flags)},
    )


def xpu_no_fp64(env: Environment, in_range: bool | None, earlier: Earlier) -> RuleVerdict:
    """XPU devices without native FP64 (Arc A-series, Flex) fail on float64 kernels."""
    devices = env.devices_of("xpu")
    if not devices:
        return _na("no XPU device is visible")
    without = [
        f"xpu:{d.get('index')} {d.get('name', '?')}" for d in devices if d.get("has_fp64") is False
    ]
    if without:
        return RuleVerdict(
            Verdict.AFFECTED,
            f"no native FP64 on {', '.join(without)}",
            {"devices": [dict(d) for d in devices]},
        )
    return RuleVerdict(Verdict.NOT_AFFECTED, f"all {len(devices)} XPU device(s) have FP64")


def xpu_not_visible(env: Environment, in_range: bool | None, earlier: Earlier) -> RuleVerdict:
    """torch is built with XPU support but sees no XPU device."""
    if not env.runtime.torch.get("xpu_compiled"):
        return _na("torch is not built with XPU support")
    visible = env.devices_of("xpu")
    if visible:
        return RuleVerdict(Verdict.NOT_AFFECTED, f"{len(visible)} XPU device(s) visible")
    accel = env.runtime.torch.get("accelerators", {}).get("xpu", {})
    messages = [str(m) for m in accel.get("messages", ())]
    nodes = env.host.render_nodes
    if not nodes:
        where = "no /dev/dri/renderD* node exists (no GPU driver loaded, or not passed into the container)"
        remedy = "Install the Intel GPU driver (or pass /dev/dri into the container)."
    elif not any(n.get("readable") and n.get("writable") for n in nodes):
        where = (
            f"{', '.join(str(n['path']) for n in nodes)} exist(s) but this user cannot open them"
        )
        remedy = (
            "Add the user to the 'render' group (sudo usermod -aG render $USER) and log in again."
        )
    else:
        where = (
            f"render nodes are present and accessible ({', '.join(str(n['path']) for n in nodes)})"
        )
        remedy = ""
    said = f"; torch said: {messages[0]}" if messages else ""
    return RuleVerdict(
        Verdict.AFFECTED,
        f"torch {env.torch_version()} is built with XPU but sees no XPU device: {where}{said}",
        {"render_nodes": [dict(n) for n in nodes], "messages": messages},
        remediation=remedy,
    )


def torch_without_xpu(env: Environment, in_range: bool | None, earlier: Earlier) -> RuleVerdict:
    """An XPU build of IPEX sits next to a torch built without XPU."""
    ipex = env.package(IPEX)
    if ipex is None or env.effective_variant(ipex) != "xpu":
        return _na("no XPU build of IPEX is installed")
    if not env.runtime.torch:
        return _na("torch did not import, so its build could not be checked")
    if env.runtime.torch.get("xpu_compiled"):
        return RuleVerdict(Verdict.NOT_AFFECTED, "torch is built with XPU")
    return RuleVerdict(
        Verdict.AFFECTED,
        f"IPEX {ipex.version} is an XPU build but torch {env.torch_version()} is not built with XPU "
        "(torch.xpu._is_compiled() is False)",
    )


_AFFINITY_OK = re.compile(r"^\s*\d+\s*(,\s*\d+\s*)*$")


def ze_affinity_mask(env: Environment, in_range: bool | None, earlier: Earlier) -> RuleVerdict:
    """``ZE_AFFINITY_MASK`` in a tile (COMPOSITE) format that upstream torch cannot parse."""
    mask = env.env_vars.get("ZE_AFFINITY_MASK")
    if mask is None:
        return _na("ZE_AFFINITY_MASK is not set")
    if _AFFINITY_OK.match(mask):
        return RuleVerdict(
            Verdict.NOT_AFFECTED, f"ZE_AFFINITY_MASK={mask} is a list of device indices"
        )
    return RuleVerdict(
        Verdict.AFFECTED,
        f"ZE_AFFINITY_MASK={mask!r} is not a comma-separated list of device indices",
        {
            "ZE_AFFINITY_MASK": mask,
            "ZE_FLAT_DEVICE_HIERARCHY": env.env_vars.get("ZE_FLAT_DEVICE_HIERARCHY"),
        },
    )


def ipex_xpu_abi(env: Environment, in_range: bool | None, earlier: Earlier) -> RuleVerdict:
    """IPEX XPU before 2.6.10 needs Intel's CXX11-ABI torch build, not a stock wheel."""
    ipex, torch = env.package(IPEX), env.package("torch")
    if ipex is None or torch is None or env.effective_variant(ipex) != "xpu":
        return _na("no XPU build of IPEX with torch is installed")
    if not in_range:
        return RuleVerdict(
            Verdict.NOT_AFFECTED, f"IPEX {ipex.version} works with official torch builds"
        )
    abi = env.runtime.torch.get("cxx11_abi")
    intel_build = torch.variant.cxx11_abi or torch.variant.prerelease or abi is True
    if intel_build:
        return RuleVerdict(Verdict.NOT_AFFECTED, f"torch {torch.version} is a CXX11-ABI build")
    return RuleVerdict(
        Verdict.AFFECTED,
        f"IPEX {ipex.version} needs Intel's CXX11-ABI torch build, but torch {torch.version} is a "
        "stock build" + ("" if abi is None else f" (torch.compiled_with_cxx11_abi() = {abi})"),
    )


RULES: dict[str, RuleFn] = {
    "torch-missing": torch_missing,
    "torch-import-failed": torch_import_failed,
    "torch-ipex-mismatch": torch_ipex_mismatch,
    "ipex-os-exit": ipex_os_exit,
    "torchvision-broken": torchvision_broken,
    "ipex-import-failed": ipex_import_failed,
    "oneapi-runtime-libs": oneapi_runtime_libs,
    "cpu-no-avx2": cpu_no_avx2,
    "import-illegal-instruction": import_illegal_instruction,
    "import-crashed": import_crashed,
    "bf16-prepack-isa": bf16_prepack_isa,
    "bf16-no-native-isa": bf16_no_native_isa,
    "xpu-no-fp64": xpu_no_fp64,
    "xpu-not-visible": xpu_not_visible,
    "torch-without-xpu": torch_without_xpu,
    "ze-affinity-mask": ze_affinity_mask,
    "ipex-xpu-abi": ipex_xpu_abi,
}
"""Every rule the knowledge base may name, by name (the names are part of the KB format)."""

NEEDS: dict[str, tuple[str, ...]] = {
    "ipex-os-exit": ("torch-ipex-mismatch",),
    "torch-import-failed": (
        "cpu-no-avx2",
        "import-illegal-instruction",
        "import-crashed",
        "oneapi-runtime-libs",
    ),
    "ipex-import-failed": (
        "cpu-no-avx2",
        "import-illegal-instruction",
        "import-crashed",
        "torch-ipex-mismatch",
        "torchvision-broken",
        "oneapi-runtime-libs",
    ),
    "import-illegal-instruction": ("cpu-no-avx2",),
    "import-crashed": ("torch-ipex-mismatch", "torchvision-broken"),
    "bf16-prepack-isa": ("cpu-no-avx2",),
}
"""The rules whose verdicts a rule reads: ``observe_rule`` observes those first and hands them
over, so an import failure can name the finding that explains it."""
