#!/usr/bin/env python3
"""Build durable-rules 2.0.28 from its PyPI sdist with gpukb's patch, and install it.

durable-rules 2.0.28 (the last release; upstream idle since 2020) has memory bugs in its C engine
that silently break joins on `id`/`sid` and crash 3.12, and it does not import on 3.13. gpukb ships
its own fix as patches/durable-rules-2.0.28.patch (see the header of that file); this script turns
it into an installed wheel, with the ordinary clients only:

    python scripts/build_durable.py --python /path/to/venv/bin/python --cache DIR
    python scripts/build_durable.py --python /path/to/venv/bin/python --check

Steps: pip download the sdist (reused from DIR when cached) -> check its sha256 -> unpack to a
temporary directory -> patch -p1 -> stamp the build -> pip wheel (no build isolation: setuptools
must be installed in the target python) -> cache the wheel in DIR, keyed by python tag, platform and
patch sha256 (a changed patch rebuilds) -> pip install --force-reinstall --no-deps -> --check.

The stamp: the patch adds `GPUKB_PATCHED = "<label>"` to durable/__init__.py; this script appends
`GPUKB_PATCH_SHA256` (the sha256 of the patch file it applied) to the same file before building.
`--check` imports durable in the target python and exits 1 unless both match the patch file here.

Standard library only. Needs gcc, patch and the target python's headers (Python.h).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

NAME = "durable-rules"
VERSION = "2.0.28"
SDIST_SHA256 = "053b26f5e48d312d4fa27995243f954671be6eece477f150c059c364eb4d7d61"
SDIST_GLOB = ("durable_rules-2.0.28.tar.gz", "durable-rules-2.0.28.tar.gz")
ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PATCH = ROOT / "patches" / "durable-rules-2.0.28.patch"
DEFAULT_CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "gpukb" / "durable-rules"
MARKER_RE = re.compile(r'^\+GPUKB_PATCHED = "([^"]+)"\s*$', re.M)

PREFIX = "build_durable:"


class BuildError(Exception):
    """A step failed; the message says which and what to do."""


def say(msg: str) -> None:
    print(f"{PREFIX} {msg}", flush=True)


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 16), b""):
            h.update(block)
    return h.hexdigest()


def run(cmd: list[str], *, cwd: Path | None = None, what: str, env: dict | None = None) -> str:
    """Run cmd; on failure raise BuildError with its output. Returns combined output."""
    proc = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True)
    if proc.returncode != 0:
        tail = "\n".join(proc.stdout.rstrip().splitlines()[-40:])
        raise BuildError(f"{what} failed (exit {proc.returncode}): {shlex.join(cmd)}\n{tail}")
    return proc.stdout


# -- the target interpreter ----------------------------------------------------------------------

_PROBE = r"""
import json, sys, sysconfig, importlib.util as u
def ver(mod):
    try:
        from importlib.metadata import version
        return version(mod)
    except Exception:
        return None
