"""A minimal Chrome DevTools Protocol driver for the browser test: headless Debian chromium
with networking-related background work off and a fresh profile, one page, console errors and
network requests recorded."""

from __future__ import annotations

import asyncio
import base64
import json
import re
import shutil
import subprocess
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--remote-debugging-port=0")

PAGE_PROBE = """(() => {
  const svgs = [...document.querySelectorAll('svg')];
  const drawn = svgs.filter(s => { const r = s.getBoundingClientRect();
                                   return r.width > 0 && r.height > 0; }).length;
  const links = [...document.querySelectorAll('a[href^="#case-"]')].map(a => a.getAttribute('href').slice(1));
  const unresolved = links.filter(id => !document.getElementById(id));
  return JSON.stringify({svgs: svgs.length, drawn, links: links.length, unresolved});
})()"""


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@dataclass
class PageReport:
    svgs: int
    drawn: int
    links: int
    unresolved: list[str]
    console_errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    screenshot: bytes = b""


def inspect_page(html: Path, profile: Path, *, width: int = 1100, height: int = 900) -> PageReport:
    """Open ``html`` in headless chromium and report what drew, which anchors resolve, the
    console errors, every request made, and a PNG screenshot of the first screen."""
    exe = chromium_path()
    assert exe is not None
    proc = subprocess.Popen([exe, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "about:blank"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        # Chromium announces its endpoint on stderr once it listens ("DevTools listening on
        # ws://127.0.0.1:PORT/devtools/browser/ID"); it writes DevToolsActivePort in the
        # profile too, but not necessarily before that line, so the line is what we wait for.
        for line in proc.stderr:
            m = re.search(r"DevTools listening on ws://[^:/]+:(\d+)/", line)
            if m:
                break
        else:
            raise AssertionError(f"chromium exited ({proc.wait()}) without a DevTools endpoint")
        port = int(m.group(1))
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=30) as r:
            pages = [t for t in json.load(r) if t["type"] == "page"]
        return asyncio.run(_drive(pages[0]["webSocketDebuggerUrl"], html, width, height))
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


async def _drive(ws_url: str, html: Path, width: int, height: int) -> PageReport:
    import websockets

    errors: list[str] = []
    requests: list[str] = []
    async with websockets.connect(ws_url, max_size=64 * 1024 * 1024) as ws:
        counter = 0
        loaded = asyncio.Event()

        async def call(method: str, **params: Any) -> dict[str, Any]:
            nonlocal counter
            counter += 1
            my_id = counter
            await ws.send(json.dumps({"id": my_id, "method": method, "params": params}))
            while True:
                msg = json.loads(await ws.recv())
                if msg.get("id") == my_id:
                    if "error" in msg:
                        raise AssertionError(f"{method}: {msg['error']}")
                    return msg.get("result", {})
                _event(msg)

        def _event(msg: dict[str, Any]) -> None:
            method, p = msg.get("method"), msg.get("params", {})
            if method == "Runtime.consoleAPICalled" and p.get("type") == "error":
                errors.append(" ".join(str(a.get("value", a.get("description")))
                                       for a in p.get("args", [])))
            elif method == "Runtime.exceptionThrown":
                errors.append(p["exceptionDetails"].get("text", "exception"))
            elif method == "Log.entryAdded" and p["entry"].get("level") == "error":
                errors.append(p["entry"].get("text", ""))
            elif method == "Network.requestWillBeSent":
                requests.append(p["request"]["url"])
            elif method == "Page.loadEventFired":
                loaded.set()

        for domain in ("Page", "Runtime", "Log", "Network"):
            await call(f"{domain}.enable")
        await call("Emulation.setDeviceMetricsOverride", width=width, height=height,
                   deviceScaleFactor=1, mobile=False)
        await call("Page.navigate", url=html.resolve().as_uri())
        while not loaded.is_set():
            _event(json.loads(await ws.recv()))
        probe = json.loads((await call("Runtime.evaluate", expression=PAGE_PROBE,
                                       returnByValue=True))["result"]["value"])
        shot = await call("Page.captureScreenshot", format="png",
                          clip={"x": 0, "y": 0, "width": width, "height": height, "scale": 0.6})
    return PageReport(svgs=probe["svgs"], drawn=probe["drawn"], links=probe["links"],
                      unresolved=probe["unresolved"], console_errors=errors, requests=requests,
                      screenshot=base64.b64decode(shot["data"]))
