"""The Intel stack's own names, by layer: what places a text in the stack where no wording does.

The names are data, ``stack_vocabulary.json`` beside this module, written by
``tools/stack_vocabulary.py`` from the stack's own files (the oneAPI runtime and IPEX wheels'
file lists and libraries, Level Zero's and Unified Runtime's headers) with the source of each
list; none is read from an error text. Two kinds:

* ``word``: a result code or an environment variable (``ZE_RESULT_ERROR_UNINITIALIZED``,
  ``UR_L0_USE_IMMEDIATE_COMMANDLISTS``, ``I_MPI_FABRICS``), matched as a whole identifier,
  case-sensitive;
* ``library``: a shared library's stem (``sycl``, ``ur_loader``, ``ze_intel_gpu``, ``ccl``),
  matched only as a library file name: with ``lib`` before it or ``.so``/``.dll`` after it, in
  any case, whatever version follows (``libur_loader.so.0``, ``ze_loader.dll``);
* ``setting``: a GPU compute runtime setting (``EnableImplicitScaling``), matched only where it
  is given a value (``EnableImplicitScaling=0``, ``os.environ["NEOReadDebugKeys"] = "1"``):
  the names are CamelCase words that prose could hold;
* ``namespace``: a C++ namespace of the stack's own sources, with its ``::`` (``NEO::``);
* ``path``: a module or header of a framework's XPU support (``torch/xpu/streams.py``,
  ``torch/_inductor/codegen/xpu/``) as a path with either separator, under any prefix; a file
  of the same folder that a later release added counts too.

Every term is the Intel stack's alone (the generator leaves out the names other stacks ship too,
the OpenCL ICD loader, MPICH's ABI names, oneTBB, with the reason in the file). The file is
read on the first call, never at import: ``kb list`` and ``--help`` never pay for it.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import NamedTuple

VOCABULARY_FILE = Path(__file__).resolve().parent / "stack_vocabulary.json"

_WORD = re.compile(r"(?<![\w.-])[A-Z][A-Z0-9_]{2,120}(?![\w-])")
# NOTE: a library as a file name (libsycl.so.8, ze_loader.dll, libze_intel_gpu.so.1) or as a
# bare "lib" name (C library 'libze_loader' not found); the stem is read by ``_stem``
_LIBRARY = re.compile(
    r"(?i)(?<![\w.+-])(?:lib[\w+-]{1,100}(?:\.\d+)*(?:\.so(?:\.\d+)*|\.dll|\.dylib)?"
    r"|[\w+-]{1,100}(?:\.so(?:\.\d+)*|\.dll))(?![\w+-])"
)
_SUFFIX = re.compile(r"(?i)(?:\.\d+)*(?:\.so(?:\.\d+)*|\.dll|\.dylib)?$")
_SETTING = re.compile(r"(?<![\w.])([A-Za-z][A-Za-z0-9_]{2,120})(?=[\"']?\]?\s*=(?!=))")
_NAMESPACE = re.compile(r"(?<![\w:])(\w{1,40}::)")
_PATH = re.compile(r"(?<![\w-])\w{1,40}(?:/[\w.-]{1,200}){1,30}")


class Terms(NamedTuple):
    """The vocabulary as lookups: term -> layer, per kind (``Terms._fields``)."""

    word: dict[str, str]
    library: dict[str, str]
    setting: dict[str, str]
    namespace: dict[str, str]
    path: dict[str, str]
    folder: dict[str, str]
    """The folders of the paths: a file of one that the list lacks is that layer's too."""


class Hit(NamedTuple):
    """One name of the stack found in a text."""

    layer: str
    piece: str
    """The text as written (``libur_loader.so.0``)."""


@functools.cache
def terms(path: Path = VOCABULARY_FILE) -> Terms:
    """The vocabulary file's terms, read once per process. A term listed by two layers keeps
    the first (the generator lists none twice)."""
    document = json.loads(path.read_text(encoding="utf-8"))
    found: Terms = Terms({}, {}, {}, {}, {}, {})
    for vocabulary in document["vocabularies"]:
        kind, layer = vocabulary["kind"], vocabulary["layer"]
        target: dict[str, str] = getattr(found, kind)
        for term in vocabulary["terms"]:
            target.setdefault(term.lower() if kind == "library" else term, layer)
            if kind == "path":
                found.folder.setdefault(term.rsplit("/", 1)[0], layer)
    return found


def _stem(piece: str) -> str:
    stem = _SUFFIX.sub("", piece.lower())
    return stem[3:] if stem.startswith("lib") else stem


def hits(text: str, path: Path = VOCABULARY_FILE) -> list[Hit]:
    """The stack's names in ``text``, in the order they occur (each distinct piece once)."""
    known = terms(path)
    found: dict[str, Hit] = {}

    def seen(piece: str, layer: str | None) -> None:
        if layer is not None:
            found.setdefault(piece, Hit(layer, piece))

    for match in _WORD.finditer(text):
        seen(match[0], known.word.get(match[0]))
    for match in _LIBRARY.finditer(text):
        seen(match[0], known.library.get(_stem(match[0])))
    if known.setting and "=" in text:
        for match in _SETTING.finditer(text):
            seen(match[1], known.setting.get(match[1]))
    if known.namespace and "::" in text:
        for match in _NAMESPACE.finditer(text):
            seen(match[1], known.namespace.get(match[1]))
    if known.path:
        # NOTE: the same length with either separator, so the piece is cut from the text as
        # written (explain removes pieces that matched from the text)
        for match in _PATH.finditer(text.replace("\\", "/")):
            seen(text[match.start() : match.end()], _path_layer(match[0], known))
    return list(found.values())


def _path_layer(written: str, known: Terms) -> str | None:
    """The layer of a path as written (any prefix before a listed path, e.g. site-packages)."""
    parts = written.split("/")
    for start in range(len(parts) - 1):
        tail = "/".join(parts[start:])
        layer = known.path.get(tail) or known.folder.get(tail.rsplit("/", 1)[0])
        if layer is not None:
            return layer
    return None
