"""The lab's size-limited volume (the disk-full scenario): a tmpfs of a fixed size mounted at
``LAB/disk``, which the node exporter reports like any filesystem (and ``free_disk`` may free
files on). Mounting needs root (CI runs as root); ``down``, ``revert`` and the next ``up``
unmount it, so it never outlives the lab."""

from __future__ import annotations

import errno
import os
import re
import subprocess
from pathlib import Path

from rcaeval.lab._procs import LabError, RunAs

DISK_DIR = "disk"
"""Under the lab dir: the size-limited volume's mount point, and the only place
``free_disk`` removes files from."""
CHUNKS = (1 << 20, 1 << 12)  # fill in MiB writes, then the last few KiB


def volume_path(lab_dir: Path) -> Path:
    return lab_dir / DISK_DIR


def _mounts() -> list[Path]:
    out = []
    for line in Path("/proc/self/mounts").read_text().splitlines():
        fields = line.split()
        if len(fields) > 1:
            # /proc/mounts escapes space, tab, newline and backslash as octal
            out.append(Path(re.sub(r"\\([0-7]{3})", lambda m: chr(int(m[1], 8)), fields[1])))
    return out


def mount_volume(lab_dir: Path, name: str, size_mb: int, run_as: RunAs) -> Path:
    """Mount a tmpfs of ``size_mb`` MiB at ``LAB/disk`` (named ``lab-NAME``), owned by the
    lab user."""
    if os.geteuid() != 0:
        raise LabError("lab: a size-limited volume is a tmpfs mount, which needs root (CI "
                       "runs as root); run `rcaeval lab` as root for this scenario")
    path = volume_path(lab_dir)
    path.mkdir(parents=True, exist_ok=True)
    if path.resolve() not in _mounts():
        done = subprocess.run(["mount", "-t", "tmpfs", "-o",
                               f"size={size_mb}m,mode=0700,uid={run_as.uid},gid={run_as.gid}",
                               f"lab-{name}", str(path)], capture_output=True, text=True,
                              timeout=30)
        if done.returncode != 0:
            raise LabError(f"lab: mount of volume {name} failed: {done.stderr.strip()}")
    return path


def fill(path: Path, run_as: RunAs) -> int:
    """Write ``path`` until its filesystem is full; the bytes written."""
    written = 0
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        for size in CHUNKS:
            block = b"\0" * size
            while True:
                try:
                    n = os.write(fd, block)
                except OSError as exc:
                    if exc.errno != errno.ENOSPC:
                        raise
                    break
                written += n
        os.fsync(fd)
    finally:
        os.close(fd)
    if run_as.switch:
        os.chown(path, run_as.uid, run_as.gid)
    return written


def unmount_volumes(lab_dir: Path) -> list[Path]:
    """Unmount the lab's volume (and anything mounted below it); the mount points unmounted."""
    root = volume_path(lab_dir).resolve()
    gone = []
    for mount in reversed(_mounts()):
        if mount == root or root in mount.parents:
            done = subprocess.run(["umount", str(mount)], capture_output=True, timeout=30)
            if done.returncode != 0:  # still busy: detach it now, freed when the last user goes
                subprocess.run(["umount", "-l", str(mount)], capture_output=True, timeout=30)
            gone.append(mount)
    return gone
