"""``get_host_view``: the lab host as an operator's read-only console shows it — the processes
the lab runs (pid, parent, user, program, CPU seconds, resident memory, age, the TCP
addresses it listens on; never the lab's
name for a process nor its command line, which would name an injected fault) and the lab's
data disk (the filesystem's size and use, its largest files). The read-only verification a
``kill_process`` or ``free_disk`` action names."""

from __future__ import annotations

import os
import pwd
from pathlib import Path
from typing import Any

from rcaeval.lab._actions import DISK_DIR, _lab_pids
from rcaeval.tools import ToolInputError

HOST_VIEWS = ("processes", "disk")
MAX_ROWS = 100
_TICK = os.sysconf("SC_CLK_TCK")
_PAGE = os.sysconf("SC_PAGE_SIZE")


def _uptime() -> float:
    return float(Path("/proc/uptime").read_text().split()[0])


def _process(pid: int, now: float) -> dict[str, Any] | None:
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
        comm = Path(f"/proc/{pid}/comm").read_text().strip()
        uid = os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return None
    f = raw[raw.rindex(")") + 2:].split()
    if f[0] in ("Z", "X"):
        return None
    try:
        user = pwd.getpwuid(uid).pw_name
    except KeyError:
        user = str(uid)
    return {"pid": pid, "ppid": int(f[1]), "user": user, "program": comm, "state": f[0],
            "cpu_s": round((int(f[11]) + int(f[12])) / _TICK, 2),
            "rss_mb": round(int(f[21]) * _PAGE / 2**20, 1),
            "age_s": round(now - int(f[19]) / _TICK, 1)}


def _listening() -> dict[str, str]:
    """Socket inode -> ``ADDR:PORT`` of every listening TCP socket (``/proc/net/tcp*``)."""
    out = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            f = line.split()
            if len(f) > 9 and f[3] == "0A":  # LISTEN
                addr, port = f[1].split(":")
                host = ".".join(str(int(addr[i:i + 2], 16)) for i in (6, 4, 2, 0)) \
                    if len(addr) == 8 else "::"
                out[f[9]] = f"{host}:{int(port, 16)}"
    return out


def _sockets(pid: int, listening: dict[str, str]) -> tuple[list[str], int]:
    """The addresses the process listens on, and how many sockets it holds open."""
    found, count = [], 0
    try:
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return [], 0
    for fd in fds:
        try:
            link = os.readlink(fd)
        except OSError:
            continue
        if link.startswith("socket:["):
            count += 1
            if addr := listening.get(link[8:-1]):
                found.append(addr)
    return sorted(set(found)), count


def processes(lab_dir: Path) -> list[dict[str, Any]]:
    now, listening = _uptime(), _listening()
    rows = [r for pid in sorted(_lab_pids(lab_dir)) if (r := _process(pid, now))]
    for r in rows:
        r["listening"], r["sockets"] = _sockets(r["pid"], listening)
    return sorted(rows, key=lambda r: -r["cpu_s"])[:MAX_ROWS]


def disk(lab_dir: Path) -> dict[str, Any]:
    root = lab_dir / DISK_DIR
    if not root.is_dir():
        return {"path": str(root), "mounted": False, "files": []}
    st = os.statvfs(root)
    files = []
    for dirpath, _dirs, names in os.walk(root):
        for name in names:
            path = Path(dirpath) / name
            try:
                if not path.is_symlink():
                    files.append({"path": str(path), "bytes": path.stat().st_size})
            except OSError:
                continue
    files.sort(key=lambda f: -f["bytes"])
    size, free = st.f_blocks * st.f_frsize, st.f_bavail * st.f_frsize
    return {"path": str(root), "mounted": os.path.ismount(root), "size_bytes": size,
            "used_bytes": size - st.f_bfree * st.f_frsize, "available_bytes": free,
            "used_pct": round(100 * (size - free) / size, 1) if size else None,
            "files": files[:MAX_ROWS]}


def host_view(tools: Any, view: str) -> dict[str, Any]:
    """One host view through ``tools.call`` (recorded in the telemetry like any call)."""
    def run() -> dict[str, Any]:
        if view not in HOST_VIEWS:
            raise ToolInputError(f"view must be one of {', '.join(HOST_VIEWS)}, got {view!r}")
        lab_dir = tools.source.lab_dir
        if view == "processes":
            rows = processes(lab_dir)
            return {"view": view, "processes": rows, "total": len(rows)}
        return {"view": view, **disk(lab_dir)}
    return tools.call("get_host_view", {"view": view}, run)
