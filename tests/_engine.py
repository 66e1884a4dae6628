"""One engine for the whole test session (building it compiles the rules and audits the KB)."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@lru_cache(maxsize=1)
def bundled():
    from gpukb.engine.service.state import GpuKB
    return GpuKB(ROOT / "kb", ROOT / "rules")


def edited_vocabulary(tmp_path: Path, edit) -> Path:
    """A copy of the bundled vocabulary with ``edit(raw)`` applied to its parsed YAML (order kept)."""
    import yaml
    raw = yaml.safe_load((ROOT / "kb" / "vocabulary.yaml").read_text(encoding="utf-8"))
    edit(raw)
    path = tmp_path / "vocabulary.yaml"
    path.write_text(yaml.safe_dump(raw, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def sent_to_durable(monkeypatch, field: str) -> list:
    """The ``field`` of every fact gpukb sends to durable_rules from now on (the list grows as they go)."""
    from gpukb.engine.reasoning import durable_host
    sent: list = []
    real = durable_host.CompiledRuleset._assert_and_record

    def counting(self, msg):
        sent.append(msg[field])
        return real(self, msg)
    monkeypatch.setattr(durable_host.CompiledRuleset, "_assert_and_record", counting)
    return sent


def proof_nodes(tree: dict) -> list[dict]:
    """Every node of a proof tree (an answer's ``explain`` tree), the root first."""
    out, stack = [], [tree]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(n.get("premises") or [])
    return out


def checked(gpukb, text: str, attribute: str | None = None, **kw) -> list[dict]:
    """The claims ``gpukb check`` reports for ``text`` (as the JSON answer gives them), only those of
    ``attribute`` when it is given; ``kw`` goes to check (lang, kb_version)."""
    claims = gpukb.check(text, **kw).to_json()["claims"]
    return [c for c in claims if attribute is None or c["attribute"] == attribute]