print(json.dumps({
    "executable": sys.executable,
    "version": "%d.%d.%d" % sys.version_info[:3],
    "tag": "%s%d%d" % ({"cpython": "cp"}.get(sys.implementation.name, sys.implementation.name),
                       *sys.version_info[:2]),
    "platform": sysconfig.get_platform().replace("-", "_").replace(".", "_"),
    "include": sysconfig.get_paths()["include"],
    "cc": sysconfig.get_config_var("CC") or "",
    "pip": u.find_spec("pip") is not None,
    "setuptools": ver("setuptools") if u.find_spec("setuptools") else None,
    "wheel": u.find_spec("wheel") is not None,
}))
"""


def probe(python: str) -> dict:
    try:
        proc = subprocess.run([python, "-c", _PROBE], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    except OSError as e:
        raise BuildError(f"cannot run the target python {python!r}: {e}") from None
    if proc.returncode != 0:
        raise BuildError(f"cannot run the target python {python!r}: {proc.stderr.strip()}")
    return json.loads(proc.stdout)


def preflight(info: dict) -> None:
    """Name everything missing in one message (gcc, patch, Python.h, pip, setuptools, wheel)."""
    missing = []
    cc = os.environ.get("CC") or info["cc"] or "gcc"
    cc_exe = shlex.split(cc)[0] if cc.strip() else "gcc"
    if not shutil.which(cc_exe):
        missing.append(f"gcc (apt-get install gcc; the target python compiles with {cc_exe!r})")
    if not shutil.which("patch"):
        missing.append("patch (apt-get install patch)")
    py_h = Path(info["include"]) / "Python.h"
    if not py_h.is_file():
        major_minor = ".".join(info["version"].split(".")[:2])
        missing.append(f"the Python headers, {py_h} (apt-get install python{major_minor}-dev, "
                       f"or a python built with its headers)")
    target = info["executable"]
    if not info["pip"]:
        missing.append(f"pip in the target python ({target} -m ensurepip)")
    st = info["setuptools"]
    if not st:
        missing.append(f"setuptools in the target python ({target} -m pip install setuptools wheel)")
    else:
        # setuptools >= 70.1 carries bdist_wheel itself; older ones need the wheel package
        try:
            st_ver = tuple(int(x) for x in re.findall(r"\d+", st)[:2])
        except ValueError:
            st_ver = (0, 0)
        if st_ver < (70, 1) and not info["wheel"]:
            missing.append(f"wheel in the target python (setuptools {st} needs it: "
                           f"{target} -m pip install wheel)")
    if missing:
        raise BuildError("gpukb builds durable-rules from source: install "
                         + "; install ".join(missing))


# -- steps -----------------------------------------------------------------------------------------

def get_sdist(python: str, cache: Path) -> Path:
    sdists = cache / "sdist"
    sdists.mkdir(parents=True, exist_ok=True)
    for name in SDIST_GLOB:
        cached = sdists / name
        if cached.is_file():
            if sha256_of(cached) == SDIST_SHA256:
                say(f"sdist: reusing cached {cached}")
                return cached
            say(f"sdist: cached {cached} has the wrong sha256; removing it and downloading again")
            cached.unlink()
    with tempfile.TemporaryDirectory(dir=sdists, prefix=".download-") as tmp:
        say(f"sdist: pip download --no-deps --no-binary :all: {NAME}=={VERSION}")
        run([python, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
             "--no-build-isolation", "--disable-pip-version-check", "-d", tmp,
             f"{NAME}=={VERSION}"], what="pip download of the sdist")
        got = [p for p in Path(tmp).iterdir() if p.name in SDIST_GLOB]
        if not got:
            raise BuildError(f"pip download did not produce {SDIST_GLOB[0]} "
                             f"(got {sorted(p.name for p in Path(tmp).iterdir())})")
        target = sdists / got[0].name
        os.replace(got[0], target)
    return target


def check_sdist(sdist: Path) -> None:
    actual = sha256_of(sdist)
    if actual != SDIST_SHA256:
        raise BuildError(f"sha256 of {sdist} is {actual}, expected {SDIST_SHA256}: "
                         f"not the sdist the patch was written for; remove it and rerun")
    say(f"sha256: {sdist.name} ok ({SDIST_SHA256[:16]}...)")


def unpack(sdist: Path, dest: Path) -> Path:
    with tarfile.open(sdist) as tf:
        if hasattr(tarfile, "data_filter"):
            tf.extractall(dest, filter="data")
        else:  # pragma: no cover - pythons without PEP 706
            for member in tf.getmembers():
                if member.name.startswith("/") or ".." in Path(member.name).parts:
                    raise BuildError(f"unsafe path in {sdist.name}: {member.name}")
            tf.extractall(dest)
    tree = dest / "durable_rules-2.0.28"
    if not (tree / "setup.py").is_file():
        raise BuildError(f"{sdist.name} did not unpack to durable_rules-2.0.28/setup.py")
    say(f"unpack: {tree}")
    return tree


def apply_patch(tree: Path, patch_file: Path, patch_sha: str, label: str) -> None:
    proc = subprocess.run(["patch", "-p1", "--batch", "--forward", "-i", str(patch_file)], cwd=tree,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if proc.returncode != 0:
        raise BuildError(f"the patch {patch_file} does not apply to durable_rules-2.0.28 "
                         f"(patch exit {proc.returncode}):\n{proc.stdout.rstrip()}")
    files = len(re.findall(r"^patching file ", proc.stdout, re.M))
    # the build stamp: which patch built this wheel (--check compares it with the patch file)
    init = tree / "libpy" / "durable" / "__init__.py"
    with open(init, "a", encoding="utf-8") as f:
        f.write(f'GPUKB_PATCH_SHA256 = "{patch_sha}"  # written by scripts/build_durable.py\n')
    say(f"patch: applied {patch_file.name} ({files} files, sha256 {patch_sha[:16]}..., "
        f"marker {label})")


def build_wheel(python: str, tree: Path, out: Path) -> Path:
    t0 = time.monotonic()
    run([python, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
         "--disable-pip-version-check", "-w", str(out), str(tree)], what="pip wheel")
    wheels = sorted(out.glob("durable_rules-2.0.28-*.whl"))
    if len(wheels) != 1:
        raise BuildError(f"pip wheel produced {[w.name for w in wheels]} in {out}")
    say(f"wheel: built {wheels[0].name} in {time.monotonic() - t0:.1f}s")
    return wheels[0]


def install(python: str, wheel: Path) -> None:
    run([python, "-m", "pip", "install", "--force-reinstall", "--no-deps",
         "--disable-pip-version-check", str(wheel)], what="pip install of the wheel")
    say(f"install: {wheel.name} into {python}")


_CHECK = r"""
import importlib, json, sys
out = {}
try:
    # run in the target interpreter to inspect the installed build (gpukb itself imports durable only in
    # engine/reasoning/durable_host.py)
    durable = importlib.import_module("durable")
    importlib.import_module("durable.engine")
    importlib.import_module("durable_rules_engine")
    out["file"] = durable.__file__
    out["label"] = getattr(durable, "GPUKB_PATCHED", None)
    out["sha"] = getattr(durable, "GPUKB_PATCH_SHA256", None)
