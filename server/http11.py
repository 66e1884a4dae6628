"""HTTP/1.1 for gpukb's worker, on the h11 parser: a request read to its end without a thread, then
answered from a thread.

:class:`RequestReader` takes a connection's bytes as they come (in the worker's event loop) and says
when its request is complete: the head within gunicorn's limits (``limit_request_line``,
``limit_request_fields``, ``limit_request_field_size``: checked as the bytes arrive, so an oversized
head is refused before it is buffered), then the body, chunked or not, up to ``body_buffer`` bytes.
A body declared or found larger is handed over unfinished: the app refuses it (413) and the
connection is closed. :func:`build_environ` makes the PEP 3333 environ of a complete request and
:class:`Responder` writes the app's response through h11 with bounded sends; :class:`Conn` is a client
connection of the worker's event loop and the request being read on it.
"""
from __future__ import annotations

import io
import ipaddress
import os
import socket
import sys
from email.utils import formatdate
from typing import Any
from urllib.parse import unquote_to_bytes, urlsplit

import h11
from werkzeug.exceptions import RequestEntityTooLarge

from .wire import ProtocolError, headers_too_large, line_too_long

NEED_DATA = "need data"
READY = "ready"
MAX_LINE, MAX_FIELDS, MAX_FIELD_SIZE = 8190, 32768, 8190    # gunicorn's bounds of its three limits


class Limits:
    """gunicorn's request limits as its parser reads them (out of range or 0: the bound)."""

    def __init__(self, cfg: Any = None):
        line = int(getattr(cfg, "limit_request_line", 4094))
        fields = int(getattr(cfg, "limit_request_fields", 100))
        size = int(getattr(cfg, "limit_request_field_size", 8190))
        self.line = line if 0 < line <= MAX_LINE else MAX_LINE
        self.fields = fields if 0 < fields <= MAX_FIELDS else MAX_FIELDS
        self.field_size = size if size > 0 else MAX_FIELD_SIZE
        self.head_bytes = self.line + 2 + self.fields * (self.field_size + 2) + 2


class HeadScanner:
    """Finds where a request head ends, checking each line against the limits as it arrives
    (linear in the bytes: each byte is looked at once)."""

    def __init__(self, limits: Limits):
        self.limits = limits
        self.buf = bytearray()
        self.start = 0           # leading empty lines are skipped (RFC 9112, 2.2)
        self.pos = 0             # start of the first line not looked at yet
        self.lines = 0           # request line and header lines seen
        self.has_host = False
        self.end: int | None = None

    def feed(self, data: bytes) -> bool:
        """Take bytes; True once the head is complete (then ``buf[end:]`` is what followed it)."""
        self.buf += data
        limits, buf = self.limits, self.buf
        while self.end is None:
            nl = buf.find(b"\n", self.pos)
            if nl < 0:
                break
            length = nl - self.pos - (1 if nl > self.pos and buf[nl - 1] == 0x0D else 0)
            ls, self.pos = self.pos, nl + 1
            if self.lines == 0:
                if length == 0:
                    self.start = self.pos
                    continue
                if length > limits.line:
                    raise line_too_long(limits.line)
            elif length == 0:
                self.end = self.pos
                break
            else:
                if buf[ls] in (0x20, 0x09):
                    raise ProtocolError(400, "malformed HTTP request: obsolete line folding in the headers")
                if self.lines > limits.fields or length + 2 > limits.field_size:
                    raise headers_too_large(limits.fields, limits.field_size)
                if bytes(buf[ls:ls + 5]).lower() == b"host:":
                    self.has_host = True
            self.lines += 1
        if self.end is not None:
            return True
        tail = len(buf) - self.pos
        if self.lines == 0 and tail > limits.line + 1:
            raise line_too_long(limits.line)
        if self.lines > 0 and tail + 1 > limits.field_size:
            raise headers_too_large(limits.fields, limits.field_size)
        if len(buf) > limits.head_bytes:
            raise headers_too_large(limits.fields, limits.field_size)
        return False


