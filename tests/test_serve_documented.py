"""gpukb serves on gunicorn's documented surface only (issue 34): no class of ``server/`` derives from
gunicorn's ``Arbiter`` (or any gunicorn class but the two documented for extension), the hooks
``gpukb serve`` installs pass gunicorn's own validation, and the switch protocol workers follow
(:mod:`server.switch`) says who accepts connections."""
from __future__ import annotations

import ast
import importlib
import inspect
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: what gunicorn documents for extension: custom applications and custom workers
DOCUMENTED = {"gunicorn.app.base": {"BaseApplication"}, "gunicorn.workers.base": {"Worker"}}


def _server_modules() -> list[Path]:
    return sorted((ROOT / "server").rglob("*.py"))


@pytest.mark.parametrize("path", _server_modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_server_imports_only_documented_gunicorn_names(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            assert not [a.name for a in node.names if a.name.split(".")[0] == "gunicorn"], (path, ast.dump(node))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "gunicorn":
            names = {a.name for a in node.names}
            assert names <= DOCUMENTED.get(node.module, set()), f"{path.name} imports {node.module}: {names}"


def test_no_server_class_derives_from_gunicorns_arbiter():
    """Neither by name in any module of server/, nor at run time in the modules that serve."""
    from gunicorn.arbiter import Arbiter
    for path in _server_modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases = [ast.unparse(b) for b in node.bases]
                assert not [b for b in bases if b.split(".")[-1] == "Arbiter"], f"{path.name}: {node.name}{bases}"
    for name in ("serve", "worker", "rollout", "switch", "generations"):
        module = importlib.import_module(f"gpukb.server.{name}")
        for _, cls in inspect.getmembers(module, inspect.isclass):
            assert not issubclass(cls, Arbiter), f"gpukb.server.{name}.{cls.__name__} derives from gunicorn's Arbiter"


def test_serve_installs_its_hooks_through_gunicorns_settings(tmp_path):
    """gunicorn checks each hook's arity when it is set; the master runs gunicorn's own Arbiter."""
    from gpukb.server.generations import Generation
    from gpukb.server.rollout import Reloader
    from gpukb.server.serve import GpukbServer
    conf: dict = {}
    reloader = Reloader(conf, None, 0.0, Generation("d" * 64, "kb", "rules", None, number=1), tmp_path, 2)
    server = GpukbServer(conf, hooks=reloader.hooks())
    for name, fn in reloader.hooks().items():
        assert server.cfg.settings[name].get() == fn
    assert "run" not in GpukbServer.__dict__          # BaseApplication.run: gunicorn's own Arbiter
    assert conf["GPUKB_TOKEN"] == reloader.token and conf["GPUKB_RUN"] == str(tmp_path)


def test_a_worker_follows_serving_json(tmp_path):
    from gpukb.server import switch
    conf = {"GPUKB_RUN": str(tmp_path), "GPUKB_TOKEN": "g1r1"}
    switch.write_serving(tmp_path, "g1r1", None)
    follower = switch.Follower(conf)
    assert not follower.superseded() and follower.interval() == switch.IDLE_POLL
    switch.write_serving(tmp_path, "g1r1", "g2r2")       # a switch is announced: look often
    follower._next_look = 0
    assert not follower.superseded() and follower.interval() == switch.GATE_POLL
    switch.write_serving(tmp_path, None, "g2r2")         # nobody serves: the old workers stop accepting
    follower._next_look = 0
    assert follower.superseded()
    switch.mark(conf, "retired")
    assert (tmp_path / f"retired-{os.getpid()}").exists()
    assert not switch.Follower({}).superseded()          # no run directory: never superseded


def test_the_worker_retires_when_another_generation_serves():
    """The worker's loop asks the follower before it accepts, and a retired worker waits for the
    master's TTOU instead of leaving at once (which would make the master replace it)."""
    from gpukb.server.worker import GpukbWorker
    run = inspect.getsource(GpukbWorker.run)
    assert run.index("superseded()") < run.index("_set_accepting")
    assert "self.retired and not self.terminated" in run
