"""Build durable-rules 2.0.28 from its PyPI sdist with gpukb's patch, as part of gpukb's own wheel.

durable-rules 2.0.28 (the last release; upstream idle since 2020) has memory bugs in its C engine
that silently break joins on `id`/`sid` and crash 3.12, and it does not import on 3.13. gpukb ships
its fix as patches/durable-rules-2.0.28.patch; gpukb's build backend (build_backend/gpukb_build.py)
calls this module so that every install route (pip install ., pipx, pip wheel, pip install git+...,
the Makefile) carries the patched engine inside the package, as ``gpukb._durable``:

    sdist (pip download, or the cache) -> sha256 check -> unpack -> patch -p1 -> stamp
    -> pip wheel (no isolation: the calling build environment's setuptools) -> cache
    -> its files moved under gpukb/_durable/ in gpukb's wheel, which then carries the
       interpreter's tag (cp313-cp313-linux_x86_64 ...) instead of py3-none-any.

The cache (GPUKB_BUILD_CACHE, default ~/.cache/gpukb/durable-rules) keeps the sdist and one built
wheel per python tag, platform and patch sha256, so a rebuild of gpukb takes seconds.

    python build_backend/durable_build.py --check [--python PY]

checks that PY imports gpukb's patched engine (exit 1 and the reason if not).
Standard library only. Needs gcc, patch and the target python's headers (Python.h).
"""
from __future__ import annotations

import argparse
import base64
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
import zipfile
from pathlib import Path

NAME = "durable-rules"
VERSION = "2.0.28"
SDIST_SHA256 = "053b26f5e48d312d4fa27995243f954671be6eece477f150c059c364eb4d7d61"
SDIST_GLOB = ("durable_rules-2.0.28.tar.gz", "durable-rules-2.0.28.tar.gz")
ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PATCH = ROOT / "patches" / "durable-rules-2.0.28.patch"
DEFAULT_CACHE = Path(os.environ.get("GPUKB_BUILD_CACHE")
                     or Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "gpukb" / "durable-rules")
MARKER_RE = re.compile(r'^\+GPUKB_PATCHED = "([^"]+)"\s*$', re.M)

PREFIX = "gpukb build:"


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
    """Run cmd; on failure raise BuildError with its output. Returns combined output.

    The child gets this process's environment without the ``_PYPROJECT_HOOKS_*`` variables that
    pip sets for gpukb's own build hooks: a nested pip that inherits them would look for the next
    package's build backend in gpukb's ``build_backend/`` folder.
    """
    base = dict(os.environ if env is None else env)
    env = {k: v for k, v in base.items() if not k.startswith("_PYPROJECT_HOOKS_")}
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
        f.write(f'GPUKB_PATCH_SHA256 = "{patch_sha}"  # written by build_backend/durable_build.py\n')
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



_CHECK = r"""
import importlib, json, sys
out = {}
try:
    durable = importlib.import_module("gpukb._durable")
    importlib.import_module("gpukb._durable.engine")
    out["file"] = durable.__file__
    out["label"] = getattr(durable, "GPUKB_PATCHED", None)
    out["sha"] = getattr(durable, "GPUKB_PATCH_SHA256", None)
except Exception as e:
    out["error"] = "%s: %s" % (type(e).__name__, e)
print(json.dumps(out))
"""


