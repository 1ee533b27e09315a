"""Secrets never reach a report: allow-listed variables, redacted values, scrubbed text."""

from __future__ import annotations

from ipex_doctor.probe.secrets import REDACTED, Redactor, is_reported, reported_env_vars

ENVIRON = {
    "ZE_AFFINITY_MASK": "0,1",
    "ONEAPI_DEVICE_SELECTOR": "level_zero:0",
    "OMP_NUM_THREADS": "8",
    "HF_TOKEN": "hf_abcdefghijklmnopqrstuvwxyz123456",
    "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "CCL_AUTH_TOKEN": "ccl-very-secret-value",
    "HOME": "/home/alice",
    "PATH": "/usr/bin",
    "PWD": "/home/alice/project",
    "LD_PRELOAD": "/opt/lib/libfoo.so",
    "IPEX_PROXY": "https://bob:hunter2@proxy.example.org:8080",
}


def test_only_allow_listed_variables_are_reported() -> None:
    """HOME, PATH and tokens are not reported; the Intel stack's variables are."""
    reported = reported_env_vars(ENVIRON, Redactor(ENVIRON))
    assert set(reported) == {
        "ZE_AFFINITY_MASK",
        "ONEAPI_DEVICE_SELECTOR",
        "OMP_NUM_THREADS",
        "CCL_AUTH_TOKEN",
        "LD_PRELOAD",
        "IPEX_PROXY",
    }
    assert not is_reported("HF_TOKEN") and not is_reported("HOME")


def test_secret_values_are_redacted() -> None:
    """An allow-listed variable with a secret-looking name has its value hidden."""
    reported = reported_env_vars(ENVIRON, Redactor(ENVIRON))
    assert reported["CCL_AUTH_TOKEN"] == REDACTED
    assert reported["IPEX_PROXY"] == f"https://{REDACTED}@proxy.example.org:8080"


def test_text_is_scrubbed_of_secret_values_urls_and_tokens() -> None:
    """A crash message that echoes secrets is scrubbed, but ordinary paths survive."""
    redactor = Redactor(ENVIRON)
    text = (
        "failed with hf_abcdefghijklmnopqrstuvwxyz123456 and wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY "
        "at https://user:pa55@example.org/x in /home/alice/project; ghp_" + "a" * 36
    )
    scrubbed = redactor.text(text)
    for secret in ("hf_abc", "wJalrXUtnFEMI", "pa55", "ghp_aaaa"):
        assert secret not in scrubbed
    assert "/home/alice/project" in scrubbed  # PWD is not a secret


def test_deep_scrubs_nested_data() -> None:
    """Every string in nested JSON-like data is scrubbed, keys included."""
    redactor = Redactor(ENVIRON)
    data = {"a": ["x ccl-very-secret-value y", {"ccl-very-secret-value": 1}], "n": 3}
    assert "ccl-very-secret-value" not in repr(redactor.deep(data))
