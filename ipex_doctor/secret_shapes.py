"""What a secret looks like in a line of text, and the two ways of hiding one.

The doctor quotes text it did not write: a scanned file's line in a code finding, an
exception or captured output in a check. Such text can carry a credential (an index URL with
``user:password@``, a GitHub or Hugging Face token, ``PASSWORD=...``), and reports travel: a
SARIF upload to code scanning, a JUnit file kept as a CI artifact, a Markdown report pasted
into an issue. This module owns the shapes; ``scrub`` replaces a secret with a marker (free
text), ``mask`` hides its characters in place (a quoted source line, whose columns the
finding's location indexes: the console highlights them, so the line keeps its length).

Written by hand, not with a secret-scanning library: those (detect-secrets, trufflehog) are
built to find secrets in whole repositories with entropy checks and verifiers, and cost more
to import than the doctor's light commands may spend; a report only needs the well-known
shapes hidden.
"""

from __future__ import annotations

from ipex_doctor.lazy_pattern import LazyPattern

REDACTED = "<redacted>"
MASK_CHARACTER = "*"

URL_CREDENTIALS = LazyPattern(
    r"(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*://)(?P<user>[^/\s:@]+):(?P<secret>[^/\s@]+)@"
)
"""``scheme://user:password@``: the password (a token in an index URL) is the secret."""

_URL_TOKEN_USER = LazyPattern(
    r"(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*://)(?P<secret>[A-Za-z0-9_-]{20,})@"
)
"""``scheme://TOKEN@host`` (Gemfury's and GitHub's token-as-user URLs): a user name of 20 or
more token characters is a token, not a person's name."""

TOKEN_SHAPES = LazyPattern(
    r"\b(?:ghp_[A-Za-z0-9]{20,}|gh[osu]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}"
    r"|hf_[A-Za-z0-9]{20,}|sk-[A-Za-z0-9_-]{20,}|xox[abpr]-[A-Za-z0-9-]{10,}"
    r"|AKIA[0-9A-Z]{16}|glpat-[A-Za-z0-9_-]{20,}|pypi-[A-Za-z0-9_-]{40,})\b"
)
"""Tokens whose issuers give them a fixed prefix (GitHub, Hugging Face, OpenAI, Slack, AWS,
GitLab, PyPI)."""
_ISSUER_PREFIX = LazyPattern(r"ghp_|gh[osu]_|github_pat_|hf_|sk-|xox[abpr]-|AKIA|glpat-|pypi-")
"""The prefix ``mask`` leaves showing: it says whose token it was, and nothing of it."""

_SECRET_NAME = (
    r"[A-Za-z0-9_.-]*?(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_?KEY)(?![A-Za-z0-9])"
)
"""A name that ends in a word saying it holds a secret (``HF_TOKEN``, ``db.password``,
``AWS_SECRET_ACCESS_KEY``), not one that merely contains it (``num_tokens``)."""
_ASSIGNED_SECRET = LazyPattern(
    rf"(?i)\b{_SECRET_NAME}\s*[:=]\s*(?:(?P<q>[\"'])(?P<quoted>[^\"'\s]{{6,}})(?P=q)"
    r"|(?P<bare>(?=[^\s\"']*\d)(?=[^\s\"']*[A-Za-z])[A-Za-z0-9_+/=-]{8,})(?![\w.(\[]))"
)
"""``HF_TOKEN=...``, ``password: "..."``, ``api_key = '...'``: the value given to a name that
says it is a secret. Quoted, six characters or more; bare (an environment file, a shell
line), eight or more with a digit and a letter, and neither a call nor an attribute after it, so that
``token = tokenizer(text)`` or ``password: str`` is not taken for one."""

_SECRET_FLAG = LazyPattern(
    r"(?i)--[A-Za-z0-9-]*(?:token|password|passwd|api-key|apikey|secret)"
    r"(?:=|\s+)[\"']?(?P<value>[^\s\"'$<{][^\s\"']{5,})"
)
"""``--token VALUE``, ``--password=VALUE`` on a command line (not ``--token $HF_TOKEN``, nor
``--token-file PATH``)."""

_MAY_HOLD_SECRET = (
    "://",
    "hf_",
    "gh",
    "sk-",
    "xox",
    "akia",
    "glpat-",
    "pypi-",
    "token",
    "secret",
    "passw",
    "key",
)
"""Words of which a line must hold one (lower-cased) for any shape above to fit it."""

_NOT_A_VALUE = frozenset({"None", "none", "null", "true", "false", "string", "required"})


def scrub(text: str) -> str:
    """``text`` with URL credentials and token-shaped strings replaced by ``REDACTED``."""
    text = URL_CREDENTIALS.sub(lambda m: f"{m['scheme']}{REDACTED}@", text)
    text = _URL_TOKEN_USER.sub(lambda m: f"{m['scheme']}{REDACTED}@", text)
    return TOKEN_SHAPES.sub(REDACTED, text)


def mask(line: str) -> str:
    """``line`` with each secret's characters replaced by ``MASK_CHARACTER``; the same length,
    so a column into the line still points at the same place, and everything else as it was
    (a URL's scheme, user and host, a token's issuer prefix, the name a value is assigned to).
    """
    lower = line.lower()
    if not any(word in lower for word in _MAY_HOLD_SECRET):
        return line  # most lines: one pass of ``in`` each, a tenth of the patterns' cost
    spans = [
        match.span("secret")
        for shape in (URL_CREDENTIALS, _URL_TOKEN_USER)
        for match in shape.finditer(line)
    ]
    for match in TOKEN_SHAPES.finditer(line):
        issuer = _ISSUER_PREFIX.match(match.group())
        spans.append((match.start() + (issuer.end() if issuer else 0), match.end()))
    for match in _ASSIGNED_SECRET.finditer(line):
        group = "quoted" if match["quoted"] else "bare"
        if match[group] not in _NOT_A_VALUE and not match[group].startswith(("$", "{", "<")):
            spans.append(match.span(group))
    spans.extend(
        match.span("value")
        for match in _SECRET_FLAG.finditer(line)
        if match["value"] not in _NOT_A_VALUE
    )
    if not spans:
        return line
    hidden = list(line)
    for start, end in spans:
        hidden[start:end] = MASK_CHARACTER * (end - start)
    return "".join(hidden)
