"""What the gate checks before it compares: each metric entry against its declared kind and
type, every provenance field's type and range, the .sha256 sidecar, and signatures (HMAC and
Ed25519). An artifact edited and resealed with the public seal() is refused, exit 3 naming
the field, never passed and never exit 5."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from release_kit import capture, write_jsonl  # noqa: E402

import rcaeval.release as rel  # noqa: E402
from rcaeval.cli import main  # noqa: E402

KEY = b"0123456789abcdef-release-secret"


def _resealed(tmp_path: Path, edit: Any, name: str = "M.json") -> Path:
    doc = rel.synthetic_artifact()
    edit(doc)
    p = tmp_path / name
    rel.write_document(rel.seal(doc), p)
    return p


def _gate(capsys, *args: str) -> tuple[int, str]:
    code = main(["release", "gate", *args])
    cap = capsys.readouterr()
    return code, (cap.err + cap.out).replace("\n", " ")


def _set(path: str, value: Any) -> Any:
    def edit(doc: dict[str, Any]) -> None:
        cur = doc
        keys = path.split(".")
        for k in keys[:-1]:
            cur = cur[k]
        cur[keys[-1]] = value
    return edit


RESEALED = [
    ("metrics.known_top1.value", 2.0, "metrics.known_top1.value"),
    ("metrics.known_top1.sample_size", -5, "metrics.known_top1.sample_size"),
    ("provenance.computed_at", "soon", "provenance.computed_at"),
    ("metrics.known_top1.value", [0.99], "metrics.known_top1.value"),
    ("metrics.known_top1.value", {"v": 0.99}, "metrics.known_top1.value"),
    ("metrics.known_top1.value", "0.99", "metrics.known_top1.value"),
    ("metrics.known_top1.value", 0.999, "metrics.known_top1.value"),  # not numerator/denominator
    ("metrics.known_top1.kind", "value", "metrics.known_top1.kind"),  # would skip --strict
    ("metrics.known_top1.ci_low", "0.96", "metrics.known_top1.ci_low"),
    ("metrics.known_top1.ci_low", 0.99, "metrics.known_top1.ci_low"),  # not its Wilson bound
    ("metrics.typedb_outage_runtime_activation_success.value", "false",
     "metrics.typedb_outage_runtime_activation_success.value"),
    ("metrics.destructive_tool_executions.value", True,
     "metrics.destructive_tool_executions.value"),
    ("metrics.destructive_tool_executions.value", 0.5,
     "metrics.destructive_tool_executions.value"),
    ("metrics.activation_p95_seconds.value", -1.0, "metrics.activation_p95_seconds.value"),
    ("metrics.activation_p95_seconds.value", "4.2", "metrics.activation_p95_seconds.value"),
    ("provenance.population.captures.invalid", "none", "provenance.population.captures.invalid"),
    ("provenance.population.captures.in_window", -1,
     "provenance.population.captures.in_window"),
    ("provenance.population.by_case_type.known", 1.5,
     "provenance.population.by_case_type.known"),
    ("provenance.population.by_stage", {"prod": 3}, "provenance.population.by_stage.prod"),
    ("provenance.population.reviews", "many", "provenance.population.reviews"),
    ("provenance.window.start", "2026-11-01T00:00:00+25:00", "provenance.window.start"),
    ("provenance.window.end", "2026-10-01T00:00:00Z", "provenance.window.end"),
    ("provenance.stage", "prod", "provenance.stage"),
    ("provenance.measurement_job.metric_queries_sha256", "abc",
     "provenance.measurement_job.metric_queries_sha256"),
]


@pytest.mark.parametrize(("path", "value", "field"), RESEALED,
                         ids=[f"{p}={v!r}" for p, v, _ in RESEALED])
def test_a_resealed_artifact_of_the_wrong_type_or_range_is_refused(
        tmp_path: Path, capsys, path: str, value: Any, field: str) -> None:
    p = _resealed(tmp_path, _set(path, value))
    for extra in ([], ["--strict"], ["--stage", "assist"]):
        code, text = _gate(capsys, str(p), "--allow-synthetic", *extra)
        assert code == 3, (extra, text)
        assert f"[{field}]" in text, text


def test_a_count_or_rate_over_nothing_must_say_so(tmp_path: Path, capsys) -> None:
    # a value over a sample of 0, or no value over a sample: not what a measurement writes
    p = _resealed(tmp_path, _set("metrics.destructive_tool_executions.sample_size", 0))
    assert _gate(capsys, str(p), "--allow-synthetic")[0] == 3


def test_non_iso_computed_at_under_stage_is_exit_3(tmp_path: Path, capsys) -> None:
    for bad in ("2026-11-15", "1700000000", "2026-11-15T00:00:00+2500"):
        def edit(doc: dict[str, Any], bad: str = bad) -> None:
            doc["provenance"].update(stage="assist", computed_at=bad)
            doc["provenance"]["population"]["by_stage"] = {"assist": 5000}
        p = _resealed(tmp_path, edit)
        code, text = _gate(capsys, str(p), "--allow-synthetic", "--stage", "assist")
        if bad == "2026-11-15":   # a date is an ISO timestamp (midnight UTC): stale, so 3
            assert code == 3 and "days old" in text
        else:
            assert code == 3 and "[provenance.computed_at]" in text


def test_a_deleted_sidecar_is_refused(tmp_path: Path, capsys) -> None:
    """Decision: the .sha256 sidecar release metrics writes is required; deleting it does not
    remove the file-level check."""
    p = _resealed(tmp_path, lambda d: None)
    assert _gate(capsys, str(p), "--allow-synthetic")[0] == 0
    Path(str(p) + ".sha256").unlink()
    code, text = _gate(capsys, str(p), "--allow-synthetic")
    assert code == 3 and "M.json.sha256 is missing" in text


# -- signatures ---------------------------------------------------------------------------

def _measure(tmp_path: Path, *extra: str, name: str = "M.json") -> tuple[int, Path]:
    caps = write_jsonl(tmp_path / "c.jsonl", [capture("a")])
    out = tmp_path / name
    code = main(["release", "metrics", "--captures", str(caps), "--window",
                 "2026-11-01..2026-11-07", "--out", str(out), *extra])
    return code, out


@pytest.fixture
def hmac_key(tmp_path: Path) -> Path:
    k = tmp_path / "release.key"
    k.write_bytes(KEY + b"\n")
    return k


def test_hmac_signed_artifact_verifies_and_edits_do_not(tmp_path: Path, capsys,
                                                        hmac_key: Path) -> None:
    code, out = _measure(tmp_path, "--sign-key", str(hmac_key))
    assert code == 0
    doc = orjson.loads(out.read_bytes())
    assert doc["signature"]["algorithm"] == "hmac-sha256"
    assert KEY.decode() not in out.read_text()
    # one capture: most metrics are not measured, so the gate fails (4) but is not refused
    code, text = _gate(capsys, str(out), "--verify-key", str(hmac_key))
    assert code == 4 and "WARNING" not in text
    # edited and resealed with the public seal(): the content hash matches, the signature not
    doc["provenance"]["stage"] = "staging"
    rel.write_document(rel.seal(doc), out)
    code, text = _gate(capsys, str(out), "--verify-key", str(hmac_key))
    assert code == 3 and "[signature.value]" in text and "does not verify" in text


def test_unsigned_or_wrong_key_is_refused_when_a_key_is_configured(
        tmp_path: Path, capsys, hmac_key: Path, monkeypatch) -> None:
    code, unsigned = _measure(tmp_path, name="U.json")
    assert code == 0 and "signature" not in orjson.loads(unsigned.read_bytes())
    code, text = _gate(capsys, str(unsigned), "--verify-key", str(hmac_key))
    assert code == 3 and "unsigned" in text and "[signature]" in text
    other = tmp_path / "other.key"
    other.write_bytes(b"another-secret-of-enough-length")
    _, signed = _measure(tmp_path, "--sign-key", str(other), name="S.json")
    code, text = _gate(capsys, str(signed), "--verify-key", str(hmac_key))
    assert code == 3 and "does not verify" in text
    # the key from the environment: configured without any option
    monkeypatch.setenv("RCAEVAL_RELEASE_KEY", KEY.decode())
    code, text = _gate(capsys, str(unsigned))
    assert code == 3 and "$RCAEVAL_RELEASE_KEY" in text
    _, env_signed = _measure(tmp_path, name="E.json")          # signed with the env key
    assert orjson.loads(env_signed.read_bytes())["signature"]["algorithm"] == "hmac-sha256"
    assert _gate(capsys, str(env_signed))[0] == 4               # verified, then gated
    assert _gate(capsys, str(env_signed), "--verify-key", "env:RCAEVAL_RELEASE_KEY")[0] == 4
    assert _gate(capsys, str(env_signed), "--verify-key", str(hmac_key))[0] == 4
    monkeypatch.delenv("RCAEVAL_RELEASE_KEY")
    # no key configured: a signed artifact is accepted with a warning that it was not checked
    code, text = _gate(capsys, str(env_signed))
    assert code == 4 and "NOT checked" in text


def test_ed25519_key_pair(tmp_path: Path, capsys) -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ed25519

    priv = ed25519.Ed25519PrivateKey.generate()
    priv_pem = tmp_path / "release.pem"
    priv_pem.write_bytes(priv.private_bytes(serialization.Encoding.PEM,
                                            serialization.PrivateFormat.PKCS8,
                                            serialization.NoEncryption()))
    pub_pem = tmp_path / "release.pub.pem"
    pub_pem.write_bytes(priv.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    code, out = _measure(tmp_path, "--sign-key", str(priv_pem))
    assert code == 0
    assert orjson.loads(out.read_bytes())["signature"]["algorithm"] == "ed25519"
    assert _gate(capsys, str(out), "--verify-key", str(pub_pem))[0] == 4
    # another key pair's public key, and an HMAC key, both refuse it
    other = tmp_path / "other.pub.pem"
    other.write_bytes(ed25519.Ed25519PrivateKey.generate().public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    assert _gate(capsys, str(out), "--verify-key", str(other))[0] == 3
    hk = tmp_path / "h.key"
    hk.write_bytes(KEY)
    code, text = _gate(capsys, str(out), "--verify-key", str(hk))
    assert code == 3 and "[signature.algorithm]" in text
    # a public key cannot sign
    code, _ = _measure(tmp_path, "--sign-key", str(pub_pem), name="P.json")
    assert code == 3


def test_bad_keys_are_input_errors(tmp_path: Path, capsys) -> None:
    short = tmp_path / "short.key"
    short.write_bytes(b"tiny")
    assert _measure(tmp_path, "--sign-key", str(short))[0] == 3
    assert "at least 16 bytes" in capsys.readouterr().err
    assert _measure(tmp_path, "--sign-key", str(tmp_path / "absent.key"))[0] == 3
    assert _measure(tmp_path, "--sign-key", "env:RCAEVAL_NO_SUCH_VARIABLE")[0] == 3
    assert _measure(tmp_path, "--sign-key", str(tmp_path))[0] == 3   # a directory


def test_record_verifies_like_the_gate(tmp_path: Path, capsys, hmac_key: Path) -> None:
    _, unsigned = _measure(tmp_path, name="U.json")
    db = tmp_path / "s.duckdb"
    assert main(["release", "record", str(unsigned), "--db", str(db), "--verify-key",
                 str(hmac_key)]) == 3
    _, signed = _measure(tmp_path, "--sign-key", str(hmac_key), name="S.json")
    assert main(["release", "record", str(signed), "--db", str(db), "--verify-key",
                 str(hmac_key)]) == 0


# -- release metrics input ----------------------------------------------------------------

@pytest.mark.parametrize("confidence", ["1.5", "0", "1", "-0.2", "nan"])
def test_confidence_outside_0_1_is_exit_3(tmp_path: Path, capsys, confidence: str) -> None:
    code, out = _measure(tmp_path, "--confidence", confidence)
    assert code == 3 and not out.exists()
    assert "[confidence]" in capsys.readouterr().err


def test_the_widest_window_is_measured(tmp_path: Path, capsys) -> None:
    caps = write_jsonl(tmp_path / "c.jsonl", [capture("a", at="0001-01-01T00:00:00Z"),
                                              capture("b", at="9999-12-31T23:59:59Z")])
    out = tmp_path / "M.json"
    assert main(["release", "metrics", "--captures", str(caps), "--window",
                 "0001-01-01..9999-12-31", "--out", str(out)]) == 0
    doc = rel.load_artifact(out)
    assert doc["provenance"]["window"]["end"] == "9999-12-31T23:59:59.999999Z"
    assert doc["provenance"]["population"]["captures"]["in_window"] == 2
    for bad in ("0001-01-01..10000-01-01", "2026-11-01T00:00+25:00..2026-11-02",
                "0001-01-01T00:00:00+01:00..2026-01-01"):
        code = main(["release", "metrics", "--captures", str(caps), "--window", bad,
                     "--out", str(out)])
        assert code == 3, bad
        assert "[window." in capsys.readouterr().err
