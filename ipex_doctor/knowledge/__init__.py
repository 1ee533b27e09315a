"""knowledge: what is known about PyTorch-on-Intel stacks, independent of any one environment.

Owns the knowledge-base loader (``kb``, with its ``schema``, the YAML reader ``yamldoc`` and the
``cache`` of validated documents), the rules that judge entries a version range cannot
(``rules``), the release lines behind remedies (``remedies``) and ``explain``. May import
``model``; never runs anything.
"""
