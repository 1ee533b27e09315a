"""verdicts: judging: an environment and its observations into findings.

Owns the judgement of knowledge-base entries (``judge``, with the ``rules`` that judge what a
version range cannot), of the sanity run (``sanity_findings``), of the Intel GPU ladder
(``xpu_ladder``), of devices and fleets that differ from their peers (``device_outliers``,
``fleet``, ``launch``, ``majority``), of a run against its baseline (``baseline``), the
composition of a node's findings (``assemble``) and the one registry of every finding id
(``registry``), whose specs make every built-in finding. May import ``model``, ``knowledge``
and ``probe``; runs nothing.
"""
