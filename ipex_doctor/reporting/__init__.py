"""reporting: what the user gets: the gate policy, the formats, the files, the progress shown.

Owns the gate (``policy``: the threshold, the ignores and the one decision of pass or fail),
publishing to every sink (``publish``, ``output``), the pure formatters (``formats/``),
reading saved reports back (``saved_reports``) and the progress feedback (``progress``). It
runs nothing: the use cases in ``app`` produce the reports it publishes.
"""
