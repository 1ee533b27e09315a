"""Documents (``scan --docs``): the Python and shell code blocks of Markdown and reST files,
read like notebook cells, each match at the document's own line and column; never rewritten."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_doctor
from scan_rules import scan, write

from ipex_doctor.knowledge import code_rules
from ipex_doctor.scan.read.doc_blocks import code_blocks

SHIPPED = code_rules.load()

README = """\
# Demo

Text with `import intel_extension_for_pytorch` inline: not a block.

```python
import intel_extension_for_pytorch as ipex
model = ipex.optimize(model)
```

- a list item with a block:

  ```console
  $ pip install intel-extension-for-pytorch==2.8.0
  Collecting intel-extension-for-pytorch
  ```

~~~text
import intel_extension_for_pytorch  # a text block says nothing of what it holds
~~~

    import intel_extension_for_pytorch  # an indented block has no language either
"""

GUIDE = """\
Guide
=====

.. code-block:: python
   :linenos:

   >>> import intel_extension_for_pytorch as ipex
   >>> ipex.optimize(model)
   Model(...)

.. code-block:: bash

   # python -m intel_extension_for_pytorch.cpu.launch in a comment runs nothing
   python -m intel_extension_for_pytorch.cpu.launch --ninstances 2 train.py

::

   import intel_extension_for_pytorch  # a literal block: no language
"""


def _where(root: Path, **options: object) -> list[tuple[str, int, int, str, str]]:
    result = scan(root, SHIPPED, **options)
    return [
        (m.location.path, m.location.line, m.location.column, m.rule_id, m.snippet.strip())
        for m in result.matches
    ]


def _readme_findings(root: Path, text: str) -> list[tuple[int, str]]:
    """(line, rule) of each finding in a README.md holding ``text``, read with --docs."""
    write(root, {"README.md": text})
    return [(line, rule) for _, line, _, rule, _ in _where(root, docs=True)]


def test_markdown_and_rest_blocks_are_read_at_their_own_lines(tmp_path: Path) -> None:
    """Python blocks (doctest prompts too) and shell blocks (after the $ prompts, comments
    left out) match at the document's line and column; text, indented and literal blocks and
    inline code are not read."""
    write(tmp_path, {"README.md": README, "docs/guide.rst": GUIDE})
    assert _where(tmp_path, docs=True) == [
        ("README.md", 6, 7, "ipex-import", "import intel_extension_for_pytorch as ipex"),
        ("README.md", 7, 8, "ipex-optimize", "model = ipex.optimize(model)"),
        ("README.md", 13, 16, "ipex-requirement", "$ pip install intel-extension-for-pytorch==2.8.0"),
        ("docs/guide.rst", 7, 14, "ipex-import", ">>> import intel_extension_for_pytorch as ipex"),
        ("docs/guide.rst", 8, 7, "ipex-optimize", ">>> ipex.optimize(model)"),
        ("docs/guide.rst", 14, 13, "ipex-launcher",
         "python -m intel_extension_for_pytorch.cpu.launch --ninstances 2 train.py"),
    ]  # fmt: skip


def test_documents_are_read_only_when_asked_or_named(tmp_path: Path) -> None:
    """A directory walk leaves documents out unless --docs; a document named as a root is
    read (the user pointed at it)."""
    write(tmp_path, {"README.md": README, "app.py": "import torch\n"})
    assert _where(tmp_path) == []
    named = scan(tmp_path / "README.md", SHIPPED)
    assert [m.rule_id for m in named.matches] == [
        "ipex-import",
        "ipex-optimize",
        "ipex-requirement",
    ]


def test_a_block_that_does_not_parse_is_skipped_alone(tmp_path: Path) -> None:
    """A snippet that is not valid Python is a skip naming its block; the other blocks count."""
    text = "```python\nmodel = ipex.optimize(model, ...\n```\n\n```sh\npip install intel-extension-for-pytorch\n```\n"
    write(tmp_path, {"notes.md": text})
    result = scan(tmp_path, SHIPPED, docs=True)
    assert [m.rule_id for m in result.matches] == ["ipex-requirement"]
    assert [(s.path, s.reason.split(" does")[0]) for s in result.skipped] == [
        ("notes.md", "code block 1")
    ]


@pytest.mark.parametrize(
    ("info", "read"),
    [("python", True), ("py", True), ("{python}", True), ("{.python}", True),
     ('python title="train.py"', True), ("Python", True), ("pycon", True), ("text", False),
     ("", False), ("json", False)],
)  # fmt: skip
def test_the_fence_language_decides(info: str, read: bool) -> None:
    """The first word of the info string, as GitHub and Pandoc write it, says Python."""
    blocks = code_blocks(f"```{info}\nimport intel_extension_for_pytorch\n```\n", rest=False)
    assert bool(blocks) is read


def test_an_unclosed_fence_runs_to_the_end_and_a_longer_fence_holds_a_shorter_one() -> None:
    text = "````python\n```\nimport a\n````\n```python\nimport b\n"
    blocks = code_blocks(text, rest=False)
    assert [b.cell.python.split() for b in blocks] == [["```", "import", "a"], ["import", "b"]]
    assert [b.first_line for b in blocks] == [2, 6]


def test_fix_reports_documents_but_never_rewrites_them(tmp_path: Path) -> None:
    """--docs --fix rewrites the Python file and leaves the document byte for byte; the
    document's findings do not offer the mechanical fix."""
    unused = "import intel_extension_for_pytorch\nimport torch\n"
    write(tmp_path, {"README.md": "```python\n" + unused + "```\n", "train.py": unused})
    before = (tmp_path / "README.md").read_bytes()
    out = tmp_path / "scan.json"
    done = run_doctor("scan", str(tmp_path), "--docs", "--fix", "--json", str(out))
    assert done.returncode in (0, 1), done.stderr
    assert (tmp_path / "README.md").read_bytes() == before
    assert "intel_extension_for_pytorch" not in (tmp_path / "train.py").read_text()
    findings = json.loads(out.read_text())["findings"]
    docs = [f for f in findings if f["location"] and f["location"]["path"] == "README.md"]
    assert docs and all("scan --fix" not in f["remediation"] for f in docs)
    assert "not fixed" not in done.stderr