class RequestReader:
    """One request of a connection, from its first byte to a complete request (or a refusal)."""

    def __init__(self, limits: Limits, body_buffer: int, cfg: Any = None):
        self.limits = limits
        self.body_buffer = body_buffer
        self.cfg = cfg
        self.scanner: HeadScanner | None = HeadScanner(limits)
        self.h11 = h11.Connection(h11.SERVER, max_incomplete_event_size=limits.head_bytes)
        self.request: h11.Request | None = None
        self.body = bytearray()
        self.host_added = False
        self.partial = False          # handed over before the body ended (too large to collect)
        self.continued = False

    def feed(self, data: bytes) -> str:
        """Take bytes (``b""``: the client closed); READY when a thread can run the request.
        Raises :class:`ProtocolError` (or ``h11.RemoteProtocolError``) for a request to refuse."""
        if self.scanner is not None:
            if not data:
                raise h11.RemoteProtocolError("the client closed the connection before its request ended")
            if not self.scanner.feed(data):
                return NEED_DATA
            sc, self.scanner = self.scanner, None
            head = bytes(sc.buf[sc.start:sc.end])
            if not sc.has_host:
                # gunicorn serves an HTTP/1.1 request without Host (h11 refuses it): an empty one for
                # h11, left out of the environ, so the app sees no Host as before
                first = head.index(b"\n") + 1
                head, self.host_added = head[:first] + b"Host: \r\n" + head[first:], True
            data = head + bytes(sc.buf[sc.end:])
        self.h11.receive_data(data)
        while True:
            event = self.h11.next_event()
            if event is h11.NEED_DATA:
                return NEED_DATA
            if isinstance(event, h11.Request):
                self._check(event)
                self.request = event
                if self.declared_length() > self.body_buffer:
                    self.partial = True
                    return READY
            elif isinstance(event, h11.Data):
                self.body += event.data
                if len(self.body) > self.body_buffer:
                    self.partial = True
                    return READY
            elif isinstance(event, h11.EndOfMessage):
                return READY
            else:                           # ConnectionClosed or PAUSED before the end: nothing to answer
                raise h11.RemoteProtocolError("the client closed the connection before its request ended")

    def _check(self, req: h11.Request) -> None:
        if req.http_version not in (b"1.0", b"1.1"):
            raise ProtocolError(505, f"HTTP/{req.http_version.decode('latin-1')} is not supported; use HTTP/1.1")
        for name, value in req.headers:
            if name == b"expect" and value.lower() != b"100-continue":
                raise ProtocolError(417, f"unsupported expectation: {value[:100].decode('latin-1')}")
            if b"_" in name and getattr(self.cfg, "header_map", "drop") == "refuse":
                raise ProtocolError(400, f"malformed HTTP request: header name with an underscore: {name[:100].decode('latin-1')}")

    def declared_length(self) -> int:
        for name, value in self.request.headers if self.request is not None else ():
            if name == b"content-length":
                return int(value)
        return 0

    def wants_continue(self) -> bool:
        """Does the client wait for "100 Continue" before it sends its body (and was it not sent)?"""
        return self.request is not None and not self.continued and self.h11.they_are_waiting_for_100_continue

    def continue_bytes(self) -> bytes:
        self.continued = True
        return self.h11.send(h11.InformationalResponse(status_code=100, headers=[], reason=b"Continue"))

    def reusable(self) -> bool:
        """After the response: may the connection carry another request?"""
        return self.h11.our_state is h11.DONE and self.h11.their_state is h11.DONE

    def leftover(self) -> bytes:
        """What the client sent after this request (its next, pipelined request)."""
        return self.h11.trailing_data[0]


class UnfinishedBody(io.BytesIO):
    """The collected start of a body too large to collect: reading past it is a 413 (never a body
    silently cut short)."""

    def _more(self, size: int | None) -> None:
        if size is None or size < 0 or self.tell() + size > len(self.getbuffer()):
            raise RequestEntityTooLarge("the request body is larger than the server collects")

    def read(self, size: int | None = -1) -> bytes:
        self._more(size)
        return super().read(size)

    def read1(self, size: int | None = -1) -> bytes:
        return self.read(size)

    def readline(self, size: int | None = -1) -> bytes:
        line = super().readline(size)
        if not line.endswith(b"\n") and (size is None or size < 0 or len(line) < size):
            raise RequestEntityTooLarge("the request body is larger than the server collects")
        return line

    def readinto(self, buffer) -> int:
        self._more(len(buffer))
        return super().readinto(buffer)


