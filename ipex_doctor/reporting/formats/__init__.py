"""Pure formatters: each turns a ``Report`` into text or renderables and never prints.

The machine formats (``Format``) share one signature, ``renderers.Renderer``: the report, with the
policy applied, and the gate's decision, which JUnit marks failures by and HTML states. The
console (``formats/console.py``) is the human view and also takes the verbosity.

This package imports nothing: its modules import each other by name (``renderers`` picks a
machine format's module), so importing one of them never runs a cycle through the package.
"""
