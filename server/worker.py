"""The gunicorn worker gpukb serves with: threads that only ever see a request that has arrived.

:class:`GpukbWorker` extends ``gunicorn.workers.base.Worker`` (the class gunicorn documents for
custom workers) and reads HTTP/1.1 with the h11 parser (:mod:`server.http11`):

* every connection is read in the worker's event loop (non-blocking, a selector) until its request is
  complete, head and body (chunked or not, up to BODY_BUFFER bytes); only then does one of the
  ``threads`` threads run the app on it, with ``wsgi.input`` holding the whole body. Idle clients,
  and clients that send their request a byte at a time, never hold a thread: an idle connection is
  closed after ``keepalive`` seconds, a request that has not fully arrived READ_TIMEOUT seconds after
  its first byte is answered 408 and closed. ``Expect: 100-continue`` is answered in the loop too;
* a response the client does not take at once is left to the loop to send (up to OUTBOX_RESPONSE
  bytes per response and OUTBOX_TOTAL per worker; beyond that the thread waits for the client): a
  client that reads slowly holds no thread. A client that takes no part of its response for
  SEND_TIMEOUT seconds is dropped;
* on SIGTERM the worker takes the connections waiting in the listen backlog and closes its listening
  sockets before it drains: requests that arrived are answered (with ``Connection: close``), new
  connections are refused (not queued and then reset when the worker exits). It does the same, without
  a signal, when another KB generation is named to serve (:mod:`server.switch`), and then leaves when
  the master lowers the worker count (TTOU) or after ``graceful_timeout``;
* liveness probes (PROBE_PATHS) have a thread of their own, so that they never queue behind
  expensive requests: a probe says whether the worker answers, not how long its queue is;
* a finished connection is closed without waiting for the client;
* requests it refuses itself (request line over ``limit_request_line`` -> 414, more than
  ``limit_request_fields`` headers or one over ``limit_request_field_size`` -> 431, malformed -> 400,
  too slow -> 408) get the API's JSON error shape and security headers (:mod:`server.wire`), and
  its log lines escape control characters. gunicorn's ``keepalive``, ``worker_connections``,
  ``max_requests``, ``graceful_timeout``, ``timeout`` (the heartbeat), ``header_map``,
  ``forwarded_allow_ips``/``secure_scheme_headers``, access log and request hooks apply as to its own
  workers. It speaks plain HTTP/1.x only: TLS and HTTP/2 belong to a reverse proxy in front.

Why a worker of its own: against ``tests/test_hostile_server.py``, ``tests/test_hardening_server.py`` and
``tests/test_serve_shutdown.py``, gunicorn's ``gthread`` with documented settings lets 40 idle or
trickling clients starve ``/health`` and answers its own errors as HTML; waitress and gunicorn's
``asgi`` worker (through a2wsgi) keep threads free but never answer a slow request 408 and send their
protocol errors as plain text without the security headers; uvicorn does the same and replaces the
gunicorn master whose hooks and signals ``server.rollout`` uses.
"""
from __future__ import annotations

import errno
import heapq
import itertools
import logging
import os
import queue
import selectors
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from functools import partial

import h11
from gunicorn.workers.base import Worker

from .http11 import READY, Conn, Limits, RequestInfo, RequestReader, Responder, build_environ
from .logsafe import printable
from .switch import Follower, mark
from .wire import ProtocolError, classify, error_bytes, slow_request

READ_TIMEOUT = 15.0          # seconds for a request to arrive once its first byte is there
SEND_TIMEOUT = 30.0          # seconds for a client to take each part of a response
BODY_BUFFER = 257 * 1024     # body bytes collected in the loop (the API accepts bodies up to 256 KiB)
OUTBOX_RESPONSE = 4 << 20    # bytes of one response the loop sends for its thread, at most
OUTBOX_TOTAL = 64 << 20      # bytes of responses waiting for slow clients in one worker, at most
PROBE_PATHS = frozenset({b"/health"})   # answered by their own thread, never queued behind others
BACKLOG_TAKEN = 2048         # connections taken from the listen backlog at shutdown, at most
STOP_LINGER = 2.0            # seconds an idle connection stays open once the worker stops
log = logging.getLogger("gpukb.http")


def request_complete(buf: bytes | bytearray, cfg=None) -> bool:
    """Would the event loop stop reading after ``buf`` (a connection's first bytes): is the request
    complete (or its body too large to collect), or is it refused?"""
    try:
        return RequestReader(Limits(cfg), BODY_BUFFER, cfg).feed(bytes(buf)) is READY
    except (ProtocolError, h11.RemoteProtocolError):
        return True