def test_a_text_rule_in_a_doctest_block_points_at_the_document_column(tmp_path: Path) -> None:
    """use_ipex=True after a >>> prompt: the column is the document's, prompt included."""
    text = "```pycon\n>>> args = TrainingArguments(use_ipex=True)\n```\n"
    write(tmp_path, {"usage.md": text})
    (match,) = scan(tmp_path, SHIPPED, docs=True).matches
    line = text.splitlines()[1]
    assert (match.rule_id, match.location.line) == ("use-ipex-flag", 2)
    assert line[match.location.column :].startswith("use_ipex")


UNLABELLED = """\
1. For Intel Arc A-Series Graphics utilizing IPEX, create a conda environment:

```
conda install libuv
pip install torch==2.3.1.post0+cxx11.abi intel-extension-for-pytorch==2.3.110.post0+xpu \\
  --extra-index-url https://pytorch-extension.intel.com/release-whl/stable/xpu/us/
```

To validate the XPU availability:
```
$ python
>>> import torch; print('torch:', torch.__version__)
torch: 2.3.0
>>> import intel_extension_for_pytorch; print('XPU available:', torch.xpu.is_available())
XPU available: True
```

```powershell
docker build --build-arg IPEX_VERSION=1.13.120+xpu `
--build-arg IPEX_WHL_URL=https://developer.intel.com/ipex-whl-stable-xpu `
-f Dockerfile .
```

What pip list shows, and a requirements file's lines:
```
intel-extension-for-pytorch 2.3.110+xpu
torch                       2.3.1+cxx11.abi
```
```
intel-extension-for-pytorch==2.3.110
```
"""


