"""The report kernel's start options (rcaeval/report/_kernel.py) reach the kernel: it runs over
IPC and logs at CRITICAL only, so the interrupt jupyter_client sends before every shutdown
cannot print "KeyboardInterrupt caught in kernel" on the caller's stderr."""

from __future__ import annotations

import logging
import tempfile

from jupyter_client import KernelManager

from rcaeval.report._kernel import kernel_options
from rcaeval.report._notebook import KERNEL_NAME


def test_report_kernel_runs_over_ipc_and_logs_critical_only() -> None:
    with kernel_options() as opts, tempfile.TemporaryFile("w+") as err:
        km = KernelManager(kernel_name=KERNEL_NAME, config=opts["config"])
        km.start_kernel(extra_arguments=opts["extra_arguments"], stderr=err)
        kc = km.client()
        try:
            kc.start_channels()
            kc.wait_for_ready(timeout=120)
            reply = kc.execute(
                "from ipykernel.kernelapp import IPKernelApp\n"
                "app = IPKernelApp.instance()\n"
                "print(app.log_level, app.transport)", reply=True, timeout=120)
            assert reply["content"]["status"] == "ok"
            request = reply["parent_header"]["msg_id"]
            out = ""
            while True:
                msg = kc.get_iopub_msg(timeout=60)
                if msg["parent_header"].get("msg_id") != request:
                    continue
                if msg["msg_type"] == "stream":
                    out += msg["content"]["text"]
                if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                    break
        finally:
            kc.stop_channels()
            km.shutdown_kernel(now=True)
        assert out.split() == [str(logging.CRITICAL), "ipc"]
        err.seek(0)
        assert err.read() == ""
