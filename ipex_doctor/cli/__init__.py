"""The command line (Click): thin commands that parse options, call the core, return an exit code."""

from ipex_doctor.cli.commands import main

__all__ = ["main"]
