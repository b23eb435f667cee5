"""The lab's stack: PostgreSQL 15 under a rate-limited pgbench workload, postgres- and
node-exporter, Prometheus with the lab's alert rules, the lab's own HTTP service and a load
generator. ``up`` starts it fresh in a lab dir; ``down`` stops everything it started;
``status`` reports what runs. All on 127.0.0.1, on free ports, as an unprivileged user."""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rcaeval._paths import queries_dir
from rcaeval.lab import _http
from rcaeval.lab._procs import LabError, RunAs, read_procs, resolve_user, spawn, stop
from rcaeval.lab._volume import unmount_volumes

CONFIG = Path(__file__).parent / "config"
COMPONENTS = ("postgres", "pg_exporter", "node_exporter", "process_exporter", "service",
              "prometheus", "workload", "loadgen")
PROM_JOBS = ("postgres", "node", "process", "service", "supervisor", "prometheus")
DEBIAN_PACKAGES = {"prometheus": "prometheus",
                   "prometheus-postgres-exporter": "prometheus-postgres-exporter",
                   "prometheus-node-exporter": "prometheus-node-exporter",
                   "prometheus-process-exporter": "prometheus-process-exporter",
                   "stress-ng": "stress-ng"}
STATE_FILE = "lab.json"


def default_dir() -> Path:
    """``$RCAEVAL_LAB_DIR``, else ``/tmp/rcaeval-lab-UID`` (reachable by the lab user)."""
    env = os.environ.get("RCAEVAL_LAB_DIR")
    return Path(env) if env else Path(f"/tmp/rcaeval-lab-{os.getuid()}")


def pg_bindir() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"),
                   key=lambda p: int(Path(p).parts[4]) if Path(p).parts[4].isdigit() else 0)
    return Path(found[-1]).parent if found else None


def missing_binaries() -> list[str]:
    """The Debian packages (`make lab-deps`) whose programs are absent."""
    missing = set()
    bindir = pg_bindir()
    if bindir is None or not all((bindir / p).exists() for p in ("pgbench", "psql", "initdb")):
        missing.add("postgresql-15")
    for prog in ("prometheus", "prometheus-postgres-exporter", "prometheus-node-exporter",
                 "prometheus-process-exporter", "stress-ng"):
        if shutil.which(prog) is None:
            missing.add(DEBIAN_PACKAGES[prog])
    return sorted(missing)


def read_state(lab_dir: Path) -> dict[str, Any] | None:
    try:
        return json.loads((lab_dir / STATE_FILE).read_text())
    except (FileNotFoundError, ValueError):
        return None


def _write_state(lab_dir: Path, state: dict[str, Any]) -> None:
    tmp = lab_dir / (STATE_FILE + ".tmp")
    tmp.write_text(json.dumps(state, indent=1, sort_keys=True) + "\n")
    tmp.replace(lab_dir / STATE_FILE)


def _check_reachable(lab_dir: Path, run_as: RunAs) -> None:
    if not run_as.switch:
        return
    for parent in lab_dir.resolve().parents:
        st = parent.stat()
        if not st.st_mode & 0o001 and st.st_uid != run_as.uid:
            raise LabError(f"lab: {lab_dir} is not reachable by user {run_as.name} "
                           f"({parent} is not searchable); pick a lab dir under /tmp")


def _chown_tree(path: Path, run_as: RunAs) -> None:
    if not run_as.switch:
        return
    os.chown(path, run_as.uid, run_as.gid)
    for root, dirs, files in os.walk(path):
        for name in dirs + files:
            os.chown(os.path.join(root, name), run_as.uid, run_as.gid, follow_symlinks=False)


def _client_env(state: dict[str, Any], user: str = "lab") -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PGHOST": "127.0.0.1",
            "PGPORT": str(state["ports"]["postgres"]), "PGUSER": user, "PGDATABASE": "lab",
            "PGCONNECT_TIMEOUT": "5"}


def psql(state: dict[str, Any], *, file: str | None = None, command: str | None = None,
         user: str = "lab", timeout_s: float = 60, variables: dict[str, str] | None = None,
         database: str = "lab") -> str:
    """Run one queries/lab/ file (or a psql meta-command) as ``user``; its output, or a
    :class:`LabError` with psql's message. ``variables`` are psql variables the file
    interpolates (``:"name"`` as a quoted identifier, ``:'name'`` as a literal)."""
    argv = [str(Path(state["pg_bindir"]) / "psql"), "-X", "-q", "-A", "-t", "-v",
            "ON_ERROR_STOP=1", "-d", database]
    for key, value in (variables or {}).items():
        argv += ["-v", f"{key}={value}"]
    argv += ["-f", str(queries_dir() / "lab" / file)] if file else ["-c", command or ""]
    done = subprocess.run(argv, env=_client_env(state, user), capture_output=True, text=True,
                          timeout=timeout_s)
    if done.returncode != 0:
        raise LabError(f"lab: psql {file or command} failed: {done.stderr.strip()}")
    return done.stdout


