"""probe: learning about an environment: the interpreter handshake, host facts, the variables
(and which are secret), and the spawned worker that imports torch.

Owns the probe's options (``options``), every process the doctor starts (``spawn``), the worker session (``session``) and the
scripts that run inside the examined interpreter (``scripts/``: standard library and torch
only, importing nothing of this package). May import ``model`` and ``knowledge``.
"""
