"""gpukb's private cache directory, and what binds a cached file to the code and data it came from.

Compiled snapshots and the serving copies of a KB live in ``$GPUKB_CACHE_DIR``, else
``$XDG_CACHE_HOME/gpukb``, else ``~/.cache/gpukb``: a directory owned by the current user with mode
0700 (created so; an existing one with other owners or wider modes is refused). It also holds a
random key (``key``, mode 0600) with which snapshots are signed, so a file another user planted or
edited is never mistaken for one gpukb wrote.
"""
from __future__ import annotations

import hashlib
import hmac
import logging
import os
import secrets
import stat
import tempfile
from functools import lru_cache
from pathlib import Path

from .errors import Issue, ValidationError

log = logging.getLogger("gpukb.cache")
ENGINE = Path(__file__).resolve().parents[1]
KEY_BYTES = 32


class UnsafeCache(ValidationError):
    """The cache directory or a file in it is not private to this user."""


def default_dir() -> Path:
    """Where the cache lives (not created)."""
    if os.environ.get("GPUKB_CACHE_DIR"):
        return Path(os.environ["GPUKB_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "gpukb"


def check_private(path: Path, is_dir: bool) -> None:
    """Refuse ``path`` unless it is ours, not a symlink, and closed to group and others."""
    st = os.lstat(path)
    kind_ok = stat.S_ISDIR(st.st_mode) if is_dir else stat.S_ISREG(st.st_mode)
    problem = None
    if stat.S_ISLNK(st.st_mode) or not kind_ok:
        problem = f"is not a {'directory' if is_dir else 'regular file'} (or is a symlink)"
    elif st.st_uid != os.getuid():
        problem = f"belongs to uid {st.st_uid}, not to this user ({os.getuid()})"
    elif st.st_mode & (0o077 if is_dir else 0o022):
        problem = f"has mode {stat.S_IMODE(st.st_mode):o}; it must not be open to other users"
    if problem:
        raise UnsafeCache(f"{path} {problem}", [Issue(problem, str(path))])


def private_dir(path: Path | None = None) -> Path:
    """The cache directory (or ``path``), created with mode 0700 and checked to be private."""
    d = Path(path) if path is not None else default_dir()
    try:
        d.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        d.mkdir(mode=0o700)
    except FileExistsError:
        pass
    except OSError as exc:
        raise UnsafeCache(f"cannot create the cache directory {d}: {exc.strerror}",
                          [Issue(f"cannot create it: {exc.strerror}; set GPUKB_CACHE_DIR", str(d))]) from None
    st = os.lstat(d)
    if stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o022 and st.st_mode & 0o077:
        os.chmod(d, 0o700)       # ours and never writable by others: only close it
    check_private(d, is_dir=True)
    return d


def subdir(name: str, root: Path | None = None) -> Path:
    """A private subdirectory of the cache."""
    return private_dir(private_dir(root) / name)


def secret_key(root: Path | None = None) -> bytes:
    """The cache's signing key, created on first use (mode 0600, owner checked on every read)."""
    path = private_dir(root) / "key"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(fd, "wb") as f:
            f.write(secrets.token_bytes(KEY_BYTES))
            f.flush()
            os.fsync(f.fileno())
    check_private(path, is_dir=False)
    if stat.S_IMODE(os.lstat(path).st_mode) & 0o044:
        raise UnsafeCache(f"{path} is readable by other users", [Issue("readable by other users", str(path))])
    key = path.read_bytes()
    if len(key) != KEY_BYTES:
        raise UnsafeCache(f"{path} is not a key gpukb wrote", [Issue("wrong length", str(path))])
    return key


def sign(data: bytes, root: Path | None = None) -> str:
    """The hex HMAC-SHA256 of ``data`` under the cache's key."""
    return hmac.new(secret_key(root), data, hashlib.sha256).hexdigest()


def verify(data: bytes, mac: str, root: Path | None = None) -> bool:
    return hmac.compare_digest(sign(data, root), mac)


@lru_cache(maxsize=1)
def code_digest() -> str:
    """A digest of the engine's Python source: derivations cached by one version of the code are not
    reused by another."""
    h = hashlib.sha256()
    for p in sorted(ENGINE.rglob("*.py")):
        h.update(str(p.relative_to(ENGINE)).encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def tree_digest(kb_dir: str | Path, rules_dir: str | Path) -> str:
    """A digest of every file's path and content under the KB and rules directories, and of the code
    (see :func:`code_digest`): what a snapshot or a serving generation is bound to."""
    from .files import read_bytes, tree_files
    h = hashlib.sha256(b"gpukb-snapshot\0" + code_digest().encode())
    for label, root in (("kb", Path(kb_dir)), ("rules", Path(rules_dir))):
        for rel, real in tree_files(root):
            h.update(f"{label}/{rel}".encode() + b"\0" + read_bytes(real, real.parent) + b"\0")
    return h.hexdigest()


def fallback_dir() -> Path:
    """A fresh private directory for this process when the configured cache cannot be used."""
    return Path(tempfile.mkdtemp(prefix="gpukb-"))
