"""The gunicorn worker gpukb serves with: threads that only ever see a request that has arrived.

:class:`GpukbWorker` is gunicorn's threaded worker (``gthread``) with these changes:

* a connection is read in the worker's event loop (non-blocking, a selector), not in a thread, until
  its request head and a body of up to BODY_BUFFER bytes are complete; only then is it handed to a
  thread. Idle clients, and clients that send their request a byte at a time, never hold a thread:
  an idle connection is closed after ``keepalive`` seconds, a request that has not fully arrived
  READ_TIMEOUT seconds after its first byte is answered 408 and closed. A head larger than
  HEAD_BUFFER or a chunked body is read by the thread under the same deadline (:mod:`server.wire`);
* every send is bounded (SEND_TIMEOUT): a client that does not read its response is dropped;
* on SIGTERM the worker takes the connections waiting in the listen backlog and closes its listening
  sockets before it drains: requests that arrived are answered, new connections are refused (not
  queued and then reset when the worker exits);
* a finished connection is closed without waiting for the client (gunicorn lingers up to 2 s on the
  event loop's thread, which a client can use to freeze the worker);
* errors gunicorn answers itself (request line over ``limit_request_line`` -> 414, too many or too
  large headers -> 431, a malformed request -> 400, too slow -> 408) get the API's JSON error shape
  and security headers instead of gunicorn's HTML page, and log lines escape control characters.

Why not a maintained server as it comes (each tried against ``tests/test_hostile_server.py``,
``tests/test_hardening_server.py`` and ``tests/test_serve_shutdown.py``, 2026-12-05): gunicorn's own
``gthread`` with documented settings lets 40 idle or trickling clients starve ``/health`` and answers its
own errors as HTML; waitress and gunicorn 27's ``asgi`` worker (through a2wsgi) keep threads free but
never answer a slow request 408 and send their protocol errors as plain text without the security
headers; uvicorn does the same and replaces the gunicorn master that ``server.rollout`` builds on. The
next step that needs no private class is a worker on ``gunicorn.workers.base.Worker`` (the class
gunicorn's documentation names for custom workers) with the h11 parser; until then gunicorn is pinned
below 28 because this class extends ``ThreadWorker`` and ``TConn``.
"""
from __future__ import annotations

import errno
import logging
import re
import selectors
import socket
import time
from collections import deque
from functools import partial

from gunicorn.workers.gthread import TConn, ThreadWorker

from .logsafe import printable
from .wire import DeadlineSocket, SlowRequest, classify, error_bytes

READ_TIMEOUT = 15.0          # seconds for a request to arrive once its first byte is there
SEND_TIMEOUT = 30.0          # seconds for a client to take a response
HEAD_BUFFER = 32 * 1024      # request head bytes collected in the event loop
BODY_BUFFER = 257 * 1024     # body bytes collected there (the API accepts bodies up to 256 KiB)
BACKLOG_TAKEN = 2048         # connections taken from the listen backlog at shutdown, at most
log = logging.getLogger("gpukb.http")
_LENGTH = re.compile(rb"\ncontent-length[ \t]*:[ \t]*(\d{1,15})[ \t]*\r?(?:\n|$)")


def request_complete(buf: bytes | bytearray) -> bool:
    """Has ``buf`` (the start of a connection's input) a whole request the thread can parse without
    waiting, or so much that the thread should take over (the parser then enforces the limits)?"""
    ends = [i for i in (buf.find(b"\r\n\r\n"), buf.find(b"\n\n")) if i >= 0]
    if not ends:
        return len(buf) > HEAD_BUFFER
    end = min(ends)
    head = bytes(buf[:end]).lower()
    start = end + (4 if buf[end:end + 4] == b"\r\n\r\n" else 2)
    if b"\ntransfer-encoding" in head:
        # a chunked body is collected here too, up to BODY_BUFFER: complete at its last (empty) chunk
        body = bytes(buf[start:])
        return len(body) > BODY_BUFFER or body.startswith(b"0\r\n\r\n") or b"\r\n0\r\n\r\n" in body
    m = _LENGTH.search(head)
    length = int(m.group(1)) if m else 0
    if length > BODY_BUFFER:
        return True
    return len(buf) >= start + length


