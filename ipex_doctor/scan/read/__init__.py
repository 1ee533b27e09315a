"""scan's first room: which files are candidates and what their bytes say, read without
judging them (kinds, ignores, discovery, decoding and lines, notebooks, documents' code
blocks, CI files, top-level statement spans, inline suppressions).

May import the foundation, ``model`` and ``knowledge``; nothing else of ``scan``.
"""
