"""scan's second room: the rules compiled and matched against what ``read`` gave (the rule
set and its byte prefilter, Python's names, matches, probes and strings, structural
patterns, shell lines, launch text, whether ``--fix`` rewrites a match).

May import ``scan.read`` below it; never ``scan.fix`` or the engine.
"""