class GpukbWorker(Worker):
    """gunicorn worker: an event loop that reads requests, a thread pool that answers them."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.limits = Limits(self.cfg)
        self.nr_conns = 0
        self.deadlines: list = []             # heap of (deadline, n, conn); stale entries skipped
        self._n = itertools.count()
        self._accepting = False
        self._listening = True
        self.retired = False          # another generation serves: this worker stopped accepting
        self.terminated = False       # SIGTERM came
        self._outbox_bytes = 0        # response bytes the loop holds for slow clients
        self._outbox_lock = threading.Lock()

    def init_process(self) -> None:
        if self.cfg.is_ssl:
            raise RuntimeError("gpukb's worker serves plain HTTP: put TLS in a reverse proxy in front")
        self.open_loop()
        self.follower = Follower(getattr(self.app, "app_config", {}))
        super().init_process()

    def open_loop(self) -> None:
        """The thread pools, the selector and the pipe that wakes it (before the loop runs)."""
        self.tpool = ThreadPoolExecutor(max_workers=self.cfg.threads, thread_name_prefix="gpukb-request")
        self.probe_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gpukb-probe")
        self.poller = selectors.DefaultSelector()
        self.done: queue.SimpleQueue = queue.SimpleQueue()
        self._wake_r, self._wake_w = os.pipe()
        for fd in (self._wake_r, self._wake_w):
            os.set_blocking(fd, False)
        self.poller.register(self._wake_r, selectors.EVENT_READ, self._drain_pipe)

    def handle_exit(self, sig, frame) -> None:
        super().handle_exit(sig, frame)
        self.terminated = True
        self._wake_loop()             # SIGTERM: stop listening now, not at the next turn of the loop

    def handle_quit(self, sig, frame) -> None:
        self.tpool.shutdown(wait=False, cancel_futures=True)
        self.probe_pool.shutdown(wait=False, cancel_futures=True)
        super().handle_quit(sig, frame)

    # -- the event loop ------------------------------------------------------------------------------
    def run(self) -> None:
        for listener in self.sockets:
            listener.setblocking(False)
        while self.alive:
            self.notify()
            if self.follower.superseded():
                self._retire()
                break
            self._set_accepting(self.nr_conns < self.cfg.worker_connections)
            self._turn()
            if self.ppid != os.getppid():
                self.log.info("Parent changed, shutting down: %s", self)
                break
        self._stop()
        end = time.monotonic() + self.cfg.graceful_timeout
        while self.retired and not self.terminated and time.monotonic() < end and self.ppid == os.getppid():
            self.notify()                 # retired: wait for the master's TTOU, so it does not replace this worker
            time.sleep(0.05)

    def _retire(self) -> None:
        """Another KB generation serves: stop accepting now and say so (what arrived is answered)."""
        self.retired, self.alive = True, False
        self.stop_listening()
        mark(self.app.app_config, "retired")

    def _turn(self) -> None:
        timeout = self.follower.interval()
        if self.deadlines:
            timeout = min(timeout, max(self.deadlines[0][0] - time.monotonic(), 0.0))
        for key, _ in self.poller.select(timeout):      # (interrupted by a signal: retried, PEP 475)
            key.data(key.fileobj)
        self._finished()
        self._expire()

    def _drain_pipe(self, _fd) -> None:
        try:
            while os.read(self._wake_r, 4096):
                pass
        except OSError:
            pass

    def _wake_loop(self) -> None:
        try:
            os.write(self._wake_w, b"\0")
        except OSError:         # the pipe is full: the loop is awake anyway
            pass

    def _set_accepting(self, enabled: bool) -> None:
        if enabled == self._accepting or not self._listening:
            return
        for listener in self.sockets:
            if enabled:
                self.poller.register(listener, selectors.EVENT_READ, self._accept)
            else:
                self.poller.unregister(listener)
        self._accepting = enabled

    def _accept(self, listener) -> bool:
        """Accept one connection if one waits (False: none did)."""
        try:
            sock, client = listener.accept()
        except OSError as e:
            if e.errno not in (errno.EAGAIN, errno.ECONNABORTED, errno.EWOULDBLOCK):
                raise
            return e.errno == errno.ECONNABORTED       # that one is gone, the next may wait
        sock.setblocking(False)
        self.nr_conns += 1
        conn = Conn(sock, client, listener.getsockname(), self._reader())
        self._wait(conn)
        return True

    def _reader(self) -> RequestReader:
        return RequestReader(self.limits, BODY_BUFFER, self.cfg)

    def _wait(self, conn: Conn) -> None:
        """Watch the connection for input: until READ_TIMEOUT after its request began, or while idle,
        ``keepalive`` seconds (STOP_LINGER at most once the worker stops)."""
        now = time.monotonic()
        if conn.started:
            conn.deadline = now + READ_TIMEOUT
        else:
            conn.deadline = now + max(float(self.cfg.keepalive or 0), 1.0)
            if not self.alive:
                conn.deadline = min(conn.deadline, now + STOP_LINGER)
        heapq.heappush(self.deadlines, (conn.deadline, next(self._n), conn))
        self.poller.register(conn.sock, selectors.EVENT_READ, partial(self._on_input, conn))
        conn.registered = True

    def _unwatch(self, conn: Conn) -> None:
        conn.deadline = None
        if conn.registered:
            conn.registered = False
            try:
                self.poller.unregister(conn.sock)
            except (KeyError, ValueError, OSError):
                pass

    def _on_input(self, conn: Conn, _fileobj) -> None:
        try:
            data = conn.sock.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data and not conn.started:        # the client closed an idle connection
            self._close(conn)
            return
        if not conn.started:
            conn.started = True
            self._unwatch(conn)
            self._wait(conn)                      # the read deadline starts at the first byte
        self._take(conn, data)

    def _take(self, conn: Conn, data: bytes) -> None:
        try:
            state = conn.reader.feed(data)
        except (ProtocolError, h11.RemoteProtocolError) as exc:
            if data:
                self._refuse(conn, exc)
            else:                                 # closed mid-request: nobody to answer
                self._close(conn)
            return
        if state is READY:
            self._dispatch(conn)
        elif conn.reader.wants_continue():
            # answered here, so that a client waiting for it holds no thread while its body comes
            self._send_quietly(conn.sock, conn.reader.continue_bytes())

    def _expire(self) -> None:
        now = time.monotonic()
        while self.deadlines and self.deadlines[0][0] <= now:
            deadline, _, conn = heapq.heappop(self.deadlines)
            if conn.deadline != deadline:
                continue                          # stale: the connection moved on since
            if conn.outbox:
                self.log.debug("dropped %s: it took no part of its response in %s s", _ip(conn.client), SEND_TIMEOUT)
                self._close(conn)
            elif conn.started:
                self._refuse(conn, slow_request(READ_TIMEOUT))
            else:
                self._close(conn)

    def _refuse(self, conn: Conn, exc: BaseException) -> None:
        status, reason, message = classify(exc, self.cfg)
        log.warning("refused a request from %s: %s %s (%s)", printable(_ip(conn.client)), status,
                    printable(message), printable(type(exc).__name__))
        self._send_quietly(conn.sock, error_bytes(status, reason, message))
        self._close(conn)

    def _close(self, conn: Conn) -> None:
        self._unwatch(conn)
        self.nr_conns -= 1
        self._release(len(conn.outbox))
        conn.outbox.clear()
        conn.close()

    @staticmethod
    def _send_quietly(sock: socket.socket, data: bytes) -> None:
        try:
            sock.setblocking(False)
            sock.send(data)
        except OSError:         # the client is gone or not reading: nothing to tell it
            pass

    # -- handing requests to threads, and taking the connections back --------------------------------
    def _dispatch(self, conn: Conn) -> None:
        self._unwatch(conn)
        probe = conn.reader.request.target.partition(b"?")[0] in PROBE_PATHS
        future = (self.probe_pool if probe else self.tpool).submit(self._serve, conn)
        future.add_done_callback(partial(self._wake, conn))

    def _wake(self, conn: Conn, future) -> None:
        self.done.put((conn, future))
        self._wake_loop()

    def _finished(self) -> None:
        while True:
            try:
                conn, future = self.done.get_nowait()
            except queue.Empty:
                return
            failed = None if future.cancelled() else future.exception()
            if failed is not None:
                self.log.error("a request thread failed: %r", failed)
            keep = not future.cancelled() and failed is None and future.result()
            if conn.outbox:                       # the client has not taken the whole response yet
                conn.keep = keep
                self._send_rest(conn)
            else:
                self._next_request(conn, keep)

    def _next_request(self, conn: Conn, keep: bool) -> None:
        """A response is sent: read the connection's next request, or close it."""
        if not keep or not self.alive:
            self._close(conn)
            return
        leftover = conn.reader.leftover()
        conn.reader, conn.started = self._reader(), bool(leftover)
        conn.sock.setblocking(False)
        self._wait(conn)
        if leftover:                              # a pipelined request
            self._take(conn, leftover)

    # -- the ends of responses, sent by the loop ----------------------------------------------------------
    def _hand_over(self, conn: Conn, resp: Responder) -> bool:
        """Leave what the client has not taken of ``resp`` to the loop, if the worker's budget allows."""
        n = len(resp.outbox)
        if n:
            with self._outbox_lock:
                if self._outbox_bytes + n > OUTBOX_TOTAL:
                    return False
                self._outbox_bytes += n
            conn.outbox = resp.outbox
        return True

    def _release(self, n: int) -> None:
        if n:
            with self._outbox_lock:
                self._outbox_bytes -= n

    def _send_rest(self, conn: Conn) -> None:
        """Send the outbox as the client takes it; a client that takes nothing for SEND_TIMEOUT is dropped."""
        conn.deadline = time.monotonic() + SEND_TIMEOUT
        heapq.heappush(self.deadlines, (conn.deadline, next(self._n), conn))
        if not conn.registered:
            self.poller.register(conn.sock, selectors.EVENT_WRITE, partial(self._on_writable, conn))
            conn.registered = True

    def _on_writable(self, conn: Conn, _fileobj) -> None:
        try:
            n = conn.sock.send(conn.outbox)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:                           # the client is gone
            self._close(conn)
            return
        del conn.outbox[:n]
        self._release(n)
        if conn.outbox:
            self._send_rest(conn)                 # it took a part: a new deadline for the next
        else:
            self._unwatch(conn)
            self._next_request(conn, conn.keep)

    def _serve(self, conn: Conn) -> bool:
        """Run the app on a complete request (in a thread); True: the connection may be kept."""
        self.nr += 1
        if self.nr >= self.max_requests and self.alive:
            self.log.info("Autorestarting worker after current request.")
            self.alive = False
        reader, sock = conn.reader, conn.sock
        sock.setblocking(False)
        environ = build_environ(reader, conn.client, conn.server, self.cfg)
        resp = Responder(sock, reader, close=not self.alive or not self.cfg.keepalive or reader.partial,
                         outbox_limit=OUTBOX_RESPONSE, send_timeout=SEND_TIMEOUT)
        req = RequestInfo(environ)
        started = datetime.now()
        try:
            self.cfg.pre_request(self, req)
            result = self.wsgi(environ, resp.start_response)
            try:
                for chunk in result:
                    resp.write(chunk)
                resp.finish()
            finally:
                if hasattr(result, "close"):
                    result.close()
            if not self._hand_over(conn, resp):
                resp.flush()
        except OSError as exc:                    # the client is gone, or did not take the response in time
            self.log.debug("dropped the connection of %s: %s", _ip(conn.client), exc)
            return False
        except Exception as exc:  # noqa: BLE001 - the app's failure is answered 500, the worker goes on
            log.error("error while answering %s %s from %s", printable(environ["REQUEST_METHOD"][:20]),
                      printable(environ["RAW_URI"][:300]), printable(_ip(conn.client)), exc_info=exc)
            if not resp.head_sent:
                try:
                    resp.send(error_bytes(*classify(exc)))
                    resp.flush()
                except OSError:
                    pass
            return False
        finally:
            try:
                self.log.access(resp, req, environ, datetime.now() - started)
                self.cfg.post_request(self, req, environ, resp)
            except Exception:  # noqa: BLE001 - a logging or hook failure is not the response's
                self.log.exception("access log or post_request hook failed")
        return reader.reusable()

    # -- shutdown: stop listening first, then drain ------------------------------------------------------
    def _stop(self) -> None:
        self.alive = False
        self.stop_listening()
        now = time.monotonic()
        for _, _, conn in list(self.deadlines):     # idle connections: closed soon (a request on them is answered)
            if conn.deadline is not None and not conn.started and conn.deadline > now + STOP_LINGER:
                self._unwatch(conn)
                self._wait(conn)
        end = now + self.cfg.graceful_timeout
        while self.nr_conns > 0 and time.monotonic() < end:
            self.notify()
            self._turn()
        self.tpool.shutdown(wait=False, cancel_futures=True)
        self.probe_pool.shutdown(wait=False, cancel_futures=True)
        for _, _, conn in self.deadlines:
            if conn.deadline is not None:
                self._close(conn)
        self.poller.close()

    def stop_listening(self) -> None:
        """Take the connections already waiting in the listen backlog (their requests arrived before
        the shutdown: they are answered, with "Connection: close"), then close this worker's listening
        sockets, so that once the master and every worker have closed theirs a new connection is
        refused instead of queued in a backlog nobody reads (and reset when the last worker exits).
        Only this process's descriptors are closed (never shutdown()): in a rollout, the workers of
        the next generation listen on the same socket."""
        if not self._listening:
            return
        self._set_accepting(False)
        self._listening = False
        for listener in self.sockets:
            try:
                for _ in range(BACKLOG_TAKEN):
                    if not self._accept(listener):
                        break
            except OSError:
                pass
            try:
                listener.close()
            except OSError:
                pass


def _ip(addr) -> str:
    return str(addr[0]) if isinstance(addr, tuple) and addr else str(addr or "")
