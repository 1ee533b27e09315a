"""Python files read with ``ast``: names (imports, aliases, scopes), matches of symbols and
imports, the probes and ``try`` blocks that guard a use, and string literals."""
