"""Reading KB and rule files as untrusted data: regular files only, inside their directory, bounded.

Everything gpukb reads from a KB or rules directory goes through here, so that a FIFO cannot hang a
load, a device or a huge file cannot exhaust memory, a symlink cannot pull in a file from elsewhere,
and a byte that is not UTF-8 is reported with its file, byte offset and line instead of a traceback.
"""
from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from .errors import BadInput, Issue, ValidationError

MAX_FILE_BYTES = 32 * 1024 * 1024      # one KB or rule file; the bundled ones are under 60 KB
MAX_TREE_FILES = 100_000               # files under one KB or rules directory


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISDIR, "a directory")):
        if test(mode):
            return name
    return "not a regular file"


def _inside(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
        return True
    except ValueError:
        return False


def resolve_inside(path: str | Path, root: str | Path, display: str | None = None) -> Path:
    """``path`` with symlinks resolved; a :class:`ValidationError` when that leaves ``root``."""
    name = display or str(path)
    real_root = Path(root).resolve()
    real = Path(path).resolve()
    if not _inside(real, real_root):
        msg = f"{name} is outside {root} (it resolves to {real}); KB and rule files must stay inside their directory"
        raise ValidationError(msg, [Issue(msg, name)])
    return real


def read_bytes(path: str | Path, root: str | Path | None = None, display: str | None = None,
               max_bytes: int = MAX_FILE_BYTES, what: str = "a KB or rule file") -> bytes:
    """The bytes of a regular file under ``root`` (default: the file's own directory).

    Refused with a :class:`ValidationError` naming the file: a path that resolves outside ``root``,
    anything but a regular file (FIFO, socket, device, directory), a file larger than ``max_bytes``.
    The file is opened without blocking and without following a final symlink, then checked with
    ``fstat``, so it cannot be swapped for a FIFO between the check and the read. ``what`` names the kind
    of file in the size refusal.
    """
    p = Path(path)
    name = display or str(p)
    real = resolve_inside(p, root if root is not None else p.parent, name)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(real, flags)
    except FileNotFoundError:
        raise ValidationError(f"{name}: file not found", [Issue("file not found", name)]) from None
    except OSError as exc:
        why = "a symlink changed while reading" if exc.errno == errno.ELOOP else exc.strerror or str(exc)
        raise ValidationError(f"{name}: cannot be read: {why}", [Issue(f"cannot be read: {why}", name)]) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            msg = f"{_kind(st.st_mode)}, not a regular file; only regular files are read"
            raise ValidationError(f"{name}: {msg}", [Issue(msg, name)])
        if st.st_size > max_bytes:
            msg = f"{st.st_size} bytes, more than the {max_bytes} bytes {what} may have"
            raise ValidationError(f"{name}: {msg}", [Issue(msg, name)])
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=True) as f:
            fd = -1
            data = f.read(max_bytes + 1)
        if len(data) > max_bytes:     # grew while being read
            msg = f"more than the {max_bytes} bytes {what} may have"
            raise ValidationError(f"{name}: {msg}", [Issue(msg, name)])
        return data
    finally:
        if fd >= 0:
            os.close(fd)


def decode_utf8(data: bytes, name: str) -> str:
    """``data`` as UTF-8 text; a :class:`ValidationError` naming the byte offset and line otherwise."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        bad = data[exc.start:exc.start + 4].hex(" ")
        msg = f"not UTF-8 text: byte offset {exc.start} (line {line}) starts an invalid sequence ({bad}): {exc.reason}"
        raise ValidationError(f"{name}: not UTF-8", [Issue(msg, name, line)]) from None


def read_text(path: str | Path, root: str | Path | None = None, display: str | None = None,
              max_bytes: int = MAX_FILE_BYTES) -> str:
    """The UTF-8 text of a regular file under ``root`` (see :func:`read_bytes`)."""
    name = display or str(path)
    return decode_utf8(read_bytes(path, root, name, max_bytes), name)


def read_input_text(path: str | Path, max_bytes: int, what: str = "a text to check") -> str:
    """The UTF-8 text of a file a user hands gpukb (``gpukb check --file``, ``gpukb ingest``): the same refusals as
    :func:`read_text` (missing, not a regular file, too large, not UTF-8 with its offset and line, and
    empty), as a :class:`BadInput` naming the file, since the mistake is in the request, not in a KB."""
    name = str(path)
    try:
        text = decode_utf8(read_bytes(path, None, name, max_bytes, what), name)
    except ValidationError as exc:
        raise BadInput(exc.message, exc.issues) from None
    if not text.strip():
        raise BadInput(f"{name}: the file is empty", [Issue("the file is empty", name)])
    return text


def tree_files(root: str | Path, display: str | None = None) -> list[tuple[str, Path]]:
    """Every file under ``root`` as (relative path, real path), sorted; refuses what a KB may not hold.

    A :class:`ValidationError` lists every entry that is not a regular file (FIFO, socket, device), a
    symlink that leads outside ``root`` or to a directory, and a tree with more than MAX_TREE_FILES
    files. Nothing is opened: only ``lstat`` and ``resolve``.
    """
    top = Path(root)
    label = display or str(top)
    real_root = top.resolve()
    if not real_root.is_dir():
        raise ValidationError(f"{label}: directory not found", [Issue("directory not found", label)])
    out: list[tuple[str, Path]] = []
    issues: list[Issue] = []
    for dirpath, dirnames, filenames in os.walk(real_root, followlinks=False):
        here = Path(dirpath)
        for name in sorted(dirnames + filenames):
            p = here / name
            rel = str(p.relative_to(real_root))
            shown = f"{label}/{rel}"
            try:
                st = os.lstat(p)
            except OSError as exc:
                issues.append(Issue(f"cannot be read: {exc.strerror}", shown))
                continue
            if stat.S_ISDIR(st.st_mode):
                continue
            if stat.S_ISLNK(st.st_mode):
                target = p.resolve()
                if not _inside(target, real_root):
                    issues.append(Issue(f"a symlink to {target}, outside {label}; KB and rule files must stay "
                                        "inside their directory", shown))
                elif not target.exists():
                    issues.append(Issue("a symlink to a file that does not exist", shown))
                elif not stat.S_ISREG(os.stat(target).st_mode):
                    issues.append(Issue(f"a symlink to {_kind(os.stat(target).st_mode)}; only regular files "
                                        "may be linked", shown))
                else:
                    out.append((rel, target))
                continue
            if not stat.S_ISREG(st.st_mode):
                issues.append(Issue(f"{_kind(st.st_mode)}, not a regular file; a KB or rules directory holds "
                                    "regular files only", shown))
                continue
            out.append((rel, p))
            if len(out) > MAX_TREE_FILES:
                raise ValidationError(f"{label} holds more than {MAX_TREE_FILES} files",
                                      [Issue(f"more than {MAX_TREE_FILES} files", label)])
    if issues:
        raise ValidationError(f"{label}: {len(issues)} entr{'y' if len(issues) == 1 else 'ies'} that cannot be "
                              "part of a KB", issues)
    out.sort()
    return out
