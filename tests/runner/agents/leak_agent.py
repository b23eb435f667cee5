"""A hostile command agent: tries every channel to ground truth it could know of and prints
what it found as JSON. Probe paths come in $LEAK_PATHS (os.pathsep-separated), never on the
command line (the sandbox binds absolute paths of the agent's own command line)."""

import json
import os
import socket
import subprocess
import sys

found = {"files": [], "proc": [], "net": None, "pids": 0}
# one entry of the runner's own environment that the runner did not pass to the agent
secret_env = os.environ.get("LEAK_ENV_ENTRY", "").encode()
for path in filter(None, os.environ.get("LEAK_PATHS", "").split(os.pathsep)):
    try:
        if os.path.isdir(path):
            names = os.listdir(path)
            if names:
                found["files"].append(f"{path}: {sorted(names)[:5]}")
        else:
            with open(path, "rb") as fh:
                fh.read(64)
            found["files"].append(path)
    except OSError:
        pass
for pid in os.listdir("/proc"):
    if not pid.isdigit():
        continue
    found["pids"] += 1
    for what in ("environ", "cmdline"):
        try:
            with open(f"/proc/{pid}/{what}", "rb") as fh:
                data = fh.read()
        except OSError:
            continue
        if what == "environ" and secret_env and secret_env in data.split(b"\0"):
            found["proc"].append(f"/proc/{pid}/environ: {secret_env.split(b'=')[0].decode()}=…")
        text = data.replace(b"\0", b" ").decode("utf-8", "replace")
        # the runner's own entry: pytest, or an xdist worker (``-c import sys;exec(...)``)
        if what == "cmdline" and not text.split(" ")[0].endswith("/bwrap") and (
                "pytest" in text or "sys.stdin.readline" in text):
            found["proc"].append(f"/proc/{pid}/{what}: {text[:120]}")
port = os.environ.get("LEAK_PORT")
if port:
    try:
        socket.create_connection(("127.0.0.1", int(port)), timeout=5).close()
        found["net"] = "connected"
    except OSError as exc:
        found["net"] = f"refused: {exc}"
# a grandchild in its own session, outliving this agent unless the sandbox takes it down
subprocess.Popen(["sleep", os.environ.get("LEAK_SLEEP", "987654.321")],
                 start_new_session=True, stdin=subprocess.DEVNULL,
                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
sys.stdout.write(json.dumps(found))
