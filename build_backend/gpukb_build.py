"""gpukb's PEP 517 build backend: setuptools, plus the patched rule engine inside the wheel.

Every route that builds gpukb (``pip install .``, ``pipx install .``, ``pip wheel .``,
``pip install git+...``, ``python -m build``, the Makefile's editable install) goes through here, so
each gets durable-rules 2.0.28 built with gpukb's patch (see durable_build.py) as ``gpukb._durable``,
never the stock release. The metadata hooks are setuptools' own.
"""
from __future__ import annotations

import sys
from pathlib import Path

from setuptools import build_meta as _setuptools
from setuptools.build_meta import (  # noqa: F401  (re-exported hooks)
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
import durable_build  # noqa: E402


PACKAGE_INIT = Path(__file__).resolve().parent.parent / "gpukb" / "__init__.py"


def _with_engine(directory: str, name: str, package_init: bytes | None = None) -> str:
    try:
        engine = durable_build.engine_wheel()
        return durable_build.vendor_into(Path(directory) / name, engine, package_init).name
    except durable_build.BuildError as e:
        raise SystemExit(f"gpukb build: ERROR: {e}") from None


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name = _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)
    return _with_engine(wheel_directory, name)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    name = _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)
    return _with_engine(wheel_directory, name, PACKAGE_INIT.read_bytes())


def build_sdist(sdist_directory, config_settings=None):
    return _setuptools.build_sdist(sdist_directory, config_settings)
