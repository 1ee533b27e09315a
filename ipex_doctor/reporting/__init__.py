"""report: what the user gets: the gate policy, the formats, the files, the progress shown.

Owns the gate (``policy``), publishing to every sink (``publish``, ``output``), the pure
formatters (``formats/``), replaying saved reports (``replay``), the pipeline from a request
to an exit code (``pipeline``) and the progress feedback (``progress``). May import every room
below it; the CLI is its only caller.
"""
