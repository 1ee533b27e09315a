"""runs: doing a diagnosis: which checks run where, running them, and the whole diagnosis.

Owns the check catalog (``catalog``), ``--device`` specs (``devices``), the runner that replaces
broken workers (``runner``), the sanity run's planning (``sanity``), the diagnosis from probe
to redacted report (``diagnose``) and the distributed gather (``distributed``). May import
every room below it (``model``, ``knowledge``, ``probe``, ``verdicts``).
"""
