"""A self-signed certificate for 127.0.0.1, so Google clients can upload media over https.

googleapiclient rewrites upload URLs to https whatever the endpoint's scheme,
so `clawarena serve --tls` serves TLS with a certificate made here.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class CertPair:
    certfile: Path
    keyfile: Path


def make_self_signed(folder: Path, host: str = "127.0.0.1", days: int = 30) -> CertPair:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    folder.mkdir(parents=True, exist_ok=True)
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "clawarena local")])
    now = dt.datetime.now(dt.timezone.utc)  # certificate validity is outside any world: wall clock is right here
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=days))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(host)), x509.DNSName("localhost")]), critical=False)
        .sign(key, hashes.SHA256())
    )
    pair = CertPair(folder / "cert.pem", folder / "key.pem")
    pair.certfile.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    pair.keyfile.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    pair.keyfile.chmod(0o600)
    return pair