def wants_continue(buf: bytes | bytearray) -> bool:
    """Does the request head in ``buf`` wait for "100 Continue" before it sends its body?"""
    end = min([i for i in (buf.find(b"\r\n\r\n"), buf.find(b"\n\n")) if i >= 0], default=-1)
    return end >= 0 and _EXPECT.search(bytes(buf[:end]).lower()) is not None


_EXPECT = re.compile(rb"\nexpect[ \t]*:[ \t]*100-continue")
_EXPECT_LINE = re.compile(rb"\r?\nexpect[ \t]*:[^\r\n]*", re.IGNORECASE)


class GpukbConn(TConn):
    """gunicorn's connection, with the bytes the event loop collected and a close that never waits."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.inbuf = bytearray()
        self.handoff = b""
        self.continued = False

    @property
    def raw(self) -> socket.socket:
        return self.sock._sock if isinstance(self.sock, DeadlineSocket) else self.sock

    def close(self, graceful: bool = False) -> None:
        """Close now. Graceful: half-close and drain what already arrived without waiting, so the
        kernel sends FIN rather than RST and the response is not cut."""
        raw = self.raw
        if graceful:
            try:
                raw.shutdown(socket.SHUT_WR)
                raw.setblocking(False)
                drained = 0
                while drained < 65536:
                    chunk = raw.recv(65536)
                    if not chunk:
                        break
                    drained += len(chunk)
            except OSError:       # nothing more to read now (EAGAIN), or the client is gone
                pass
        try:
            raw.close()
        except OSError:
            pass


class GpukbWorker(ThreadWorker):
    """gunicorn's threaded worker, hardened against idle and slow clients (see the module docstring)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.arriving: deque = deque()     # connections whose request has started, by deadline

    # -- the event loop: collect each request before a thread sees it ----------------------------------
    def accept(self, listener) -> None:
        self._accept_one(listener)

    def _accept_one(self, listener) -> bool:
        """Accept one connection if one waits (False: none did)."""
        try:
            client, addr = listener.accept()
        except OSError as e:
            if e.errno not in (errno.EAGAIN, errno.ECONNABORTED, errno.EWOULDBLOCK):
                raise
            return e.errno == errno.ECONNABORTED       # that one is gone, the next may wait
        self.nr_conns += 1
        client.setblocking(False)
        conn = GpukbConn(self.cfg, DeadlineSocket(client, READ_TIMEOUT, SEND_TIMEOUT), addr, listener.getsockname())
        conn.timeout = time.monotonic() + max(float(self.cfg.keepalive or 0), 1.0)   # silent this long: closed
        self.pending_conns.append(conn)
        self.poller.register(conn.raw, selectors.EVENT_READ, partial(self._on_input, conn))
        return True

    # -- shutdown: stop listening first, then drain --------------------------------------------------
    def set_accept_enabled(self, enabled: bool) -> None:
        super().set_accept_enabled(enabled)
        if not enabled and not self.alive:      # gunicorn's shutdown path (SIGTERM): before draining
            self.stop_listening()

    def stop_listening(self) -> None:
        """Take the connections already waiting in the listen backlog (their requests arrived before
        the shutdown: they are answered, with "Connection: close"), then close this worker's listening
        sockets, so that once the master and every worker have closed theirs a new connection is
        refused instead of queued in a backlog nobody reads (and reset when the last worker exits).
        Only this process's descriptors are closed (never shutdown()): in a rollout, the workers of
        the next generation listen on the same socket."""
        if getattr(self, "_stopped_listening", False):
            return
        self._stopped_listening = True
        for listener in self.sockets:
            try:
                listener.setblocking(False)
                for _ in range(BACKLOG_TAKEN):
                    if not self._accept_one(listener):
                        break
            except OSError:
                pass
            try:
                listener.close()
            except OSError:
                pass

    def on_client_socket_readable(self, conn, client) -> None:
        """A kept-alive connection sends its next request: collect it in the loop too."""
        self.poller.unregister(client)
        self.keepalived_conns.remove(conn)
        if not isinstance(conn, GpukbConn):
            self.enqueue_req(conn)
            return
        conn.inbuf = bytearray()
        self._start_arriving(conn)
        self.poller.register(conn.raw, selectors.EVENT_READ, partial(self._on_input, conn))
        self._on_input(conn, conn.raw)

    def _start_arriving(self, conn: GpukbConn) -> None:
        conn.timeout = time.monotonic() + READ_TIMEOUT
        self.arriving.append(conn)

    def _on_input(self, conn: GpukbConn, _fileobj) -> None:
        try:
            data = conn.raw.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if conn in self.pending_conns:            # first bytes of a new connection
            self.pending_conns.remove(conn)
            if data:
                self._start_arriving(conn)
        if not data:                              # the client closed (or failed) before a whole request
            self._forget(conn)
            conn.close()
            return
        conn.inbuf += data
        if not conn.continued and wants_continue(conn.inbuf):
            # answered here, so that a client waiting for it holds no thread while its body comes
            conn.continued = True
            self._send_quietly(conn.raw, b"HTTP/1.1 100 Continue\r\n\r\n")
            conn.raw.setblocking(False)
        if request_complete(conn.inbuf):
            if conn.continued:           # the thread's parser must not answer "100 Continue" again
                head_end = conn.inbuf.find(b"\r\n\r\n")
                if head_end >= 0:
                    conn.inbuf = bytearray(_EXPECT_LINE.sub(b"", bytes(conn.inbuf[:head_end]), count=1)) + conn.inbuf[head_end:]
                conn.continued = False
            self.poller.unregister(conn.raw)
            self.arriving.remove(conn)
            conn.handoff, conn.inbuf = bytes(conn.inbuf), bytearray()
            conn.data_ready = True
            self.enqueue_req(conn)

    def _forget(self, conn) -> None:
        for q in (self.pending_conns, self.arriving):
            try:
                q.remove(conn)
            except ValueError:
                pass
        try:
            self.poller.unregister(conn.raw)
        except (KeyError, ValueError, OSError):
            pass
        self.nr_conns -= 1

    def murder_pending(self) -> None:
        super().murder_pending()
        now = time.monotonic()
        while self.arriving and self.arriving[0].timeout <= now:
            conn = self.arriving.popleft()
            try:
                self.poller.unregister(conn.raw)
            except (KeyError, ValueError, OSError):
                pass
            self.nr_conns -= 1
            self._send_quietly(conn.raw, error_bytes(*classify(SlowRequest(READ_TIMEOUT))))
            log.warning("refused a request from %s: 408 (it did not arrive within %g s)",
                        printable(_ip(conn.client)), READ_TIMEOUT)
            conn.close()

    # -- the thread ---------------------------------------------------------------------------------
    def handle(self, conn):
        sock = conn.sock
        if isinstance(conn, GpukbConn) and conn.handoff:
            conn.raw.setblocking(True)
            conn.init()
            conn.parser.unreader.unread(conn.handoff)
            conn.handoff = b""
        if isinstance(sock, DeadlineSocket):
            sock.start_request()
        try:
            return super().handle(conn)
        finally:
            if isinstance(sock, DeadlineSocket):
                sock.deadline = None

    def handle_error(self, req, client, addr, exc) -> None:
        status, reason, message = classify(exc, self.cfg)
        if status >= 500:
            log.error("error while reading a request from %s: %s", printable(_ip(addr)), printable(repr(exc)[:300]),
                      exc_info=exc)
        else:
            log.warning("refused a request from %s: %s %s (%s)", printable(_ip(addr)), status, printable(message),
                        printable(type(exc).__name__))
        raw = client._sock if isinstance(client, DeadlineSocket) else client
        self._send_quietly(raw, error_bytes(status, reason, message), 1.0)

    @staticmethod
    def _send_quietly(raw: socket.socket, data: bytes, timeout: float = 0.0) -> None:
        try:
            raw.settimeout(timeout)
            raw.sendall(data)
        except Exception:   # noqa: BLE001 - the client is gone or not reading: nothing to tell it
            pass


def _ip(addr) -> str:
    return str(addr[0]) if isinstance(addr, tuple) and addr else str(addr or "")
