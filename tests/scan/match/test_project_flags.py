"""A project's own flag naming IPEX is not reported as transformers' (or accelerate's): the
scripts of the scanned tree that declare it, found while the scan reads them, decide.

The snippets are trimmed from oap-project/cloudtik (DLRM's launch scripts and their
``dlrm_s_pytorch.py``, BERT's transformers runs), where a reader rejected a finding that took
DLRM's ``--use-ipex`` for transformers' argument."""

from __future__ import annotations

from pathlib import Path

import pytest
from scan_rules import found, scan, write

from ipex_doctor.knowledge import code_rules
from ipex_doctor.scan.match.project_flags import declared_flags

SHIPPED = code_rules.load()
FLAG_RULES = ("use-ipex-flag", "accelerate-ipex-config")

DLRM = "models/recommendation/pytorch/dlrm"
DECLARES = (
    "import argparse\n"
    "import intel_pytorch_extension as ipex\n"
    "parser = argparse.ArgumentParser()\n"
    'parser.add_argument("--arch-sparse-feature-size", type=int, default=2)\n'
    'parser.add_argument("--use-ipex", action="store_true", default=False)\n'
    "args = parser.parse_args()\n"
)
DECLARES_NOTHING = (
    "import argparse\n"
    "parser = argparse.ArgumentParser()\n"
    'parser.add_argument("--arch-sparse-feature-size", type=int, default=2)\n'
)


def _flags(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int]]:
    write(tmp_path, files)
    return [
        (path, line) for path, line, rule, _ in found(scan(tmp_path, SHIPPED)) if rule in FLAG_RULES
    ]


def test_dlrms_own_use_ipex_is_not_transformers_argument(tmp_path: Path) -> None:
    """The bench script runs the dlrm_s_pytorch.py of its parent directory, which declares
    --use-ipex; the one in product/ (same name, nearer the tree's root, declaring nothing)
    does not decide. BERT's script passes --use_ipex to transformers' run_qa.py (through a
    variable): transformers' argument, still reported."""
    run = (
        "python -u dlrm_s_pytorch.py --arch-sparse-feature-size=128 --num-workers=0"
        " --use-ipex --bf16 --dist-backend=ccl 2>&1 | tee run.log\n"
    )
    bert = (
        'EVAL_SCRIPT=${EVAL_SCRIPT:-"${PWD}/run_qa.py"}\n'
        'if [[ "$USE_IPEX" == "true" ]]; then\n'
        '  ARGS="$ARGS --use_ipex --jit_mode"\n'
        "fi\n"
        "python -m torch.backends.xeon.run_cpu ${EVAL_SCRIPT} $ARGS\n"
    )
    assert _flags(
        tmp_path,
        {
            f"{DLRM}/training/bfloat16/dlrm_s_pytorch.py": DECLARES,
            f"{DLRM}/training/bfloat16/bench/dlrm_mlperf_4s_1n_cpx.sh": run,
            f"{DLRM}/product/dlrm_s_pytorch.py": DECLARES_NOTHING,
            "bert_base/run_multi_instance_realtime.sh": bert,
            "bert_base/run_qa.py": "from transformers import HfArgumentParser\n",
        },
    ) == [("bert_base/run_multi_instance_realtime.sh", 3)]


def test_the_nearest_script_of_that_name_decides(tmp_path: Path) -> None:
    """A script named like the one run, elsewhere in the tree, that declares the flag does not
    make the flag the project's: the one beside the command declares nothing."""
    run = "python -u dlrm_s_pytorch.py --use-ipex\n"
    assert _flags(
        tmp_path,
        {
            f"{DLRM}/training/dlrm_s_pytorch.py": DECLARES_NOTHING,
            f"{DLRM}/training/run.sh": run,
            f"{DLRM}/product/dlrm_s_pytorch.py": DECLARES,
        },
    ) == [(f"{DLRM}/training/run.sh", 1)]


