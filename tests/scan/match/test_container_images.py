"""IPEX arriving through a container image rather than pip: a Dockerfile's FROM, a compose or
Kubernetes manifest's image, a CI job's container. The lines are real (open-edge-platform's
edge-ai-tuning-kit, whose maintainers removed its FROM with IPEX; Kubernetes manifests, Helm
values and a GitHub Actions job of public projects), trimmed."""

from __future__ import annotations

from pathlib import Path

from scan_rules import places_of, write

from ipex_doctor.knowledge import code_rules

SHIPPED = code_rules.load()
RULE = "ipex-container-image"


def _lines(root: Path) -> list[tuple[str, int]]:
    return places_of(root, SHIPPED, RULE)


def test_a_base_image_of_ipex_is_found_wherever_an_image_is_named(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "training/Dockerfile": (
                "# Copyright (C) 2025 Intel Corporation\n"
                "FROM intel/intel-extension-for-pytorch:2.8.10-xpu AS base\n"
                "ARG DEBIAN_FRONTEND=noninteractive\n"
                "FROM --platform=linux/amd64 docker.io/intel/intel-extension-for-pytorch\n"
            ),
            "manifests/notebook-ipex.yaml": (
                "spec:\n"
                "  containers:\n"
                "      - image: intel/intel-extension-for-pytorch:2.1.10-xpu-idp-jupyter\n"
            ),
            "charts/torchserve/values.yaml": (
                "deploy:\n  image: intel/intel-extension-for-pytorch:2.5.10-serving-xpu\n"
            ),
            ".github/workflows/test.yml": (
                "jobs:\n"
                "  xpu:\n"
                '    container: "intel/intel-extension-for-pytorch:2.8.10-xpu"\n'
                "    steps:\n"
                "      - run: docker pull intel/intel-extension-for-pytorch:2.8.10-xpu\n"
            ),
        },
    )
    assert _lines(tmp_path) == [
        (".github/workflows/test.yml", 3),
        (".github/workflows/test.yml", 5),
        ("charts/torchserve/values.yaml", 2),
        ("manifests/notebook-ipex.yaml", 3),
        ("training/Dockerfile", 2),
        ("training/Dockerfile", 4),
    ]


def test_the_repository_and_the_image_page_are_not_images(tmp_path: Path) -> None:
    """A clone of IPEX's repository (another rule's), a link to the image's page, an echo
    that names the image and a commented-out FROM run no image."""
    write(
        tmp_path,
        {
            "Dockerfile": (
                "FROM ubuntu:24.04\n"
                "RUN git clone https://github.com/intel/intel-extension-for-pytorch.git\n"
                'RUN echo "built on intel/intel-extension-for-pytorch:2.8.10-xpu"\n'
                "# FROM intel/intel-extension-for-pytorch:2.8.10-xpu\n"
            ),
            "docs.yaml": "see: https://hub.docker.com/r/intel/intel-extension-for-pytorch\n",
        },
    )
    assert _lines(tmp_path) == []


def test_the_advice_says_fix_cannot_replace_a_base_image() -> None:
    """No fix rewrites an image: the finding is never labelled mechanical, and its recipe says
    why it is left to the user."""
    rule = next(r for r in SHIPPED.rules if r.id == RULE)
    assert rule.fix is None
    assert rule.recipe is not None and "--fix cannot choose a base image" in rule.recipe
