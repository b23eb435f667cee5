"""A hostile command agent that tries to break out of the sandbox with root's powers and prints
what it got as JSON: its effective capabilities, a tmpfs mount, device nodes of the host's root
disk (and mounting that disk read-only to read a probe file through it), raw and packet
sockets, and reading the probe paths in $ESCAPE_PATHS (os.pathsep-separated). $ESCAPE_DEV is
the root filesystem's ``major:minor``, $ESCAPE_FSTYPE its type, $ESCAPE_VIA_DISK a probe path
relative to that filesystem's root."""

import ctypes
import ctypes.util
import json
import os
import socket
import stat
import sys

libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
MS_RDONLY = 1


found: dict = {"argv": sys.argv[1:], "files": []}
with open("/proc/self/status") as fh:
    for line in fh:
        if line.startswith(("CapEff:", "CapPrm:", "CapBnd:", "Uid:")):
            key, value = line.split(":", 1)
            found[key] = value.strip()
work = os.environ.get("RCAEVAL_WORKSPACE") or os.getcwd()
target = os.path.join(work, "mnt")
os.makedirs(target, exist_ok=True)
devdir = os.path.join(work, "devdir")
os.makedirs(devdir, exist_ok=True)
# a tmpfs of its own (left mounted: device nodes work there, unlike on the nodev workspace)
if libc.mount(b"none", devdir.encode(), b"tmpfs", 0, None) == 0:
    found["mount_tmpfs"] = "ok"
else:
    found["mount_tmpfs"] = "denied: " + os.strerror(ctypes.get_errno())

major, minor = (int(x) for x in os.environ.get("ESCAPE_DEV", "8:0").split(":"))
found["mknod"] = {}
found["disk"] = "no device node"
for where in ("/dev", "/tmp", work, devdir):
    node = os.path.join(where, "rcaeval-escape-disk")
    try:
        os.mknod(node, stat.S_IFBLK | 0o600, os.makedev(major, minor))
    except OSError as exc:
        found["mknod"][where] = "denied: " + exc.strerror
        continue
    found["mknod"][where] = "ok"
    if not found["disk"].startswith("read"):
        fstype = os.environ.get("ESCAPE_FSTYPE", "ext4")
        # read-only, or (when the kernel refuses a read-only second mount of a filesystem
        # mounted read-write) a second mount of the same, already mounted superblock
        if any(libc.mount(node.encode(), target.encode(), fstype.encode(), flags, None) == 0
               for flags in (MS_RDONLY, 0)):
            try:
                with open(os.path.join(target, os.environ.get("ESCAPE_VIA_DISK", "")), "rb") as f:
                    found["disk"] = "read through the host disk: " + f.read(40).decode(
                        "utf-8", "replace")
            except OSError as exc:
                found["disk"] = "mounted, read failed: " + exc.strerror
            finally:
                libc.umount2(target.encode(), 2)
        else:
            found["disk"] = "mount denied: " + os.strerror(ctypes.get_errno())
    os.unlink(node)

for name, family, kind, proto in (("raw_socket", socket.AF_INET, socket.SOCK_RAW,
                                   socket.IPPROTO_ICMP),
                                  ("packet_socket", getattr(socket, "AF_PACKET", 17),
                                   socket.SOCK_RAW, 0)):
    try:
        socket.socket(family, kind, proto).close()
        found[name] = "ok"
    except OSError as exc:
        found[name] = "denied: " + (exc.strerror or str(exc))

for path in filter(None, os.environ.get("ESCAPE_PATHS", "").split(os.pathsep)):
    try:
        with open(path, "rb") as fh:
            found["files"].append(f"{path}: {fh.read(40).decode('utf-8', 'replace')}")
    except OSError:
        pass
sys.stdout.write(json.dumps(found))
