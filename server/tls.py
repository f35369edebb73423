"""HTTPS for phones on the table's Wi-Fi: a browser lets a page use the camera (getUserMedia) only
on a secure page, so `scorekeeper serve --https` serves one with a self-signed certificate made
here with `cryptography` (no openssl binary needed), kept with the data and reused while it still
names this machine's address, and finds the address the phones should open.
"""

from __future__ import annotations

import datetime
import ipaddress
import socket
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

CERT_FILE = "cert.pem"
KEY_FILE = "key.pem"
VALID_DAYS = 825  # the longest validity Apple's browsers accept for a server certificate


def lan_address() -> str:
    """This machine's address on the local network, as the phones reach it: the source address
    of a route towards a private address (a UDP socket's connect sends nothing), else localhost."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))
            address = probe.getsockname()[0]
        except OSError:
            return "127.0.0.1"
    return address if not address.startswith("0.") else "127.0.0.1"


def _names(hosts: list[str]) -> list[x509.GeneralName]:
    names: list[x509.GeneralName] = []
    for host in dict.fromkeys(["localhost", "127.0.0.1", *hosts]):
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            names.append(x509.DNSName(host))
    return names


def _covers(cert_path: Path, hosts: list[str]) -> bool:
    """The certificate at `cert_path` is valid now and names every host."""
    try:
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
        named = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except (OSError, ValueError, x509.ExtensionNotFound):
        return False
    now = datetime.datetime.now(datetime.UTC)
    fresh = cert.not_valid_before_utc <= now < cert.not_valid_after_utc
    return fresh and all(name in named for name in _names(hosts))


def self_signed(folder: Path, hosts: list[str]) -> tuple[Path, Path]:
    """A certificate and key (PEM files in `folder`) for `hosts` (names or IP addresses, with
    localhost always): the ones there when they are valid and name them all, else new ones."""
    folder.mkdir(parents=True, exist_ok=True)
    cert_path, key_path = folder / CERT_FILE, folder / KEY_FILE
    if key_path.exists() and _covers(cert_path, hosts):
        return cert_path, key_path
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "scorekeeper")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=VALID_DAYS))
        .add_extension(x509.SubjectAlternativeName(_names(hosts)), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    key_path.chmod(0o600)
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return cert_path, key_path