except Exception as e:
    out["error"] = "%s: %s" % (type(e).__name__, e)
print(json.dumps(out))
"""


def check(python: str, label: str, patch_sha: str) -> tuple[bool, str]:
    """Is the durable importable by `python` our build of this patch? -> (ok, message)"""
    proc = subprocess.run([python, "-c", _CHECK], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
    if proc.returncode != 0:
        return False, f"cannot run {python}: {proc.stderr.strip()}"
    info = json.loads(proc.stdout.strip().splitlines()[-1])
    if "error" in info:
        return False, f"durable does not import in {python}: {info['error']}"
    if info["label"] is None:
        return False, (f"{info['file']} is a stock durable-rules build, not gpukb's patched build "
                       f"(no GPUKB_PATCHED); run scripts/build_durable.py --python {python}")
    if info["label"] != label:
        return False, (f"{info['file']} carries GPUKB_PATCHED={info['label']!r}, the patch says "
                       f"{label!r}; rebuild")
    if info["sha"] != patch_sha:
        return False, (f"{info['file']} was built from a patch with sha256 {info['sha']}, the patch "
                       f"file now has {patch_sha}; rebuild")
    return True, f"{info['file']} is gpukb's patched build ({label}, patch {patch_sha[:16]}...)"


def patch_label(patch_file: Path) -> str:
    m = MARKER_RE.search(patch_file.read_text(encoding="utf-8"))
    if not m:
        raise BuildError(f"{patch_file} does not add a GPUKB_PATCHED marker")
    return m.group(1)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", default=sys.executable,
                    help="the interpreter to build for and install into (default: this one)")
    ap.add_argument("--cache", type=Path, default=DEFAULT_CACHE,
                    help=f"where the sdist and the built wheels are kept (default: {DEFAULT_CACHE})")
    ap.add_argument("--patch", type=Path, default=DEFAULT_PATCH, help="the patch to apply")
    ap.add_argument("--check", action="store_true",
                    help="only check that the installed durable is our patched build; exit 1 if not")
    ap.add_argument("--rebuild", action="store_true", help="ignore a cached wheel")
    args = ap.parse_args(argv)
    t_start = time.monotonic()

    try:
        patch_file = args.patch.resolve()
        if not patch_file.is_file():
            raise BuildError(f"patch file {patch_file} not found")
        patch_sha = sha256_of(patch_file)
        label = patch_label(patch_file)

        if args.check:
            ok, msg = check(args.python, label, patch_sha)
            say(("ok: " if ok else "NOT OK: ") + msg)
            return 0 if ok else 1

        info = probe(args.python)
        python = info["executable"] if Path(args.python).name == args.python else args.python
        say(f"target: python {info['version']} ({info['tag']}, {info['platform']}) at {python}")
        preflight(info)
        say(f"tools: compiler, patch, {Path(info['include']) / 'Python.h'}, "
            f"setuptools {info['setuptools']} present")

        cache = args.cache.resolve()
        key = f"{info['tag']}-{info['platform']}-{patch_sha[:16]}"
        wheel_dir = cache / "wheels" / key
        cached = sorted(wheel_dir.glob("durable_rules-2.0.28-*.whl")) if wheel_dir.is_dir() else []
        meta_file = wheel_dir / "build.json"
        meta_ok = False
        if cached and meta_file.is_file():
            try:
                meta_ok = json.loads(meta_file.read_text()).get("patch_sha256") == patch_sha
            except ValueError:
                meta_ok = False
        if len(cached) == 1 and meta_ok and not args.rebuild:
            wheel = cached[0]
            say(f"wheel: reusing cached {wheel} (key {key})")
        else:
            sdist = get_sdist(python, cache)
            check_sdist(sdist)
            with tempfile.TemporaryDirectory(prefix="gpukb-durable-") as tmp:
                tmp = Path(tmp)
                tree = unpack(sdist, tmp / "src")
                apply_patch(tree, patch_file, patch_sha, label)
                built = build_wheel(python, tree, tmp / "dist")
                staging = cache / "wheels" / f".{key}.tmp"
                shutil.rmtree(staging, ignore_errors=True)
                staging.mkdir(parents=True)
                shutil.copy2(built, staging / built.name)
                (staging / "build.json").write_text(json.dumps({
                    "package": f"{NAME}=={VERSION}", "sdist_sha256": SDIST_SHA256,
                    "patch": patch_file.name, "patch_sha256": patch_sha, "marker": label,
                    "python": info["version"], "tag": info["tag"], "platform": info["platform"],
                    "setuptools": info["setuptools"],
                    "built": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                }, indent=2) + "\n")
                shutil.rmtree(wheel_dir, ignore_errors=True)
                os.replace(staging, wheel_dir)
                wheel = wheel_dir / built.name
                say(f"cache: {wheel}")
        install(python, wheel)
        ok, msg = check(python, label, patch_sha)
        if not ok:
            raise BuildError(f"installed, but the check fails: {msg}")
        say(f"check: {msg}")
        say(f"done in {time.monotonic() - t_start:.1f}s")
        return 0
    except BuildError as e:
        print(f"{PREFIX} ERROR: {e}", file=sys.stderr, flush=True)
        return 1 if args.check else 2


if __name__ == "__main__":
    sys.exit(main())
