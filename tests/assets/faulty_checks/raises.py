"""A check that raises (fault injection for the runner)."""


def run(device):
    raise ValueError("planted failure in a check")