@pytest.mark.parametrize(
    ("command", "reported"),
    [
        # continued lines: the script is on the first, the flag on the last
        ("torchrun --nproc_per_node 2 \\\n    ${MODEL_DIR}/train.py \\\n    --use-ipex\n", []),
        ("python -m tools.train --use_ipex\n", []),
        # after the script, --ipex is the script's own argument, not accelerate's
        ("accelerate launch --num_processes 2 tools/train.py --ipex\n", []),
        # a script of the tree that does not declare it: transformers' argument
        ("python tools/other.py --use_ipex\n", [("run.sh", 1)]),
        # before the script: accelerate's own option
        ("accelerate launch --ipex tools/train.py\n", [("run.sh", 1)]),
    ],
)
def test_the_script_a_command_runs_is_found(
    tmp_path: Path, command: str, reported: list[tuple[str, int]]
) -> None:
    train = (
        "import click\n"
        '@click.option("--ipex/--no-ipex", default=False)\n'
        "def main(ipex): ...\n"
        "import argparse\n"
        "parser = argparse.ArgumentParser()\n"
        "parser.add_argument(\n"
        '    "-u", "--use_ipex", "--use-ipex", action="store_true", help="run IPEX"\n'
        ")\n"
    )
    files = {"tools/train.py": train, "tools/other.py": DECLARES_NOTHING, "run.sh": command}
    assert _flags(tmp_path, files) == reported


def test_a_flag_given_to_a_shell_script_is_that_scripts_own(tmp_path: Path) -> None:
    """ipex-sd-docker-for-arc-gpu's image starts the web UI through its startup.sh with the
    web UI's own --use-ipex (a tree without a Python file); a --use_ipex handed to a Python
    script of no declaration stays transformers'."""
    dockerfile = (
        "COPY startup.sh /bin/\n"
        'ENTRYPOINT [ "startup.sh", "--use-ipex", "--listen" ]\n'
        'CMD ["python", "run_qa.py", "--use_ipex"]\n'
    )
    run = "./webui.sh --use-ipex\nbash scripts/run_qa.sh --use_ipex\n"
    files = {"Dockerfile": dockerfile, "startup.sh": 'exec ./webui.sh "$@"\n', "run.sh": run}
    assert _flags(tmp_path, files) == [("Dockerfile", 3)]


def test_declared_flags_are_read_from_the_bytes() -> None:
    source = (
        b'parser.add_argument("--use-ipex", action="store_true", help="--not-this-ipex")\n'
        b"group.add_argument('-i',\n    '--ipex-dtype', default='bf16')\n"
        b'@click.option("--ipex/--no-ipex")\n'
        b'typer.Option(False, "--xpu")\n'
        b'parser.add_argument("--bf16")\n'
    )
    assert declared_flags(source) == ("--ipex", "--ipex-dtype", "--no-ipex", "--use-ipex")
    assert declared_flags(b'parser.add_argument("--use-IPEX")\n') == ()


def test_the_declarations_are_kept_by_the_outcome_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second scan that reads nothing again (every outcome from the cache) still knows which
    script declares the flag."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = write(
        tmp_path / "tree",
        {"train.py": DECLARES, "run.sh": "python train.py --use-ipex\npython x.py --use_ipex\n"},
    )
    first = found(scan(root, SHIPPED, cache=True))
    second = found(scan(root, SHIPPED, cache=True))
    assert first == second
    assert [(p, n) for p, n, r, _ in second if r in FLAG_RULES] == [("run.sh", 2)]


def test_a_script_the_tree_lacks_leaves_the_flag_to_the_tree_s_own_declaration(
    tmp_path: Path,
) -> None:
    """epeshared/embedding_eval's bench script (real, trimmed) runs embedding_bench.py, which
    the tree no longer holds (its main.py took over, declaring --use-ipex itself): the flag is
    the project's. A command running a script the tree holds is still judged by that script
    alone (above), and one naming a missing script in a tree that declares no such flag stays
    transformers' (the Dockerfile above)."""
    bench = (
        "numactl -C 0-7 python embedding_bench.py \\\n"
        "  --backend transformers \\\n"
        "  --device cpu --use-ipex True --amp bf16 \\\n"
        "  --output-csv runs/transformers_ipex_amx_on.csv\n"
    )
    main = (
        "import argparse\n"
        "p = argparse.ArgumentParser()\n"
        'p.add_argument("--use-ipex", type=str, default="False")\n'
    )
    files = {"scripts/bench_transformer.sh": bench, "main.py": main}
    assert _flags(tmp_path, files) == []
    other = tmp_path / "other"
    assert _flags(other, {**files, "main.py": DECLARES_NOTHING}) == [
        ("scripts/bench_transformer.sh", 3)
    ]
