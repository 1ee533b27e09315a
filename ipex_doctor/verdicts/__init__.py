"""verdicts: judging: an environment and its observations into findings.

Owns the judgement of knowledge-base entries (``judge``), of the sanity run (``sanity``), of
devices and fleets that differ from their peers (``devices``, ``fleet``, ``majority``), the
composition of a node's findings (``assemble``) and the one registry of every finding id
(``registry``). May import ``model``, ``knowledge`` and ``probe``; runs nothing.
"""