def test_an_unlabelled_block_is_read_where_its_lines_are_commands_or_prompts(
    tmp_path: Path,
) -> None:
    """ComfyUI's README installs IPEX in a fence without a language, DeepSpeed's guide imports
    it at >>> prompts, and an image's PowerShell build takes Intel's wheel index: each is found;
    an unlabelled listing of output or of a file's lines says nothing it runs and is not read."""
    assert _readme_findings(tmp_path, UNLABELLED) == [
        (5, "cxx11-abi-torch-pin"),
        (5, "ipex-requirement"),
        (6, "ipex-wheel-index"),
        (14, "ipex-import"),
        (20, "ipex-wheel-index"),
    ]


def test_a_fence_under_a_list_item_is_read(tmp_path: Path) -> None:
    """Horovod's README nests its install blocks under numbered steps, the fence indented four
    spaces (the item's text starts there): a code block, as GitHub renders it. Four spaces
    after a paragraph instead make an indented block, whose ``` line is text, not a fence."""
    readme = (
        " 2. Installing Intel Extension for Pytorch and Intel Optimization for Horovod:\n"
        "    ```bash\n"
        "    python -m pip install intel_extension_for_pytorch==1.13.120+xpu"
        " -f https://developer.intel.com/ipex-whl-stable-xpu\n"
        "    ```\n"
        "\n"
        "Not a list:\n"
        "\n"
        "    ```bash\n"
        "    pip install intel-extension-for-pytorch\n"
        "    ```\n"
    )
    assert _readme_findings(tmp_path, readme) == [
        (3, "ipex-requirement"),
        (3, "ipex-wheel-index"),
    ]


def test_a_fence_inside_an_mkdocs_admonition_is_read(tmp_path: Path) -> None:
    """ALCF's PyTorch page (MkDocs) shows its device check inside a collapsible ``??? info``
    admonition, the fence indented four spaces as the admonition's content: a code block, as
    MkDocs renders it; so is one inside a content tab. Four spaces after a paragraph still
    make an indented block."""
    readme = (
        '??? info "Using GPU Devices as PyTorch devices"\n'
        "\n"
        "    By default, each tile is mapped to one PyTorch device.\n"
        '    ```python linenums="1"\n'
        "    import torch\n"
        "    import intel_extension_for_pytorch as ipex\n"
        "    torch.xpu.device_count()\n"
        "    ```\n"
        "\n"
        '=== "Aurora"\n'
        "\n"
        "    ```bash\n"
        "    pip install intel-extension-for-pytorch\n"
        "    ```\n"
        "\n"
        "Not inside one:\n"
        "\n"
        "    ```python\n"
        "    import intel_extension_for_pytorch\n"
        "    ```\n"
    )
    assert _readme_findings(tmp_path, readme) == [
        (6, "ipex-import"),
        (13, "ipex-requirement"),
    ]


def test_a_closing_fence_indented_with_a_tab_closes_its_block(tmp_path: Path) -> None:
    """The same page (real, trimmed): an example output nested in an admonition, its closing
    fence indented by four spaces and a tab (eight columns, as CommonMark and MkDocs count
    it). Read as one column, the block never closed, and the IPEX import of the numbered
    steps below it was inside it, unread."""
    readme = (
        '    ???+ example "Example output"\n'
        "\n"
        "        ``` { .bash .no-copy }\n"
        "    \t1\n"
        "    \t```\n"
        "\n"
        "1. Import the `intel_extension_for_pytorch` **right after** importing `torch`:\n"
        '   ```python hl_lines="2"\n'
        "   import torch\n"
        "   import intel_extension_for_pytorch as ipex\n"
        "   ```\n"
    )
    assert _readme_findings(tmp_path, readme) == [(10, "ipex-import")]