def _trusted(remote: str, allowed: Any) -> bool:
    if isinstance(allowed, str):
        allowed = allowed.split(",")
    for entry in allowed or ():
        entry = str(entry).strip()
        if entry == "*":
            return True
        try:
            if ipaddress.ip_address(remote) in ipaddress.ip_network(entry, strict=False):
                return True
        except ValueError:
            continue
    return False


def build_environ(reader: RequestReader, client: Any, server: Any, cfg: Any) -> dict[str, Any]:
    """The PEP 3333 environ of a complete request (``wsgi.input``: the whole body)."""
    req = reader.request
    target = req.target.decode("latin-1")
    if target.startswith(("http://", "https://")):        # absolute form (RFC 9112, 3.2.2)
        parts = urlsplit(target)
        path, query = parts.path or "/", parts.query
    else:
        path, _, query = target.partition("?")
    path = path.partition("#")[0]
    query = query.partition("#")[0]
    remote = client if isinstance(client, str) else (client[0] if client else "")
    environ: dict[str, Any] = {
        "REQUEST_METHOD": req.method.decode("latin-1"),
        "SCRIPT_NAME": "",
        "QUERY_STRING": query,
        "RAW_URI": target,
        "SERVER_PROTOCOL": "HTTP/" + req.http_version.decode("latin-1"),
        "SERVER_SOFTWARE": "gpukb",
        "REMOTE_ADDR": str(remote),
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http",
        "wsgi.input": UnfinishedBody(bytes(reader.body)) if reader.partial else io.BytesIO(bytes(reader.body)),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": int(getattr(cfg, "workers", 1) or 1) > 1,
        "wsgi.run_once": False,
        "wsgi.input_terminated": True,
    }
    if isinstance(client, tuple) and len(client) > 1:
        environ["REMOTE_PORT"] = str(client[1])
    header_map = getattr(cfg, "header_map", "drop")
    secure = getattr(cfg, "secure_scheme_headers", {}) or {}
    trusted = bool(secure) and _trusted(str(remote), getattr(cfg, "forwarded_allow_ips", ()))
    host = None
    for name, value in req.headers:
        if name == b"host" and reader.host_added:
            continue
        if b"_" in name and header_map != "dangerous":
            continue                                   # gunicorn's header_map "drop": no HTTP_X_A from X-A/X_A
        key, text = name.decode("latin-1").upper(), value.decode("latin-1")
        if key == "HOST":
            host = text
        if trusted and key in secure:
            environ["wsgi.url_scheme"] = "https" if text == secure[key] else "http"
        if key in ("CONTENT-TYPE", "CONTENT-LENGTH"):
            environ[key.replace("-", "_")] = text
            continue
        key = "HTTP_" + key.replace("-", "_")
        environ[key] = f"{environ[key]},{text}" if key in environ else text
    if isinstance(server, tuple):
        environ["SERVER_NAME"], environ["SERVER_PORT"] = str(server[0]), str(server[1])
    else:                                              # a unix socket: the Host header, as gunicorn does
        name, _, port = (host or "").partition(":")
        environ["SERVER_NAME"], environ["SERVER_PORT"] = name, port or ("443" if environ["wsgi.url_scheme"] == "https" else "80")
    script = os.environ.get("SCRIPT_NAME", "")
    if script and path.startswith(script):
        environ["SCRIPT_NAME"], path = script, path[len(script):]
    environ["PATH_INFO"] = unquote_to_bytes(path).decode("latin-1")
    return environ


