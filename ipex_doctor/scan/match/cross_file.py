"""The ids of the rules whose findings make a scan read across files: a project's own flags
(``project_flags``), the probes that set a flag another module imports (``own_flags``) and the
imports of IPEX whose name another module imports (``own_aliases``).

The ids alone, apart from the readings, so that the engine can tell from the matches whether
a scan needs either reading without importing them (a scan with no such finding, a warm one
above all, never does).
"""

from __future__ import annotations

FLAG_RULES = frozenset({"use-ipex-flag", "accelerate-ipex-config"})
"""The rules that report a command-line flag as a library's (transformers', accelerate's):
``project_flags`` drops a project's own."""
PROBE_RULES = frozenset({"ipex-probe", "ipex-build-probe"})
"""The rules whose finding in a module-level assignment's value makes the name a flag
(``own_flags``)."""
ALIAS_RULES = frozenset({"ipex-import"})
"""The rule whose finding in a module-level import makes the name it binds IPEX for the modules
that import it from there (``own_aliases``)."""