def test_batch_comments_and_a_bare_cd_are_not_installs(tmp_path: Path) -> None:
    """ipex-llm's Windows steps (a cmd block) offer another index in a ``::`` comment, and
    neural-compressor's build steps enter IPEX's source checkout: neither installs anything;
    the pip line beside them does (ipex-llm, from IPEX's wheel index), and so do the clone of
    IPEX's source and a cd that builds."""
    readme = (
        "```cmd\n"
        ":: or --extra-index-url https://pytorch-extension.intel.com/release-whl/stable/lnl/cn/\n"
        "REM pip install intel-extension-for-pytorch\n"
        "pip install --pre --upgrade ipex-llm[xpu_lnl] --extra-index-url"
        " https://pytorch-extension.intel.com/release-whl/stable/lnl/us/\n"
        "```\n"
        "```\n"
        "git clone https://github.com/intel/intel-extension-for-pytorch\n"
        "cd intel-extension-for-pytorch\n"
        "cd intel-extension-for-pytorch && python setup.py install\n"
        "```\n"
    )
    assert _readme_findings(tmp_path, readme) == [
        (4, "ipex-llm-requirement"),
        (4, "ipex-wheel-index"),
        (7, "ipex-requirement"),
        (9, "ipex-requirement"),
    ]


def test_python_written_in_a_shell_block_is_read_as_python(tmp_path: Path) -> None:
    """picture-frame-preprocessor's HARDWARE_OPTIMIZATION.md (real, trimmed): its author wrote
    the install and then, under ``# In code:``, two lines of Python, all in one ```bash
    fence. Read as shell, the import was found (a command importing IPEX) and the
    ``ipex.optimize`` call was not; each line is now read as what it is. A Python line of a
    shell block also uses a name a Python block of the same document bound."""
    readme = (
        "**Implementation:**\n"
        "```bash\n"
        "# Install Intel PyTorch extension\n"
        "pip install intel-extension-for-pytorch\n"
        "\n"
        "# In code:\n"
        "import intel_extension_for_pytorch as ipex\n"
        "model = ipex.optimize(model)\n"
        "```\n"
        "```python\n"
        "import intel_extension_for_pytorch as xp\n"
        "```\n"
        "```sh\n"
        "    model = xp.optimize(model, dtype=torch.bfloat16)\n"
        "```\n"
    )
    assert _readme_findings(tmp_path, readme) == [
        (4, "ipex-requirement"),
        (7, "ipex-import"),
        (8, "ipex-optimize"),
        (11, "ipex-import"),
        (14, "ipex-optimize"),
    ]
    assert [
        (m.location.line, m.location.column) for m in scan(tmp_path, SHIPPED, docs=True).matches
    ][-1] == (14, 12)


SHELL_NEIGHBOURS = """\
```bash
python train.py
export X=1
X=1
pip install torch
ls
python -c "import intel_extension_for_pytorch as ipex; print(ipex.__version__)"
echo "model = ipex.optimize(model)"
make -j$(nproc) \\
    CFLAGS=-O2
import intel_extension_for_pytorch as ipex
```
```console
$ model = ipex.optimize(model)
```
```powershell
$model = ipex.optimize($model)
```
"""


def test_shell_commands_of_a_shell_block_stay_shell(tmp_path: Path) -> None:
    """No command of a shell block is read as Python: a script run, a (shell) assignment, an
    install, a bare word, ``python -c`` with its code in a string, an echo, a continued line;
    an import alone is a command importing IPEX, as before (no Python line beside it). A block
    with prompts is commands and output, and PowerShell is not a POSIX shell."""
    assert [block.cell.python for block in code_blocks(SHELL_NEIGHBOURS, rest=False)] == [""] * 3
    assert _readme_findings(tmp_path, SHELL_NEIGHBOURS) == [
        (7, "ipex-python-command"),
        (11, "ipex-python-command"),
    ]
