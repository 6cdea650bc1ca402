"""A far cluster on loopback (issue 49): a TCP relay on 127.0.0.1 that holds every chunk D ms in each direction.

Bytes pass through untouched (TLS included: the client verifies the server's own certificate, which names
127.0.0.1 whatever the port), so one round trip through the relay costs 2*D ms more than without it, as a
cluster across a WAN would. Each direction of each connection is a reader (it stamps each chunk with the time
it is due) and a writer (it sleeps until that time, then sends), so chunks in flight overlap as they would on
a long wire: the relay adds latency, not a bandwidth limit.

It also keeps, for the benchmark, what a client's wire looked like: the connections it opened (each one a TLS
handshake on an https server) and the depth of its critical path in round trips (`rounds`: a chunk the client
sends is one round deeper than the deepest answer it had received, on any connection, before sending it; the
TLS handshake's own round trip counts as one).

Bounded: at most `max_conns` connections at once (others are closed at once), and the relay stops by itself
after `lifetime` seconds (default 1 hour) or on `stop()`. Threads are daemons.

Run alone: python bench/delayproxy.py --rtt-ms 50 --to 127.0.0.1:6443 [--port 0] [--lifetime 600]
"""

from __future__ import annotations

import argparse
import heapq
import socket
import threading
import time
from dataclasses import dataclass, field


@dataclass
class Wire:
    """What the clients of one measured span did on the wire."""

    conns: int = 0  # connections accepted (each a TCP connect and, for https, a TLS handshake)
    rounds: int = 0  # the deepest chunk sent by a client, in round trips (see the module's docstring)
    up_chunks: int = 0
    up_bytes: int = 0
    down_bytes: int = 0


@dataclass
class _Stamp:
    """The depth of what the client has received so far (the relay sees every connection of the span)."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    heard: int = 0  # the deepest answer delivered to the client so far
    wire: Wire = field(default_factory=Wire)


class DelayProxy:
    def __init__(self, target: tuple[str, int], delay_ms: float, *, port: int = 0, max_conns: int = 64,
                 lifetime: float = 3600.0) -> None:
        self.target = target
        self.delay = delay_ms / 1000.0  # each way
        self.max_conns = max_conns
        self.lifetime = lifetime
        self._srv = socket.create_server(("127.0.0.1", port))
        self._srv.settimeout(0.2)
        self.port = self._srv.getsockname()[1]
        self._stop = threading.Event()
        self._live = 0
        self._lock = threading.Lock()
        self._stamp = _Stamp()
        self._thread: threading.Thread | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> DelayProxy:
        self._thread = threading.Thread(target=self._accept, name="delayproxy", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2)
        self._srv.close()

    def measure(self) -> Wire:
        """What the clients did since the last call (a new span starts)."""
        with self._stamp.lock:
            out, self._stamp.wire, self._stamp.heard = self._stamp.wire, Wire(), 0
        return out

    # -- the relay ------------------------------------------------------------------------------
    def _accept(self) -> None:
        ends = time.monotonic() + self.lifetime
        while not self._stop.is_set() and time.monotonic() < ends:
            try:
                client, _ = self._srv.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with self._lock:
                full = self._live >= self.max_conns
                if not full:
                    self._live += 1
            if full:
                client.close()
                continue
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()
        self._stop.set()

    def _serve(self, client: socket.socket) -> None:
        try:
            server = socket.create_connection(self.target, timeout=10)
        except OSError:
            client.close()
            self._gone()
            return
        for s in (client, server):
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            s.settimeout(None)
        with self._stamp.lock:
            self._stamp.wire.conns += 1
        conn = _Conn(client, server)
        pumps = [threading.Thread(target=self._pump, args=(conn, up), daemon=True) for up in (True, False)]
        for t in pumps:
            t.start()
        for t in pumps:
            t.join()
        client.close()
        server.close()
        self._gone()

    def _gone(self) -> None:
        with self._lock:
            self._live -= 1

    def _pump(self, conn: _Conn, up: bool) -> None:
        """Read one direction; a writer thread delivers each chunk D ms after it was read."""
        src, dst = (conn.client, conn.server) if up else (conn.server, conn.client)
        queue: list[tuple[float, int, bytes, int]] = []
        cond = threading.Condition()
        done = [False]
        writer = threading.Thread(target=self._deliver, args=(dst, queue, cond, done, up, conn), daemon=True)
        writer.start()
        seq = 0
        while not self._stop.is_set():
            try:
                data = src.recv(65536)
            except OSError:
                data = b""
            if not data:
                break
            depth = 0
            if up:  # a client's chunk: one round deeper than the deepest answer it has heard
                with self._stamp.lock:
                    depth = self._stamp.heard + 1
                    w = self._stamp.wire
                    w.rounds, w.up_chunks, w.up_bytes = max(w.rounds, depth), w.up_chunks + 1, w.up_bytes + len(data)
                conn.depth = depth
            else:
                depth = conn.depth  # an answer is as deep as the last request on its connection
                with self._stamp.lock:
                    self._stamp.wire.down_bytes += len(data)
            with cond:
                seq += 1
                heapq.heappush(queue, (time.monotonic() + self.delay, seq, data, depth))
                cond.notify()
        with cond:
            done[0] = True
            cond.notify()
        writer.join()
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def _deliver(self, dst: socket.socket, queue: list[tuple[float, int, bytes, int]], cond: threading.Condition,
                 done: list[bool], up: bool, conn: _Conn) -> None:
        while True:
            with cond:
                while not queue and not done[0]:
                    cond.wait(0.5)
                if not queue:
                    return
                due, _seq, data, depth = heapq.heappop(queue)
            wait = due - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            try:
                dst.sendall(data)
            except OSError:
                conn.client.close()
                conn.server.close()
                return
            if not up:  # delivered to the client: what it sends from now on may depend on it
                with self._stamp.lock:
                    self._stamp.heard = max(self._stamp.heard, depth)


class _Conn:
    def __init__(self, client: socket.socket, server: socket.socket) -> None:
        self.client, self.server = client, server
        self.depth = 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rtt-ms", type=float, required=True, help="round trip added (half each way)")
    ap.add_argument("--to", required=True, help="HOST:PORT of the server")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--lifetime", type=float, default=600.0)
    args = ap.parse_args()
    host, _, port = args.to.rpartition(":")
    proxy = DelayProxy((host, int(port)), args.rtt_ms / 2, port=args.port, lifetime=args.lifetime).start()
    print(proxy.address, flush=True)
    try:
        while proxy._thread is not None and proxy._thread.is_alive():
            time.sleep(1)
    except KeyboardInterrupt:
        pass
    proxy.stop()


if __name__ == "__main__":
    main()