class Responder:
    """``start_response`` and the body writes of one response, through h11.

    The socket is non-blocking: what the client does not take at once waits in ``outbox``, for the
    worker's event loop to send once the app has finished, so that a client that reads slowly holds
    no thread. Only when more than ``outbox_limit`` bytes wait does the thread itself wait for the
    client, at most ``send_timeout`` seconds (then the client is dropped: OSError)."""

    def __init__(self, sock, reader: RequestReader, close: bool, outbox_limit: int = 0,
                 send_timeout: float = 30.0):
        self.sock = sock
        self.h11 = reader.h11
        self.close = close
        self.bodiless = reader.request.method == b"HEAD"
        self.status: str | None = None
        self.headers: list[tuple[str, str]] = []
        self.head_sent = False
        self.sent = 0
        self.outbox = bytearray()
        self.outbox_limit = outbox_limit
        self.send_timeout = send_timeout

    def send(self, data: bytes) -> None:
        """Send what the socket takes now and keep the rest (see the class)."""
        view = memoryview(data)
        while view and not self.outbox:
            try:
                view = view[self.sock.send(view):]
            except (BlockingIOError, InterruptedError):
                break
        self.outbox += view
        if len(self.outbox) > self.outbox_limit:
            self.flush()

    def flush(self) -> None:
        """Wait (in this thread) until the client has taken every byte that waits."""
        if self.outbox:
            self.sock.settimeout(self.send_timeout)
            try:
                self.sock.sendall(self.outbox)
            finally:
                self.sock.setblocking(False)
            self.outbox.clear()

    def start_response(self, status: str, headers, exc_info=None):
        if exc_info:
            try:
                if self.head_sent:
                    raise exc_info[1].with_traceback(exc_info[2])
            finally:
                exc_info = None
        elif self.status is not None:
            raise AssertionError("start_response called twice without exc_info")
        self.status, self.headers = status, list(headers)
        return self.write

    def write(self, data: bytes) -> None:
        if self.status is None:
            raise AssertionError("the app wrote its body before start_response")
        out = b"" if self.head_sent else self._head(empty=False)
        if data and not self.bodiless:
            out += self.h11.send(h11.Data(data=data))
            self.sent += len(data)
        if out:
            self.send(out)

    def finish(self) -> None:
        out = b"" if self.head_sent else self._head(empty=True)
        self.send(out + self.h11.send(h11.EndOfMessage()))

    def _head(self, empty: bool) -> bytes:
        code, _, reason = (self.status or "").partition(" ")
        headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in self.headers]
        names = {k.lower() for k, _ in headers}
        status = int(code)
        self.bodiless = self.bodiless or status in (204, 304) or status < 200
        if b"date" not in names:
            headers.append((b"Date", formatdate(usegmt=True).encode("ascii")))
        if empty and not names & {b"content-length", b"transfer-encoding"} and not self.bodiless:
            headers.append((b"Content-Length", b"0"))
        if self.close:
            headers.append((b"Connection", b"close"))
        out = self.h11.send(h11.Response(status_code=status, reason=reason.encode("latin-1"), headers=headers))
        self.head_sent = True
        return out


class RequestInfo:
    """What gunicorn's access log and request hooks read of a request."""

    def __init__(self, environ: dict):
        self.method = environ["REQUEST_METHOD"]
        self.uri = environ["RAW_URI"]
        self.path = environ["PATH_INFO"]
        self.query = environ["QUERY_STRING"]
        self.version = tuple(int(v) for v in environ["SERVER_PROTOCOL"][5:].split("."))
        self.headers = [(k[5:].replace("_", "-"), v) for k, v in environ.items() if k.startswith("HTTP_")]


class Conn:
    """A client connection and the request being read on it."""

    __slots__ = ("sock", "client", "server", "reader", "deadline", "started", "registered", "outbox", "keep")

    def __init__(self, sock: socket.socket, client, server, reader: RequestReader):
        self.sock, self.client, self.server, self.reader = sock, client, server, reader
        self.deadline: float | None = None
        self.started = False         # the request's first byte arrived
        self.registered = False
        self.outbox = bytearray()    # the end of a response the client has not taken yet
        self.keep = False            # may the connection be kept once the outbox is sent

    def close(self) -> None:
        """Close now, without waiting for the client: half-close, take what already arrived (so the
        kernel sends FIN rather than RST and the response is not cut), close."""
        try:
            self.sock.setblocking(False)
            self.sock.shutdown(socket.SHUT_WR)
            drained = 0
            while drained < 65536:
                chunk = self.sock.recv(65536)
                if not chunk:
                    break
                drained += len(chunk)
        except OSError:            # nothing more to read now (EAGAIN), or the client is gone
            pass
        try:
            self.sock.close()
        except OSError:
            pass
