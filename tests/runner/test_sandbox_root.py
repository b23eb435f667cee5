"""The sandbox holds against an agent with root's powers (issue: the bubblewrap sandbox run as
root left the agent every capability). As root - how CI and `make test` run - a real agent
inside the sandbox tries to mount, to make a device node of the host's root disk and read a
case's judge.yaml through it, to open raw sockets, and to read paths outside its mounts (with
a trailing ``/`` on its command line, which once bind-mounted the whole filesystem); every
attempt fails and its effective capability set is empty."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import orjson
import pytest

from rcaeval.runner import execute_case
from rcaeval.runner._sandbox import bwrap_path

AGENTS = Path(__file__).resolve().parent / "agents"

needs_bwrap = pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")


def _fs_of(path: Path) -> tuple[str, str, str]:
    """``(major:minor, fstype, path relative to that filesystem's root)`` for ``path``."""
    st = os.stat(path)
    dev = f"{os.major(st.st_dev)}:{os.minor(st.st_dev)}"
    best = ("", "", "")
    with open("/proc/self/mountinfo") as fh:
        for line in fh:
            left, right = line.split(" - ", 1)
            fields = left.split()
            if fields[2] != dev or fields[3] != "/":
                continue
            point = fields[4]
            if str(path).startswith(point.rstrip("/") + "/") and len(point) >= len(best[0]):
                rel = os.path.relpath(path, point)
                best = (point, right.split()[0], rel)
    return dev, best[1] or "ext4", best[2]


@needs_bwrap
@pytest.mark.parametrize("network", [True, False], ids=["shared-network", "no-network"])
def test_root_cannot_escape_the_sandbox(make_case, dirs, tmp_path, network):
    case, case_dir = make_case(secret="zebra-answer")
    judge = case_dir / "judge.yaml"
    dev, fstype, rel = _fs_of(judge)
    store = tmp_path / "rcaeval.duckdb"
    store.write_bytes(b"DUCK-store")
    probes = [judge, case_dir / "expected.md", Path("/etc/shadow"), store,
              Path("/proc/1/root/etc/shadow")]
    env = {"ESCAPE_PATHS": os.pathsep.join(map(str, probes)), "ESCAPE_DEV": dev,
           "ESCAPE_FSTYPE": fstype, "ESCAPE_VIA_DISK": rel}
    # the trailing "/" once bind-mounted the whole filesystem into the sandbox
    spec = f"command:{{python}} {AGENTS / 'escape_agent.py'} /"
    res = execute_case(f"r-{uuid.uuid4().hex[:6]}", case, spec, case_dir=case_dir,
                       timeout_s=120, agent_env=env, sandbox="bwrap", network=network, **dirs)
    assert res.status == "completed", res.error
    found = orjson.loads(res.final_text)
    print("as uid", os.getuid(), "the agent got:", orjson.dumps(found).decode())
    assert found["argv"] == ["/"]
    assert int(found["CapEff"], 16) == 0, found
    assert int(found["CapPrm"], 16) == 0, found
    assert found["mount_tmpfs"].startswith("denied"), found
    assert all(v.startswith("denied") for v in found["mknod"].values()), found
    assert found["disk"] == "no device node", found
    assert found["raw_socket"].startswith("denied"), found
    assert found["packet_socket"].startswith("denied"), found
    assert found["files"] == [], found
    assert "zebra-answer" not in res.final_text
