"""A stray debug file server, the fault of the lab's crash-loop scenario: an operator's
``python3 -m http.server`` left on a port, here one that binds the service's port the moment
it is free (it retries the bind every 50 ms for up to a minute). Standard library only,
copied into the lab dir and run as ``python3 _debugsrv.py --port N --dir DIR``."""

from __future__ import annotations

import argparse
import functools
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="rcaeval.lab._debugsrv")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--dir", required=True)
    args = ap.parse_args(argv)
    handler = functools.partial(SimpleHTTPRequestHandler, directory=args.dir)
    deadline = time.monotonic() + 60
    while True:
        try:
            server = ThreadingHTTPServer(("127.0.0.1", args.port), handler)
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)  # retry interval of the bind (the port frees when its owner exits)
    print(f"serving {args.dir} on 127.0.0.1:{args.port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