def _tail(path: Path, n: int = 8) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-n:])
    except FileNotFoundError:
        return "(no log)"


def component_argv(name: str, lab_dir: Path, state: dict[str, Any]) -> tuple[list[str], dict]:
    """The command line and environment of one component."""
    ports, bindir = state["ports"], Path(state["pg_bindir"])
    conf = lab_dir / "conf"
    if name == "postgres":
        return [str(bindir / "postgres"), "-D", str(lab_dir / "pgdata")], {}
    if name == "pg_exporter":
        dsn = f"postgresql://lab@127.0.0.1:{ports['postgres']}/lab?sslmode=disable"
        return (["prometheus-postgres-exporter",
                 f"--web.listen-address=127.0.0.1:{ports['pg_exporter']}",
                 f"--extend.query-path={conf / 'exporter_queries.yaml'}"],
                {"DATA_SOURCE_NAME": dsn})
    if name == "node_exporter":
        return (["prometheus-node-exporter", f"--web.listen-address=127.0.0.1:"
                 f"{ports['node_exporter']}", "--collector.disable-defaults", "--collector.cpu",
                 "--collector.meminfo", "--collector.loadavg", "--collector.filesystem",
                 "--collector.stat"], {})
    if name == "process_exporter":
        return (["prometheus-process-exporter", f"--web.listen-address=127.0.0.1:"
                 f"{ports['process_exporter']}", f"--config.path={conf / 'process_exporter.yml'}",
                 "--threads=false", "--gather-smaps=false"], {})
    if name == "prometheus":
        return (["prometheus", f"--config.file={conf / 'prometheus.yml'}",
                 f"--storage.tsdb.path={lab_dir / 'prometheus'}",
                 f"--web.listen-address=127.0.0.1:{ports['prometheus']}",
                 "--storage.tsdb.retention.time=1d"], {})
    if name == "service":
        logs = lab_dir / "logs" / "service.jsonl"
        return ([state["python"], "-I", str(lab_dir / "bin" / "_supervise.py"), "--unit",
                 "service", "--port", str(ports["supervisor"]), "--log", str(logs), "--",
                 state["python"], "-I", str(lab_dir / "bin" / "_service.py"), "--port",
                 str(ports["service"]), "--pg-port", str(ports["postgres"]),
                 "--log", str(lab_dir / "logs" / "service.jsonl"),
                 "--sql-dir", str(lab_dir / "bin"), "--psql", str(bindir / "psql")], {})
    if name == "workload":
        tps = str(state["workload_tps"])
        return ([str(bindir / "pgbench"), "-n", "-c", "2", "-j", "1", "-R", tps, "-T",
                 "864000", "-P", "30", "-h", "127.0.0.1", "-p", str(ports["postgres"]),
                 "-U", "app", "lab"], {})
    if name == "loadgen":
        return ([state["python"], "-I", str(lab_dir / "bin" / "_loadgen.py"), "--url",
                 f"http://127.0.0.1:{ports['service']}", "--rate",
                 str(state["service_rps"])], {})
    raise LabError(f"lab: unknown component {name!r}")


def _python_for(run_as: RunAs) -> str:
    """A Python the lab user can execute: this one when the lab runs as the current user,
    else the system's ``python3`` (a virtualenv under root's home is out of its reach)."""
    if not run_as.switch:
        return sys.executable
    for cand in ("/usr/bin/python3", shutil.which("python3")):
        if cand and os.access(cand, os.X_OK):
            return cand
    raise LabError("lab: no system python3 for the lab user (apt-get install python3)")


UP_ORDER = ("pg_exporter", "node_exporter", "process_exporter", "service", "prometheus")
STOP_SIGNALS = {"postgres": int(signal.SIGINT)}  # PostgreSQL's fast shutdown


def start_component(lab_dir: Path, state: dict[str, Any], name: str) -> None:
    argv, env = component_argv(name, lab_dir, state)
    run_as = RunAs(state["user"], state["uid"], state["gid"])
    spawn(lab_dir, name, argv, run_as=run_as, log=lab_dir / "logs" / f"{name}.log", env=env,
          order=10 * (COMPONENTS.index(name) + 1), stop_signal=STOP_SIGNALS.get(name, 15))


