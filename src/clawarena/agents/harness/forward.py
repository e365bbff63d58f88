"""Inside a harness's sandbox: the only way out. Standalone (standard library only): it runs on
the sandbox's system `python3`, not on clawarena's interpreter.

    python3 forward.py --listen 4000=/run/clawarena/model.sock --listen 4001=... -- HARNESS ARGV...

The sandbox has its own network namespace with nothing but loopback. Each `--listen PORT=SOCKET`
binds 127.0.0.1:PORT inside it and relays every connection to a unix socket that the host's
proxy serves, so the harness reaches its model and MCP endpoints at ordinary URLs and nothing
else exists. The listeners are bound before the harness starts (no race), and the forwarder
exits with the harness's exit code.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import threading

CHUNK = 65536


def _pump(src: socket.socket, dst: socket.socket) -> None:
    try:
        while data := src.recv(CHUNK):
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s, how in ((dst, socket.SHUT_WR), (src, socket.SHUT_RD)):
            try:
                s.shutdown(how)
            except OSError:
                pass


def _relay(client: socket.socket, path: str) -> None:
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(path)
    except OSError:
        client.close()
        upstream.close()
        return
    back = threading.Thread(target=_pump, args=(upstream, client), daemon=True)
    back.start()
    _pump(client, upstream)
    back.join()
    client.close()
    upstream.close()


def _serve(listener: socket.socket, path: str) -> None:
    while True:
        try:
            client, _ = listener.accept()
        except OSError:
            return
        threading.Thread(target=_relay, args=(client, path), daemon=True).start()


def main(argv: list[str]) -> int:
    if "--" not in argv:
        print("forward.py: usage: --listen PORT=SOCKET ... -- COMMAND ...", file=sys.stderr)
        return 2
    cut = argv.index("--")
    options, command = argv[:cut], argv[cut + 1 :]
    routes = [options[i + 1] for i, o in enumerate(options) if o == "--listen" and i + 1 < len(options)]
    for route in routes:
        port, _, path = route.partition("=")
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", int(port)))
        listener.listen(64)
        threading.Thread(target=_serve, args=(listener, path), daemon=True).start()
    try:
        return subprocess.call(command)
    except OSError as exc:
        print(f"forward.py: cannot run {command[:1]}: {exc}", file=sys.stderr)
        return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
