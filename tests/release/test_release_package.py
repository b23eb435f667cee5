"""The artifact records the knowledge package and activation path it measured
(provenance.knowledge); `release gate --require-package` refuses (exit 3) an artifact
measured on another package, on several, or on none recorded."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import orjson
import pytest
from release_kit import capture, write_jsonl

import rcaeval.release as rel
from rcaeval.cli import main
from rcaeval.errors import InputError

NOW = datetime(2026, 11, 16, tzinfo=UTC)
WIN = "2026-11-01..2026-11-14"


def _served(cid: str, package: str = "kp-7", path: str = "runtime_snapshot") -> dict:
    cap = capture(cid)
    cap["knowledge"] = {"package_id": package, "activation_path": path}
    return cap


def _artifact(tmp_path: Path, rows: list, *extra: str, name: str = "M.json") -> Path:
    src = write_jsonl(tmp_path / f"{name}.jsonl", rows)
    out = tmp_path / name
    code = main(["release", "metrics", "--captures", str(src), "--window", WIN,
                 "--out", str(out), *extra])
    assert code == 0 and out.exists()
    return out


def test_artifact_records_packages_and_paths(tmp_path: Path) -> None:
    m = rel.measure(write_jsonl(tmp_path / "c.jsonl", [
        _served("a"), _served("b"), _served("c", path="typedb"), capture("d")]), WIN)
    assert m.knowledge == {"packages": [
        {"package_id": "kp-7", "activation_path": "runtime_snapshot", "captures": 2},
        {"package_id": "kp-7", "activation_path": "typedb", "captures": 1}], "unrecorded": 1}


def test_require_package(tmp_path: Path, capsys) -> None:
    same = _artifact(tmp_path, [_served("a"), _served("b")])
    # measured on kp-7 alone: the package check passes (the window itself fails the gate:
    # it has no TypeDB outage test, so exit 4, never a refusal)
    doc = rel.load_artifact(same)
    res = rel.check_gate(doc, require_package="kp-7", require_activation_path="runtime_snapshot")
    assert [(r.metric, r.passed) for r in res.rows if r.metric in
            ("knowledge_package", "activation_path")] == [("knowledge_package", True),
                                                          ("activation_path", True)]
    assert main(["release", "gate", str(same), "--require-package", "kp-7"]) == 4
    capsys.readouterr()
    # another package: refused, exit 3, naming the field and the package measured
    assert main(["release", "gate", str(same), "--require-package", "kp-8"]) == 3
    err = capsys.readouterr().err.replace("\n", " ")
    assert "kp-7" in err and "provenance.knowledge" in err
    with pytest.raises(InputError, match="not typedb") as exc:
        rel.check_gate(doc, require_activation_path="typedb")
    assert exc.value.field == "provenance.knowledge.packages[].activation_path"
    # two packages in one window: not a measurement of either
    mixed = _artifact(tmp_path, [_served("a"), _served("b", "kp-8")], name="X.json")
    with pytest.raises(InputError, match="kp-7, kp-8, not kp-7"):
        rel.check_gate(rel.load_artifact(mixed), require_package="kp-7")
    # captures that record no package (capture/1 rows) cannot show what they measured
    partial = _artifact(tmp_path, [_served("a"), capture("b")], name="P.json")
    with pytest.raises(InputError, match="record no knowledge package") as exc:
        rel.check_gate(rel.load_artifact(partial), require_package="kp-7")
    assert exc.value.field == "provenance.knowledge.unrecorded"


def test_artifact_without_knowledge_is_refused_when_a_package_is_required(
        tmp_path: Path) -> None:
    """An artifact written before capture/2 (no provenance.knowledge) still passes the gate
    as before, but cannot satisfy --require-package."""
    doc = rel.synthetic_artifact()
    doc["provenance"].pop("knowledge", None)
    rel.seal(doc)
    p = tmp_path / "old.json"
    rel.write_document(doc, p)
    loaded = rel.load_artifact(p)
    assert rel.check_gate(loaded, allow_synthetic=True, now=NOW).passed
    with pytest.raises(InputError, match="records no knowledge package") as exc:
        rel.check_gate(loaded, allow_synthetic=True, now=NOW, require_package="kp-7")
    assert exc.value.field == "provenance.knowledge"
    assert main(["release", "gate", str(p), "--allow-synthetic", "--require-package",
                 "kp-7"]) == 3


@pytest.mark.parametrize(("knowledge", "field"), [
    ("kp-7", "provenance.knowledge"),
    ({"packages": {}, "unrecorded": 0}, "provenance.knowledge.packages"),
    ({"packages": [{"package_id": "", "activation_path": "x", "captures": 1}],
      "unrecorded": 0}, "provenance.knowledge.packages[0].package_id"),
    ({"packages": [{"package_id": "kp", "activation_path": "x", "captures": 0}],
      "unrecorded": 0}, "provenance.knowledge.packages[0].captures"),
    ({"packages": [], "unrecorded": -1}, "provenance.knowledge.unrecorded"),
])
def test_edited_knowledge_block_is_refused(tmp_path: Path, knowledge, field) -> None:
    doc = rel.synthetic_artifact()
    doc["provenance"]["knowledge"] = knowledge
    rel.seal(doc)
    p = tmp_path / "k.json"
    rel.write_document(doc, p)
    with pytest.raises(InputError) as exc:
        rel.load_artifact(p)
    assert exc.value.field == field


def test_signed_artifact_keeps_working_with_require_package(tmp_path: Path) -> None:
    key = tmp_path / "k.key"
    key.write_text("a-shared-secret-of-enough-bytes\n")
    out = _artifact(tmp_path, [_served("a")], "--sign-key", str(key), name="S.json")
    doc = orjson.loads(out.read_bytes())
    assert doc["signature"]["algorithm"] == "hmac-sha256"
    assert doc["provenance"]["knowledge"]["packages"][0]["package_id"] == "kp-7"
    assert main(["release", "gate", str(out), "--verify-key", str(key),
                 "--require-package", "kp-7"]) == 4          # verified, right package
    assert main(["release", "gate", str(out), "--verify-key", str(key),
                 "--require-package", "kp-9"]) == 3
