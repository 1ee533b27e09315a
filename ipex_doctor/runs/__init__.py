"""runs: doing a diagnosis: which checks run where, running them, and the whole diagnosis.

Owns the check catalog (``catalog``), ``--device`` specs (``device_selection``), the runner
that replaces broken workers (``runner``), the sanity run's options (``sanity_options``) and
planning (``sanity_plan``), the diagnosis from probe to redacted report (``diagnose``) and the
distributed gather (``distributed``). May import
every room below it (``model``, ``knowledge``, ``probe``, ``verdicts``).
"""