def check(python: str, label: str, patch_sha: str) -> tuple[bool, str]:
    """Does `python` import gpukb's build of this patch? -> (ok, message)"""
    proc = subprocess.run([python, "-c", _CHECK], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
    if proc.returncode != 0:
        return False, f"cannot run {python}: {proc.stderr.strip()}"
    info = json.loads(proc.stdout.strip().splitlines()[-1])
    if "error" in info:
        return False, f"gpukb's rule engine does not import in {python}: {info['error']}"
    if info["label"] != label:
        return False, (f"{info['file']} carries GPUKB_PATCHED={info['label']!r}, the patch says "
                       f"{label!r}; reinstall gpukb")
    if info["sha"] != patch_sha:
        return False, (f"{info['file']} was built from a patch with sha256 {info['sha']}, the patch "
                       f"file now has {patch_sha}; reinstall gpukb")
    return True, f"{info['file']} is gpukb's patched build ({label}, patch {patch_sha[:16]}...)"


def patch_label(patch_file: Path) -> str:
    m = MARKER_RE.search(patch_file.read_text(encoding="utf-8"))
    if not m:
        raise BuildError(f"{patch_file} does not add a GPUKB_PATCHED marker")
    return m.group(1)


def engine_wheel(python: str = sys.executable, cache: Path = DEFAULT_CACHE, patch_file: Path = DEFAULT_PATCH,
                 rebuild: bool = False) -> Path:
    """The patched durable-rules wheel for `python`: from the cache, or built now (see the module doc)."""
    patch_file = patch_file.resolve()
    if not patch_file.is_file():
        raise BuildError(f"patch file {patch_file} not found")
    patch_sha = sha256_of(patch_file)
    label = patch_label(patch_file)
    info = probe(python)
    say(f"target: python {info['version']} ({info['tag']}, {info['platform']}) at {python}")
    preflight(info)
    cache = Path(cache).resolve()
    key = f"{info['tag']}-{info['platform']}-{patch_sha[:16]}"
    wheel_dir = cache / "wheels" / key
    cached = sorted(wheel_dir.glob("durable_rules-2.0.28-*.whl")) if wheel_dir.is_dir() else []
    meta_file = wheel_dir / "build.json"
    try:
        meta_ok = json.loads(meta_file.read_text()).get("patch_sha256") == patch_sha
    except (OSError, ValueError):
        meta_ok = False
    if len(cached) == 1 and meta_ok and not rebuild:
        say(f"engine: reusing cached {cached[0]} (key {key})")
        return cached[0]
    sdist = get_sdist(python, cache)
    check_sdist(sdist)
    with tempfile.TemporaryDirectory(prefix="gpukb-durable-") as tmp:
        tmp = Path(tmp)
        tree = unpack(sdist, tmp / "src")
        apply_patch(tree, patch_file, patch_sha, label)
        built = build_wheel(python, tree, tmp / "dist")
        staging = cache / "wheels" / f".{key}.{os.getpid()}.tmp"
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
        try:
            os.replace(staging, wheel_dir)
        except OSError:          # another build finished first: use its wheel
            shutil.rmtree(staging, ignore_errors=True)
        (wheel,) = sorted(wheel_dir.glob("durable_rules-2.0.28-*.whl"))
        say(f"cache: {wheel}")
        return wheel


# -- vendoring into gpukb's wheel ---------------------------------------------------------------------

VENDOR = "gpukb/_durable/"
# durable/engine.py imports its extension as a top-level module; inside gpukb it is a sibling
_ENGINE_IMPORT = (b"import durable_rules_engine\n", b"from . import durable_rules_engine\n")


def _vendored_name(name: str) -> str | None:
    """Where a file of the durable-rules wheel goes inside gpukb's wheel (None: left out)."""
    top, _, rest = name.partition("/")
    if top == "durable":
        return VENDOR + rest
    if top.startswith("durable_rules_engine.") and not rest:
        return VENDOR + top
    if top.endswith(".dist-info") and rest == "licenses/LICENSE":
        return VENDOR + "LICENSE"
    return None


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def vendor_into(gpukb_wheel: Path, engine: Path, package_init: bytes | None = None) -> Path:
    """Write gpukb's wheel again with the patched engine under gpukb/_durable/; return its new path.

    The result carries the engine wheel's interpreter, ABI and platform tags; the pure wheel is removed.
    ``package_init``: the text of ``gpukb/__init__.py`` for a wheel that lacks it (an editable wheel maps
    the package to the checkout, but the engine it carries makes site-packages' ``gpukb`` the package
    Python finds first, so that directory needs the package's ``__init__`` too).
    """
    parts = engine.name[:-len(".whl")].split("-")
    tag = "-".join(parts[-3:])
    own = gpukb_wheel.name[:-len(".whl")].split("-")
    out = gpukb_wheel.with_name("-".join(own[:-3] + [tag]) + ".whl")
    files: dict[str, bytes] = {}
    with zipfile.ZipFile(gpukb_wheel) as zin:
        dist_info = next(n.split("/")[0] for n in zin.namelist() if n.split("/")[0].endswith(".dist-info"))
        for n in zin.namelist():
            if n in (f"{dist_info}/RECORD", f"{dist_info}/WHEEL") or n.endswith("/"):
                continue
            files[n] = zin.read(n)
        wheel_meta = zin.read(f"{dist_info}/WHEEL").decode()
    with zipfile.ZipFile(engine) as zeng:
        for n in zeng.namelist():
            target = _vendored_name(n)
            if target is None:
                continue
            data = zeng.read(n)
            if target == VENDOR + "engine.py":
                if _ENGINE_IMPORT[0] not in data:
                    raise BuildError(f"{engine.name}: durable/engine.py no longer imports durable_rules_engine "
                                     "as gpukb expects")
                data = data.replace(*_ENGINE_IMPORT)
            files[target] = data
    if package_init is not None:
        files.setdefault("gpukb/__init__.py", package_init)
    if VENDOR + "engine.py" not in files or not any(n.startswith(VENDOR + "durable_rules_engine.") for n in files):
        raise BuildError(f"{engine.name} lacks durable/engine.py or the compiled durable_rules_engine")
    lines = [ln for ln in wheel_meta.splitlines() if not ln.startswith(("Root-Is-Purelib:", "Tag:"))]
    lines += ["Root-Is-Purelib: false", f"Tag: {tag}"]
    files[f"{dist_info}/WHEEL"] = ("\n".join(lines) + "\n").encode()
    record = [_record_line(n, d) for n, d in files.items()] + [f"{dist_info}/RECORD,,"]
    tmp = out.with_suffix(".tmp")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zout:
        for n, d in files.items():
            zout.writestr(n, d)
        zout.writestr(f"{dist_info}/RECORD", "\n".join(record) + "\n")
    os.replace(tmp, out)
    if out != gpukb_wheel:
        gpukb_wheel.unlink()
    say(f"wheel: {out.name} carries the patched engine under {VENDOR}")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", default=sys.executable, help="the interpreter to check (default: this one)")
    ap.add_argument("--patch", type=Path, default=DEFAULT_PATCH, help="the patch the engine must carry")
    ap.add_argument("--check", action="store_true", required=True,
                    help="check that gpukb's patched engine imports in --python; exit 1 if not")
    args = ap.parse_args(argv)
    try:
        patch_file = args.patch.resolve()
        ok, msg = check(args.python, patch_label(patch_file), sha256_of(patch_file))
    except BuildError as e:
        print(f"{PREFIX} ERROR: {e}", file=sys.stderr, flush=True)
        return 2
    say(("ok: " if ok else "NOT OK: ") + msg)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
