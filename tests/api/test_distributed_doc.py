"""docs/distributed.md's KubeRay recipe is a usable manifest: the YAML blocks parse, the
RayCluster is the current `ray.io/v1` shape (head group, worker groups with consistent replica
bounds, autoscaling on since the recipe relies on `minReplicas: 0`), and every pod mounts the
shared PersistentVolumeClaim the recipe defines at the path the run command uses."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

DOC = Path(__file__).resolve().parents[2] / "docs" / "distributed.md"


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


def test_kuberay_recipe_manifests_are_consistent() -> None:
    docs = [yaml.safe_load(b) for b in _blocks("yaml")]
    by_kind = {d["kind"]: d for d in docs}
    pvc, cluster = by_kind["PersistentVolumeClaim"], by_kind["RayCluster"]
    assert pvc["apiVersion"] == "v1" and "ReadWriteMany" in pvc["spec"]["accessModes"]
    assert cluster["apiVersion"] == "ray.io/v1"
    spec = cluster["spec"]
    assert spec["enableInTreeAutoscaling"] is True
    pods = [spec["headGroupSpec"]["template"]["spec"]]
    for group in spec["workerGroupSpecs"]:
        assert group["groupName"]
        assert group["minReplicas"] <= group["replicas"] <= group["maxReplicas"]
        pods.append(group["template"]["spec"])
    run = " ".join(b for b in _blocks("sh") if "kubectl exec" in b)
    for pod in pods:
        claims = {v["name"]: v["persistentVolumeClaim"]["claimName"] for v in pod["volumes"]}
        for c in pod["containers"]:
            assert c["image"] and c["resources"]["limits"]
            for m in c["volumeMounts"]:
                assert claims[m["name"]] == pvc["metadata"]["name"]
                assert f"--audit-root {m['mountPath']}/" in run