def wait_ready(lab_dir: Path, state: dict[str, Any], name: str, timeout_s: float = 60) -> None:
    ports = state["ports"]
    checks = {
        "postgres": lambda: subprocess.run(
            [str(Path(state["pg_bindir"]) / "pg_isready"), "-q", "-h", "127.0.0.1", "-U", "lab",
             "-d", "postgres", "-p",
             str(ports["postgres"])], check=False).returncode == 0,
        "pg_exporter": lambda: b"pg_up 1" in (_http.get(
            f"http://127.0.0.1:{ports['pg_exporter']}/metrics") or b""),
        "node_exporter": lambda: _http.get(f"http://127.0.0.1:{ports['node_exporter']}/metrics"),
        "process_exporter": lambda: _http.get(
            f"http://127.0.0.1:{ports['process_exporter']}/metrics"),
        "service": lambda: _http.get(f"http://127.0.0.1:{ports['service']}/healthz")
        and _http.get(f"http://127.0.0.1:{ports['supervisor']}/metrics"),
        "prometheus": lambda: _http.get(f"http://127.0.0.1:{ports['prometheus']}/-/ready"),
    }
    check = checks.get(name)
    if check is None:
        return
    proc = next((p for p in read_procs(lab_dir) if p.name == name), None)

    def ready() -> bool:
        if proc is not None and not proc.alive():
            raise LabError(f"lab: {name} exited during start")
        return bool(check())

    try:
        _http.poll(f"{name} ready", ready, timeout_s=timeout_s)
    except LabError as exc:
        raise LabError(f"{exc}; its log ends:\n{_tail(lab_dir / 'logs' / (name + '.log'))}") \
            from None


def targets_up(state: dict[str, Any]) -> dict[str, str]:
    """Prometheus's scrape targets: job → health (``up``/``down``/``unknown``)."""
    got = _http.get_json(f"http://127.0.0.1:{state['ports']['prometheus']}/api/v1/targets")
    if not got:
        return {}
    return {t["labels"].get("job", "?"): t["health"] for t in got["data"]["activeTargets"]}


def _prepare(lab_dir: Path, run_as: RunAs, workload_tps: float, service_rps: float
             ) -> dict[str, Any]:
    bindir = pg_bindir()
    for sub in ("pgdata", "prometheus", "logs", "run", "conf", "bin", "tmp", "disk"):
        shutil.rmtree(lab_dir / sub, ignore_errors=True)
    for sub in ("logs", "run", "conf", "prometheus", "bin", "tmp"):
        (lab_dir / sub).mkdir(parents=True, exist_ok=True)
    names = ("postgres", "pg_exporter", "node_exporter", "process_exporter", "prometheus",
             "service", "supervisor")
    state = {"dir": str(lab_dir), "user": run_as.name, "uid": run_as.uid, "gid": run_as.gid,
             "pg_bindir": str(bindir), "ports": dict(zip(names, _http.free_ports(len(names)),
                                                         strict=True)),
             "python": _python_for(run_as), "workload_tps": workload_tps,
             "service_rps": service_rps,
             "started_at": datetime.now(UTC).isoformat(timespec="seconds").replace(
                 "+00:00", "Z"), "scenario": None}
    fill = {k: str(v) for k, v in state["ports"].items()}
    prom = (CONFIG / "prometheus.yml").read_text()
    for key, value in {**fill, "rules": str(lab_dir / "conf" / "rules.yml")}.items():
        prom = prom.replace("{" + key + "}", value)
    (lab_dir / "conf" / "prometheus.yml").write_text(prom)
    shutil.copy(CONFIG / "rules.yml", lab_dir / "conf" / "rules.yml")
    shutil.copy(CONFIG / "exporter_queries.yaml", lab_dir / "conf" / "exporter_queries.yaml")
    (lab_dir / "conf" / "process_exporter.yml").write_text(
        (CONFIG / "process_exporter.yml").read_text().replace("{lab_dir}",
                                                               re.escape(str(lab_dir))))
    for log in ("injector.jsonl", "service.jsonl"):
        (lab_dir / "logs" / log).touch()
    for src in ("_service.py", "_loadgen.py", "_supervise.py", "_debugsrv.py"):
        shutil.copy(Path(__file__).parent / src, lab_dir / "bin" / src)
    for sql in ("service_account.sql", "service_deposit.sql", "service_orders.sql"):
        shutil.copy(queries_dir() / "lab" / sql, lab_dir / "bin" / sql)
    _write_state(lab_dir, state)
    _chown_tree(lab_dir, run_as)
    initdb = subprocess.run(
        [str(bindir / "initdb"), "-D", str(lab_dir / "pgdata"), "-U", "lab", "--auth=trust",
         "-E", "UTF8", "--no-instructions"], capture_output=True, text=True, timeout=180,
        cwd=lab_dir, env={"PATH": os.environ.get("PATH", ""), "LANG": "C.UTF-8"},
        **run_as.popen_kwargs())
    if initdb.returncode != 0:
        raise LabError(f"lab: initdb failed: {initdb.stderr.strip() or initdb.stdout.strip()}")
    pgconf = (CONFIG / "postgresql.conf").read_text().replace(
        "{port}", fill["postgres"]).replace("{socket_dir}", str(lab_dir / "run"))
    with open(lab_dir / "pgdata" / "postgresql.conf", "a", encoding="utf-8") as out:
        out.write("\n" + pgconf)
    return state


