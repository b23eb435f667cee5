"""A command agent that investigates through the incident tools (the MCP config the runner
generated, argv[1]) like mcp_config_agent.py, submits its report, then tampers with the bundle
the tools recorded, as ``$RCAEVAL_TAMPER`` says:

``honest``       nothing (the control);
``forge_log``    adds a log line the incident never logged, under an id of the tools' form;
``edit_metric``  changes one value of a series the tools returned;
``hand_alerts``  replaces gate_checks.json with alerts written by hand;
``files_forge``  (``--tools files``, no server) writes its own bundle from incident/ with the
                 BundleWriter, plus a forged log line.

It also writes ``.rcaeval/agent-env.json`` (its own environment and every workspace file name),
so a test can check the seal key reached it nowhere."""

import asyncio
import json
import os
import sys
from pathlib import Path

MODE = os.environ.get("RCAEVAL_TAMPER", "honest")
WS = Path.cwd()
FORGED = "[FATAL] TiKV panic: the agent wrote this line itself"


def _doc(rel: str) -> dict:
    return json.loads((WS / rel).read_text())


def _put(rel: str, doc: dict) -> None:
    (WS / rel).write_text(json.dumps(doc, indent=2))


def tamper() -> None:
    if MODE == "forge_log":
        doc = _doc("evidences/logs.json")
        doc["entries"].append({"id": "L-tikv-2-99999", "ts": "2026-10-03T14:06:00Z",
                               "level": "FATAL", "component": "tikv", "instance": "tikv-2",
                               "message": FORGED})
        _put("evidences/logs.json", doc)
    elif MODE == "edit_metric":
        doc = _doc("evidences/metrics.json")
        series = next(s for s in doc["series"] if s["points"])
        series["points"][-1][1] = series["points"][-1][1] * 10 + 7
        _put("evidences/metrics.json", doc)
    elif MODE == "hand_alerts":
        _put("evidences/gate_checks.json", {"checks": [
            {"id": "G-0001", "name": "infra_healthy", "status": "fail",
             "detail": "tikv-2 disk is full"}]})


def files_forge() -> None:
    from rcaeval.bundle import BundleWriter
    from rcaeval.examples._diagnosis import render_answer  # noqa: F401 - same env as others

    case = json.loads((WS / "case.json").read_text())
    w = BundleWriter(WS, cluster_id=case.get("cluster_id"),
                     time_window=(case["time_window"]["start"], case["time_window"]["end"])
                     if case.get("time_window") else None)
    for m in ("diagnosis_run.initialized", "guardrails.loaded"):
        w.milestone(m)
    w.set_architecture(json.loads((WS / "incident/topology.json").read_text()))
    w.add_log_entries([{"id": "E-1", "ts": "2026-10-03T14:06:00Z", "level": "FATAL",
                        "message": FORGED}])
    w.add_series([])
    w.add_queries([])
    w.add_finding("tikv-2 panicked", [("log", "E-1")])
    w.set_analysis("tikv-2 panicked")
    w.complete_collection()
    w.final_answer("## Root cause\n\ntikv-2 panicked (a TiKV panic) and restarted.\n")


async def investigate(path: str) -> None:
    from mcp import Client, StdioServerParameters

    from rcaeval.examples._diagnosis import render_answer
    from rcaeval.examples._mcp import investigate
    from rcaeval.tools import client_caller

    server = json.loads(Path(path).read_text())["mcpServers"]["rcaeval"]
    params = StdioServerParameters(command=server["command"], args=server["args"],
                                   env={**os.environ, **server["env"]})
    async with Client(params) as client:
        diag = await investigate(client_caller(client))
    sys.stdout.write(render_answer(diag))


def main() -> None:
    (WS / ".rcaeval/agent-env.json").write_text(json.dumps({
        "env": dict(os.environ),
        "files": sorted(str(p.relative_to(WS)) for p in WS.rglob("*") if p.is_file())}))
    if MODE == "files_forge":
        files_forge()
        return
    asyncio.run(investigate(sys.argv[1]))
    tamper()


main()
