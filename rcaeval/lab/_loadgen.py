"""The lab's load generator: requests to the lab service at a fixed rate (reads, every
fifth request a deposit, every eighth a backlog count), over random accounts. Like the service,
it is copied into the lab dir (standard library only) and run as
``python3 _loadgen.py --url http://127.0.0.1:N --rate R``; it runs until stopped.
A failed request is counted, never retried; one summary line goes to stdout every 30 s."""

from __future__ import annotations

import argparse
import random
import time
import urllib.error
import urllib.request


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="rcaeval.lab._loadgen")
    ap.add_argument("--url", required=True)
    ap.add_argument("--rate", type=float, default=2.0)
    ap.add_argument("--accounts", type=int, default=100000)
    args = ap.parse_args(argv)
    rng = random.Random(28)
    period = 1.0 / args.rate
    due = time.monotonic()
    ok = failed = n = 0
    report_at = time.monotonic() + 30
    while True:
        n += 1
        aid = rng.randint(1, args.accounts)
        if n % 8 == 0:
            req = urllib.request.Request(f"{args.url}/orders/pending")
        elif n % 5 == 0:
            req = urllib.request.Request(f"{args.url}/accounts/{aid}/deposit?delta=1",
                                         method="POST", data=b"")
        else:
            req = urllib.request.Request(f"{args.url}/accounts/{aid}")
        try:
            with urllib.request.urlopen(req, timeout=5) as resp:
                resp.read()
            ok += 1
        except (urllib.error.URLError, OSError):
            failed += 1
        if time.monotonic() >= report_at:
            print(f"loadgen: {ok} ok, {failed} failed", flush=True)
            report_at += 30
        due += period
        pause = due - time.monotonic()
        if pause > 0:
            time.sleep(pause)  # pacing of the request rate, not synchronisation
        else:
            due = time.monotonic()


if __name__ == "__main__":
    main()