def up(lab_dir: Path | None = None, *, user: str | None = None, workload_tps: float = 2.0,
       service_rps: float = 2.0, timeout_s: float = 120) -> dict[str, Any]:
    """Start the lab fresh in ``lab_dir`` (whatever an earlier or killed run left running
    there is stopped first); returns the state (ports, user, dir). On failure everything
    started is stopped again and a :class:`LabError` says which component and why."""
    lab_dir = (lab_dir or default_dir()).resolve()
    missing = missing_binaries()
    if missing:
        raise LabError("lab: missing Debian packages: " + ", ".join(missing)
                       + " (run `make lab-deps` as root)")
    run_as = resolve_user(user)
    lab_dir.mkdir(parents=True, exist_ok=True)
    _check_reachable(lab_dir, run_as)
    down(lab_dir)
    state = _prepare(lab_dir, run_as, workload_tps, service_rps)
    try:
        start_component(lab_dir, state, "postgres")
        wait_ready(lab_dir, state, "postgres", timeout_s)
        _init_db(state, timeout_s)
        for name in UP_ORDER:
            start_component(lab_dir, state, name)
        for name in UP_ORDER:
            wait_ready(lab_dir, state, name, timeout_s)
        for name in ("workload", "loadgen"):
            start_component(lab_dir, state, name)
        _http.poll("every Prometheus target up",
                   lambda: (t := targets_up(state)) and len(t) == len(PROM_JOBS)
                   and all(h == "up" for h in t.values()), timeout_s=timeout_s)
    except BaseException:
        down(lab_dir)
        raise
    return state


def _init_db(state: dict[str, Any], timeout_s: float) -> None:
    env = _client_env(state) | {"PGDATABASE": "postgres"}
    bindir = Path(state["pg_bindir"])
    for argv in ([str(bindir / "createdb"), "lab"],
                 [str(bindir / "pgbench"), "-i", "-q", "-s", "1", "lab"]):
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout_s)
        if done.returncode != 0:
            raise LabError(f"lab: {Path(argv[0]).name} failed: {done.stderr.strip()}")
        env["PGDATABASE"] = "lab"
    psql(state, file="setup.sql", timeout_s=timeout_s)
    psql(state, file="template_create.sql", database="postgres", timeout_s=timeout_s)


def down(lab_dir: Path | None = None) -> list[str]:
    """Stop every process the lab started in ``lab_dir`` (injectors first, PostgreSQL last);
    the names of those that were running."""
    lab_dir = (lab_dir or default_dir()).resolve()
    stopped = []
    for proc in reversed(read_procs(lab_dir)):
        if stop(lab_dir, proc):
            stopped.append(proc.name)
    stopped += [f"volume {v.name}" for v in unmount_volumes(lab_dir)]
    state = read_state(lab_dir)
    if state is not None and state.get("scenario"):
        state["scenario"] = None
        _write_state(lab_dir, state)
    return stopped


def status(lab_dir: Path | None = None) -> dict[str, Any]:
    """What runs in ``lab_dir``: each component's pid and liveness, Prometheus's targets and
    firing alerts, the injected scenario."""
    lab_dir = (lab_dir or default_dir()).resolve()
    state = read_state(lab_dir)
    procs = {p.name: p for p in read_procs(lab_dir)}
    out: dict[str, Any] = {"dir": str(lab_dir), "running": bool(procs), "components": {}}
    for name, proc in procs.items():
        out["components"][name] = {"pid": proc.pid, "alive": proc.alive()}
    if state is None:
        return out
    out.update(ports=state["ports"], user=state["user"], scenario=state.get("scenario"))
    if "prometheus" in procs and procs["prometheus"].alive():
        out["targets"] = targets_up(state)
        out["alerts"] = firing_alerts(state)
    return out


def firing_alerts(state: dict[str, Any]) -> list[dict[str, Any]]:
    """Prometheus's alerts in state ``firing`` (name, labels, activeAt)."""
    got = _http.get_json(f"http://127.0.0.1:{state['ports']['prometheus']}/api/v1/alerts")
    if not got:
        return []
    return [{"name": a["labels"].get("alertname"), "labels": a["labels"],
             "summary": (a.get("annotations") or {}).get("summary", ""),
             "active_at": a.get("activeAt")} for a in got["data"]["alerts"]
            if a.get("state") == "firing"]


def write_state(lab_dir: Path, state: dict[str, Any]) -> None:
    _write_state(lab_dir, state)
