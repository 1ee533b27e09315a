"""What ``secret_shapes`` hides and what it leaves: each shape masked in place (the line's
length kept, so a finding's columns still index it) or replaced by the marker, and the lines
of ordinary code that only look like one left exactly as they were."""

from __future__ import annotations

import pytest

from ipex_doctor.secret_shapes import MASK_CHARACTER, REDACTED, mask, scrub

HIDDEN = [
    # (line, the secret in it, what stays showing)
    (
        "RUN pip install --extra-index-url https://__token__:glpat-abcdefghijklmnopqrstu@gl.example/simple x",
        "glpat-abcdefghijklmnopqrstu",
        "https://__token__:",
    ),
    (
        'subprocess.run(["pip", "install", "-i", "https://me:hunter22secret@idx.example/simple"])',
        "hunter22secret",
        "https://me:",
    ),
    ("import intel_extension_for_pytorch  # hf_abcdefghijklmnopqrstuvwxyz12", "abcdefghijklmnopqrstuvwxyz12", "# hf_"),
    ("--index-url https://pypi.example/ ghp_abcdefghijklmnopqrstuvwxyz0123", "abcdefghijklmnopqrstuvwxyz0123", "ghp_"),
    ("pip install -i https://0123456789abcdefghijABCD@pypi.fury.io/me/ x", "0123456789abcdefghijABCD", "https://"),
    ("HF_TOKEN=abc123def456ghi", "abc123def456ghi", "HF_TOKEN="),
    ('db.password = "x9x9x9x9"', "x9x9x9x9", 'db.password = "'),
    ("  api_key: 'Zk39dkslq0'", "Zk39dkslq0", "api_key: '"),
    ("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG", "AWS_SECRET_ACCESS_KEY="),
    ("huggingface-cli login --token s3cr3tvalue", "s3cr3tvalue", "--token "),
    ("python run.py --api-key=Zk39dkslq0", "Zk39dkslq0", "--api-key="),
    ("echo AKIAABCDEFGHIJKLMNOP", "ABCDEFGHIJKLMNOP", "echo AKIA"),
]  # fmt: skip

KEPT = [
    "import intel_extension_for_pytorch as ipex",
    "num_tokens = 100000000",
    "self.max_tokens = 1024",
    "token = tokenizer(text)",
    "token = self.tokenizer.eos_token",
    "def f(token: str, password: Optional[str] = None):",
    "huggingface-cli login --token $HF_TOKEN",
    "python train.py --token-file /run/secrets/hf",
    "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}",
    "git clone ssh://git@github.com/intel/intel-extension-for-pytorch",
    "pip install --index-url https://download.pytorch.org/whl/xpu torch",
    "password: str",
    "api_key = None",
]


@pytest.mark.parametrize(("line", "secret", "shown"), HIDDEN)
def test_a_secret_is_masked_in_place(line: str, secret: str, shown: str) -> None:
    masked = mask(line)
    assert secret not in masked
    assert len(masked) == len(line)
    assert shown in masked
    assert MASK_CHARACTER * 6 in masked
    # only the secret's characters changed, each to the mask
    changed = [k for k, (a, b) in enumerate(zip(line, masked, strict=True)) if a != b]
    assert changed[0] >= line.index(secret)
    assert {masked[k] for k in changed} == {MASK_CHARACTER}
    assert not any(c.isspace() for c in line[changed[0] : changed[-1] + 1])


@pytest.mark.parametrize("line", KEPT)
def test_code_that_only_looks_like_a_secret_is_left_alone(line: str) -> None:
    assert mask(line) == line


def test_scrub_replaces_credentials_and_tokens_with_the_marker() -> None:
    text = "GET https://me:hunter22secret@idx.example/simple with hf_abcdefghijklmnopqrstuvwxyz12"
    assert scrub(text) == f"GET https://{REDACTED}@idx.example/simple with {REDACTED}"
    assert scrub("https://0123456789abcdefghijABCD@pypi.fury.io/me/") == (
        f"https://{REDACTED}@pypi.fury.io/me/"
    )
    assert scrub("nothing secret here: https://pypi.org/simple") == (
        "nothing secret here: https://pypi.org/simple"
    )
