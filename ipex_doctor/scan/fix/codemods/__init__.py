"""The LibCST codemods of ``scan --fix``, one per fix id (``registry`` lists them in the
order they run)."""
