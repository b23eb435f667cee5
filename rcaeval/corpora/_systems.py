"""The candidate root-cause components and reasons OpenRCA gives its agents per system
(rca/baseline/rca_agent/prompt/basic_prompt_<system>.py), shown in every imported task's
prompt as OpenRCA shows them: the answer must use these exact strings. A system not listed
here gets the components and reasons its record.csv holds."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

_MARKET_PODS = [f"{s}{n}" for s in ("frontend", "shippingservice", "checkoutservice",
                                     "currencyservice", "adservice", "emailservice",
                                     "cartservice", "productcatalogservice",
                                     "recommendationservice", "paymentservice")
                for n in ("-0", "-1", "-2", "2-0")]
_MARKET = (
    [f"node-{i}" for i in range(1, 7)] + _MARKET_PODS
    + ["frontend", "shippingservice", "checkoutservice", "currencyservice", "adservice",
       "emailservice", "cartservice", "productcatalogservice", "recommendationservice",
       "paymentservice"],
    ["container CPU load", "container memory load",
     "container network packet retransmission", "container network packet corruption",
     "container network latency", "container packet loss", "container process termination",
     "container read I/O load", "container write I/O load", "node CPU load", "node CPU spike",
     "node memory consumption", "node disk read I/O consumption",
     "node disk write I/O consumption", "node disk space consumption"])

SYSTEMS: dict[str, tuple[list[str], list[str]]] = {
    "Bank": (["apache01", "apache02", "Tomcat01", "Tomcat02", "Tomcat04", "Tomcat03", "MG01",
              "MG02", "IG01", "IG02", "Mysql01", "Mysql02", "Redis01", "Redis02"],
             ["high CPU usage", "high memory usage", "network latency", "network packet loss",
              "high disk I/O read usage", "high disk space usage", "high JVM CPU load",
              "JVM Out of Memory (OOM) Heap"]),
    "Telecom": ([f"os_{i:03d}" for i in range(1, 23)] + [f"docker_{i:03d}" for i in range(1, 9)]
                + [f"db_{i:03d}" for i in range(1, 14)],
                ["CPU fault", "network delay", "network loss", "db connection limit",
                 "db close"]),
    "Market/cloudbed-1": _MARKET,
    "Market/cloudbed-2": _MARKET,
}


def candidates(system: str, failures: Iterable[Any]) -> tuple[list[str], list[str]]:
    """(components, reasons) to offer for ``system``: OpenRCA's lists, plus any value of
    the dataset's record.csv they lack (in record order)."""
    comps, reasons = (list(x) for x in SYSTEMS.get(system.strip("/"), ([], [])))
    for f in failures:
        if f.component not in comps:
            comps.append(f.component)
        if f.reason not in reasons:
            reasons.append(f.reason)
    return comps, reasons
