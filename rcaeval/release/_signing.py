"""Signed metrics artifacts (docs/release.md, "Signing"): ``release metrics --sign-key K``
signs, ``release gate --verify-key K`` (and ``release record``, the report) verify.

A key is HMAC-SHA256 (a shared secret: a file's bytes, or ``$RCAEVAL_RELEASE_KEY``) or
Ed25519 (a PEM private key signs; its PEM public key, or the private key, verifies; via the
``cryptography`` package). ``K`` is a path, or ``env:NAME`` for a secret held in the
environment variable NAME. With no ``K``, ``$RCAEVAL_RELEASE_KEY``, when set, is the key: a
configured key makes an unsigned or wrongly signed artifact a refusal (exit 3).

The signature covers the artifact's canonical form (keys sorted, compact, without the
``signature`` member and with ``provenance.output.sha256`` null: the same bytes the content
hash digests), so any edit -- resealed or not -- breaks it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rcaeval.errors import InputError

KEY_ENV = "RCAEVAL_RELEASE_KEY"
HMAC_SHA256 = "hmac-sha256"
ED25519 = "ed25519"
ALGORITHMS: tuple[str, ...] = (HMAC_SHA256, ED25519)
MIN_HMAC_KEY_BYTES = 16
MAX_KEY_FILE_BYTES = 64 * 1024
SIGNED_PREFIX = b"rcaeval release_metrics/1 signature\n"
"""Prepended to the canonical bytes before signing (domain separation)."""


@dataclass(frozen=True)
class ReleaseKey:
    """A signing or verifying key. ``secret`` for HMAC; ``private``/``public`` for Ed25519."""

    algorithm: str
    source: str
    secret: bytes | None = None
    private: Any = None
    public: Any = None

    @property
    def key_id(self) -> str:
        """A short public name for the key (never the secret itself)."""
        if self.algorithm == HMAC_SHA256:
            assert self.secret is not None
            tag = hmac.new(self.secret, b"rcaeval release key id", hashlib.sha256).hexdigest()
            return f"hmac:{tag[:16]}"
        return f"ed25519:{hashlib.sha256(_raw_public(self.public)).hexdigest()[:16]}"

    def sign(self, message: bytes) -> str:
        if self.algorithm == HMAC_SHA256:
            assert self.secret is not None
            raw = hmac.new(self.secret, SIGNED_PREFIX + message, hashlib.sha256).digest()
        else:
            if self.private is None:
                raise InputError("an Ed25519 public key verifies but cannot sign: give the "
                                 "private key (PEM) to --sign-key", file=self.source,
                                 field="sign_key")
            raw = self.private.sign(SIGNED_PREFIX + message)
        return base64.b64encode(raw).decode("ascii")

    def verify(self, message: bytes, value: str) -> bool:
        try:
            raw = base64.b64decode(value.encode("ascii"), validate=True)
        except (ValueError, UnicodeEncodeError):
            return False
        if self.algorithm == HMAC_SHA256:
            assert self.secret is not None
            want = hmac.new(self.secret, SIGNED_PREFIX + message, hashlib.sha256).digest()
            return hmac.compare_digest(raw, want)
        from cryptography.exceptions import InvalidSignature

        try:
            self.public.verify(raw, SIGNED_PREFIX + message)
        except InvalidSignature:
            return False
        return True


def _raw_public(public: Any) -> bytes:
    from cryptography.hazmat.primitives import serialization

    return bytes(public.public_bytes(serialization.Encoding.Raw,
                                     serialization.PublicFormat.Raw))


def _hmac_key(secret: bytes, source: str, field: str) -> ReleaseKey:
    if len(secret) < MIN_HMAC_KEY_BYTES:
        raise InputError(f"an HMAC-SHA256 key needs at least {MIN_HMAC_KEY_BYTES} bytes, got "
                         f"{len(secret)}", file=source, field=field)
    return ReleaseKey(HMAC_SHA256, source, secret=secret)


def _pem_key(data: bytes, source: str, field: str) -> ReleaseKey:
    try:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import ed25519
    except ImportError as exc:  # pragma: no cover - cryptography is a dependency
        raise InputError("an Ed25519 key needs the 'cryptography' package (pip install "
                         "cryptography)", file=source, field=field) from exc
    try:
        if b"PRIVATE KEY" in data:
            private = serialization.load_pem_private_key(data, password=None)
            if not isinstance(private, ed25519.Ed25519PrivateKey):
                raise InputError(f"only Ed25519 keys are supported, got "
                                 f"{type(private).__name__}", file=source, field=field)
            return ReleaseKey(ED25519, source, private=private, public=private.public_key())
        public = serialization.load_pem_public_key(data)
    except (ValueError, TypeError) as exc:
        raise InputError(f"not a readable PEM key: {exc}", file=source, field=field) from exc
    if not isinstance(public, ed25519.Ed25519PublicKey):
        raise InputError(f"only Ed25519 keys are supported, got {type(public).__name__}",
                         file=source, field=field)
    return ReleaseKey(ED25519, source, public=public)


def load_key(spec: str | Path | None, *, field: str = "key") -> ReleaseKey | None:
    """The key ``spec`` names (a path, or ``env:NAME``); None given, ``$RCAEVAL_RELEASE_KEY``
    when it is set (non-empty), else None (no key configured)."""
    if spec is None:
        env = os.environ.get(KEY_ENV)
        return _hmac_key(env.encode(), f"${KEY_ENV}", field) if env else None
    text = str(spec)
    if text.startswith("env:"):
        name = text[4:]
        value = os.environ.get(name) if name else None
        if not value:
            raise InputError(f"environment variable {name or '(empty name)'} is not set",
                             field=field)
        return _hmac_key(value.encode(), f"${name}", field)
    p = Path(text)
    try:
        st = p.stat()
    except OSError as exc:
        raise InputError(f"cannot read the key file: {exc.strerror}", file=text,
                         field=field) from exc
    if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_KEY_FILE_BYTES:
        raise InputError(f"a key file must be a regular file of at most {MAX_KEY_FILE_BYTES} "
                         "bytes", file=text, field=field)
    data = p.read_bytes()
    if data.lstrip().startswith(b"-----BEGIN"):
        return _pem_key(data, text, field)
    return _hmac_key(data.strip(), text, field)


def sign_document(doc: dict[str, Any], key: ReleaseKey, message: bytes) -> dict[str, Any]:
    """Add the ``signature`` member (algorithm, key id, base64 value) over ``message``."""
    doc["signature"] = {"algorithm": key.algorithm, "key_id": key.key_id,
                        "value": key.sign(message)}
    return doc


def verify_document(doc: dict[str, Any], key: ReleaseKey, message: bytes, where: str) -> None:
    """Refuse ``doc`` unless its ``signature`` verifies with ``key``."""
    sig = doc.get("signature")
    if sig is None:
        raise InputError(f"refused: the artifact is unsigned and a verify key is configured "
                         f"({key.source}); measure it with `release metrics --sign-key`",
                         file=where, field="signature")
    if (not isinstance(sig, dict) or not isinstance(sig.get("value"), str)
            or sig.get("algorithm") not in ALGORITHMS):
        raise InputError("refused: signature must be {algorithm: hmac-sha256|ed25519, key_id, "
                         "value}", file=where, field="signature")
    if sig["algorithm"] != key.algorithm:
        raise InputError(f"refused: the artifact is signed with {sig['algorithm']}, the "
                         f"configured key ({key.source}) is {key.algorithm}", file=where,
                         field="signature.algorithm")
    if not key.verify(message, sig["value"]):
        raise InputError(f"refused: the signature does not verify with the configured key "
                         f"{key.key_id} ({key.source}; the artifact names "
                         f"{sig.get('key_id')!r}): edited, or signed with another key",
                         file=where, field="signature.value")
