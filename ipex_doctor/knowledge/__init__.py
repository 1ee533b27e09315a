"""knowledge: what is known about PyTorch-on-Intel stacks, independent of any one environment.

Owns the data and nothing that judges it: the knowledge-base loader (``known_issues``, with its
``schema``, the YAML reader ``yamldoc`` and the ``cache`` of validated documents), the names of
the rules an entry may use (``rule_names``; the rules themselves judge, in ``verdicts``), the
code-scan rules (``code_rules``), the release lines behind remedies (``remedies``) and
``explain``. May import ``model``; never runs anything.
"""
