"""ipex-doctor: diagnose PyTorch environments on Intel hardware (IPEX and PyTorch XPU).

The public surface is the ``ipex-doctor`` command and the JSON report whose schema is
published in ``docs/report.schema.json``; the Python modules are an implementation detail.
"""

__version__ = "0.1.0"
