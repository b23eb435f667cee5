"""What ``rcaeval doctor --agent`` asks of the runner: an agent's first step and the incident
tools' import tried the way a run starts them (its sandbox, environment and workspace),
without a case (docs/doctor.md)."""

from __future__ import annotations

import asyncio
import logging
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rcaeval.runner._agents import AgentOutcome
from rcaeval.runner._command import stderr_digest
from rcaeval.runner._proc import kill_group, launch_argv, spawn_async
from rcaeval.runner._sandbox import _probe_argv, sandbox_wrapper
from rcaeval.runner._sandbox_mounts import find_program
from rcaeval.runner._workspace import Workspace, agent_env


def probe_bwrap(exe: str, timeout_s: float) -> subprocess.CompletedProcess[str]:
    """Run bubblewrap ``exe`` with the isolation agents get (own user namespace as
    ``nobody``, no capabilities, PID namespace) around ``true``; ``OSError`` and
    ``TimeoutExpired`` propagate."""
    return subprocess.run(_probe_argv(exe), capture_output=True, text=True, timeout=timeout_s,
                          check=False)


def run_sandboxed(argv: Sequence[str], ws: Workspace,
                  timeout_s: float) -> subprocess.CompletedProcess[str]:
    """``argv`` started as the run starts an agent in ``ws`` (its sandbox wrapper and agent
    environment, the workspace as cwd, stdin closed), output captured; ``OSError`` and
    ``TimeoutExpired`` propagate."""
    env = agent_env(ws)
    return subprocess.run(launch_argv(list(argv), wrapper=sandbox_wrapper(ws, argv, env)),
                          cwd=ws.path, env=env, capture_output=True, text=True,
                          timeout=timeout_s, check=False, stdin=subprocess.DEVNULL)


def agent_program(adapter: Any) -> Path | None:
    """The program an adapter's ``argv`` starts, found as the sandbox mounts it."""
    argv = list(getattr(adapter, "argv", []))
    return find_program(argv[0], None) if argv else None


def acp_handshake(adapter: Any, ws: Workspace, timeout_s: float,
                  client_name: str = "rcaeval-doctor") -> tuple[str | None, str | None]:
    """An ACP agent's ``initialize`` and ``session/new`` (with the incident tools' MCP
    server), each bounded by ``timeout_s``; no prompt is sent. ``(agent, protocol and session,
    None)``, or ``(None, the error)`` with the key line and tail of the agent's stderr."""
    logging.disable(logging.ERROR)  # the acp library logs a dying agent's broken pipe
    try:
        info, err = asyncio.run(_handshake(adapter, ws, timeout_s, client_name))
    except Exception as exc:  # noqa: BLE001 - any failure is the finding
        info, err = None, f"{exc!r}"
    finally:
        logging.disable(logging.NOTSET)
    if err is not None:
        key, tail = stderr_digest(ws.runner_dir / "agent.stderr", 300)
        err += (f": {key}" if key else "") + (f"; stderr: {tail}" if tail else "")
    return info, err


async def _handshake(adapter: Any, ws: Workspace, timeout_s: float,
                     client_name: str) -> tuple[str | None, str | None]:
    from acp import PROTOCOL_VERSION, connect_to_agent
    from acp.schema import ClientCapabilities, FileSystemCapabilities, Implementation

    from rcaeval import __version__
    from rcaeval.runner._acp_client import WorkspaceClient
    from rcaeval.runner._mcp import acp_mcp_servers

    env = agent_env(ws, adapter.env)
    with open(ws.runner_dir / "agent.stderr", "ab") as err_f:
        try:
            proc = await spawn_async(
                adapter.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=err_f, cwd=ws.path, env=env, limit=50 * 1024 * 1024,
                wrapper=sandbox_wrapper(ws, adapter.argv, env))
        except OSError as exc:
            return None, f"cannot start {adapter.argv[0]!r}: {exc}"
        client = WorkspaceClient(ws, AgentOutcome(status="completed"))
        assert proc.stdin is not None and proc.stdout is not None
        conn = connect_to_agent(client, proc.stdin, proc.stdout)
        try:
            init = await asyncio.wait_for(conn.initialize(
                protocol_version=PROTOCOL_VERSION,
                client_capabilities=ClientCapabilities(
                    fs=FileSystemCapabilities(read_text_file=True, write_text_file=True),
                    terminal=False),
                client_info=Implementation(name=client_name, version=__version__)),
                timeout_s)
            session = await asyncio.wait_for(
                conn.new_session(cwd=str(ws.path), mcp_servers=acp_mcp_servers(ws)), timeout_s)
            name = init.agent_info.name if init.agent_info is not None else "unnamed agent"
            return (f"{name}, protocol version {init.protocol_version}, session "
                    f"{session.session_id}"), None
        except TimeoutError:
            return None, f"no answer within {timeout_s:g}s"
        except Exception as exc:  # noqa: BLE001 - connection closed, protocol error
            code = proc.returncode
            return None, f"{exc!r}" + (f" (agent exited with {code})" if code is not None
                                       else "")
        finally:
            proc.stdin.close()
            try:
                await asyncio.wait_for(conn.close(), 2.0)
            except Exception:  # noqa: BLE001, S110 - closing a dead connection
                pass
            kill_group(proc.pid)
            await proc.wait()
