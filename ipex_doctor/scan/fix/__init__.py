"""scan's third room: ``scan --fix`` (the codemods, the rewrites of text, writing files
inside their roots all or none, the undo journal).

May import ``scan.read`` and ``scan.match`` below it; never the engine.
"""
