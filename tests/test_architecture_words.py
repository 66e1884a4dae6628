"""A GPU's architecture named with the word for "architecture" in other languages, after the value ("Ada Lovelace
아키텍처", "Ampere-Architektur") or before it ("архитектуре Pascal", "arquitectura Ada Lovelace", "l'architecture
Ampere"), is read and judged. Sentences written for these tests; architectures from NVIDIA's product pages
(V100: Volta; RTX A6000: Ampere)."""
from __future__ import annotations

import pytest

from ._engine import checked


@pytest.mark.parametrize("text,value,status", [
    ("Tesla V100 построена на архитектуре Pascal.", "Pascal", "incorrect"),
    ("Tesla V100 построена на архитектуре Volta.", "Volta", "supported"),
    ("RTX A6000은 Ada Lovelace 아키텍처 기반입니다.", "Ada Lovelace", "incorrect"),
    ("Die RTX A6000 basiert auf der Ampere-Architektur.", "Ampere", "supported"),
    ("La RTX A6000 está basada en la arquitectura Ada Lovelace.", "Ada Lovelace", "incorrect"),
    ("La RTX A6000 utilise l’architecture Ampere.", "Ampere", "supported"),
])
def test_architecture_in_other_languages(gpukb, text, value, status):
    assert [(c["value"], c["status"]) for c in checked(gpukb, text, "architecture")] == [(value, status)]
