"""REST throughput of a served world on a cheap read (Gmail `messages.get`), one uvicorn worker.

The server runs in a subprocess (the world `clawarena serve` builds for SCENARIO, under uvicorn
with the chosen event loop and HTTP parser); this process is the client: raw keep-alive
HTTP/1.1 over several sockets in threads, no pipelining, each connection sending its next
request once the previous response is in. Each configuration is measured for WINDOWS windows of
SECONDS each; the figure is the median window's req/s, with p50/p99 latency over all requests.
The configurations alternate within one run, so the printed ratios hold on a shared machine.
Target (issue 12): >= 1,500 req/s with the standard extras (uvloop, httptools).

    python benchmarks/rest_throughput.py [--seconds 3] [--windows 3] [--connections 4] [--baseline-src DIR]

--baseline-src measures, in the same run, the server code of another source tree too (both
configurations), e.g. the last commit: `git archive HEAD src | tar -x -C /tmp/base`, then
`--baseline-src /tmp/base/src`.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time

SCENARIO = "email-triage-summary/benign"
CONFIGS = {  # label -> (loop, http)
    "standard extras (uvloop, httptools)": ("uvloop", "httptools"),
    "no extras (asyncio, h11)": ("asyncio", "h11"),
}


# ---- server (child process) ---------------------------------------------------------------------
def serve_child(loop: str, http: str) -> None:
    """Build the world as `clawarena serve` does, bind a free loopback port, print it, serve until killed."""
    import uvicorn

    from clawarena.commands.base import find_scenario
    from clawarena.gateway import Gateway
    from clawarena.server.app import WorldApp
    from clawarena.services import services, world_factory

    world = world_factory().build(find_scenario("email", SCENARIO), 0)  # what a serve session builds
    app = WorldApp(Gateway(world, services()), services()).app
    # proto=IPPROTO_TCP as uvicorn's own bind has it: asyncio sets TCP_NODELAY only on such sockets,
    # and without it h11's separate header and body writes wait ~40 ms for a delayed ACK
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)  # the client may connect before uvicorn runs: the backlog holds it
    principal, token = next(iter(world.directory.tokens.items()))
    print(json.dumps({"port": sock.getsockname()[1], "principal": principal, "token": token}), flush=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="off", loop=loop, http=http, access_log=False,
                            timeout_keep_alive=600)  # connections idle while the other configuration is measured  # fmt: skip
    uvicorn.Server(config).run(sockets=[sock])


# ---- client ----------------------------------------------------------------------------------
class Conn:
    """One keep-alive HTTP/1.1 connection that sends a fixed request and reads one response."""

    def __init__(self, port: int, request: bytes):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.request = request
        self.buf = b""

    def call(self) -> tuple[int, bytes]:
        self.sock.sendall(self.request)
        while b"\r\n\r\n" not in self.buf:
            self._more()
        head, _, rest = self.buf.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        status = int(lines[0].split(b" ", 2)[1])
        length = next(int(v) for k, _, v in (line.partition(b":") for line in lines[1:]) if k.strip().lower() == b"content-length")
        while len(rest) < length:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("server closed the connection")
            rest += chunk
        body, self.buf = rest[:length], rest[length:]
        return status, body

    def _more(self) -> None:
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("server closed the connection")
        self.buf += chunk

    def close(self) -> None:
        self.sock.close()


def request_bytes(path: str, token: str) -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\nAccept: application/json\r\n\r\n".encode()


def window(conns: list[Conn], seconds: float) -> tuple[float, list[float]]:
    """All connections issue requests for `seconds`; returns (req/s, latencies in ms)."""
    latencies: list[list[float]] = [[] for _ in conns]
    errors: list[BaseException] = []
    start = threading.Barrier(len(conns) + 1)
    stop_at = [0.0]

    def worker(i: int) -> None:
        conn, out = conns[i], latencies[i]
        start.wait()
        try:
            while True:
                t = time.perf_counter()
                if t >= stop_at[0]:
                    return
                status, _ = conn.call()
                if status != 200:
                    raise RuntimeError(f"messages.get answered {status}")
                out.append((time.perf_counter() - t) * 1000)
        except BaseException as exc:  # re-raised on the main thread, which stops the servers
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(conns))]
    for th in threads:
        th.start()
    t0 = time.perf_counter()
    stop_at[0] = t0 + seconds
    start.wait()
    for th in threads:
        th.join()
    if errors:
        raise errors[0]
    elapsed = time.perf_counter() - t0
    flat = [x for out in latencies for x in out]
    return len(flat) / elapsed, flat


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Served:
    """A server subprocess and the keep-alive connections to it; always stopped by close()."""

    def __init__(self, loop: str, http: str, connections: int, src: str | None = None):
        env = dict(os.environ, PYTHONPATH=src) if src else None  # another tree's clawarena shadows the installed one
        self.proc = subprocess.Popen([sys.executable, __file__, "--child", loop, http], stdout=subprocess.PIPE, text=True, env=env)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"server ({loop}, {http}) exited before it printed its port")
        info = json.loads(line)
        self.conns: list[Conn] = []
        try:
            listing = Conn(info["port"], request_bytes("/gmail/v1/users/me/messages?maxResults=1", info["token"]))
            status, body = listing.call()
            listing.close()
            if status != 200:
                raise RuntimeError(f"messages.list answered {status}: {body[:200]!r}")
            mid = json.loads(body)["messages"][0]["id"]
            req = request_bytes(f"/gmail/v1/users/me/messages/{mid}", info["token"])
            self.conns = [Conn(info["port"], req) for _ in range(connections)]
            for c in self.conns:  # warm-up: first-call costs (imports, caches) are not the steady state
                for _ in range(50):
                    c.call()
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        for c in self.conns:
            c.close()
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0, help="length of one window")
    parser.add_argument("--windows", type=int, default=3, help="windows per configuration (the median is reported)")
    parser.add_argument("--connections", type=int, default=4, help="concurrent keep-alive connections")
    parser.add_argument("--baseline-src", help="a source tree (its src/ folder) whose server is measured too")
    args = parser.parse_args()
    if args.seconds <= 0 or args.windows < 1 or args.connections < 1:
        parser.error("--seconds must be > 0, --windows and --connections >= 1")
    if args.baseline_src and not os.path.isdir(os.path.join(args.baseline_src, "clawarena")):
        parser.error(f"--baseline-src: {args.baseline_src} holds no clawarena package")
    configs = {label: (loop, http, None) for label, (loop, http) in CONFIGS.items()}
    if args.baseline_src:
        configs |= {f"baseline: {label}": (loop, http, args.baseline_src) for label, (loop, http) in CONFIGS.items()}
    print(f"load average at start: {os.getloadavg()[0]:.2f} (cores: {os.cpu_count()}); {args.connections} connections, "
          f"{args.windows} x {args.seconds:g} s windows per configuration, GET /gmail/v1/users/me/messages/ID on {SCENARIO}")  # fmt: skip
    served: dict[str, Served] = {}
    try:
        for label, (loop, http, src) in configs.items():
            served[label] = Served(loop, http, args.connections, src)
        rates: dict[str, list[float]] = {label: [] for label in configs}
        lat: dict[str, list[float]] = {label: [] for label in configs}
        for _ in range(args.windows):  # alternate, so load changes hit both configurations alike
            for label, s in served.items():
                rate, samples = window(s.conns, args.seconds)
                rates[label].append(rate)
                lat[label].extend(samples)
    finally:
        for s in served.values():
            s.close()
    medians = {label: statistics.median(r) for label, r in rates.items()}
    for label in configs:
        print(f"{label:<48} {medians[label]:8.0f} req/s (windows: {', '.join(f'{r:.0f}' for r in rates[label])})"
              f"   p50 {pct(lat[label], 0.5):6.2f} ms   p99 {pct(lat[label], 0.99):6.2f} ms")  # fmt: skip
    first, second = list(CONFIGS)
    print(f"ratio extras / no extras: {medians[first] / medians[second]:.2f}x   target >= 1,500 req/s with extras")
    if args.baseline_src:
        print(f"ratio this tree / baseline, extras: {medians[first] / medians['baseline: ' + first]:.2f}x; "
              f"no extras: {medians[second] / medians['baseline: ' + second]:.2f}x")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        serve_child(sys.argv[2], sys.argv[3])
    else:
        main()
