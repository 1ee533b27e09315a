"""model: what the doctor knows and reports, as frozen dataclasses and enums; no I/O.

Owns the vocabulary (``terms``), the findings and the report (``findings``), the examined
environment (``environment``), the observations of check runs (``observations``), version
parsing and ranges (``versions``) and the one JSON codec (``codec``). Imports nothing of the
package above the foundation (``errors``, ``resources``).
"""
