"""`serve --https`'s self-signed certificate (server/tls.py) and the join link's QR code
(POST /api/qr): a certificate naming the addresses, reused while it does, an HTTPS round trip to
the app with it, and an SVG QR code of a link."""

from __future__ import annotations

import ipaddress
import ssl
import threading
import time
from pathlib import Path

import httpx
import pytest
import uvicorn
from cryptography import x509
from fastapi.testclient import TestClient

from server.app import create_app
from server.tls import lan_address, self_signed


def test_certificate_names_the_hosts_and_is_reused(tmp_path: Path) -> None:
    cert, key = self_signed(tmp_path / "tls", ["192.168.1.20"])
    loaded = x509.load_pem_x509_certificate(cert.read_bytes())
    names = loaded.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert ipaddress.ip_address("192.168.1.20") in names.get_values_for_type(x509.IPAddress)
    assert "localhost" in names.get_values_for_type(x509.DNSName)
    ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(cert, key)
    first = cert.read_bytes()
    assert self_signed(tmp_path / "tls", ["192.168.1.20"])[0].read_bytes() == first
    # The machine moved to another network: a new certificate names the new address.
    assert self_signed(tmp_path / "tls", ["10.0.0.5"])[0].read_bytes() != first


def test_lan_address_is_an_address() -> None:
    ipaddress.ip_address(lan_address())


def test_https_round_trip(tmp_path: Path) -> None:
    cert, key = self_signed(tmp_path / "tls", ["127.0.0.1"])
    app = create_app(data_dir=tmp_path, reader=lambda *args: None)
    config = uvicorn.Config(
        app, host="127.0.0.1", port=0, log_level="warning", ssl_certfile=cert, ssl_keyfile=key
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("the https server did not start")
        time.sleep(0.05)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        trusted = ssl.create_default_context(cafile=str(cert))
        response = httpx.get(f"https://127.0.0.1:{port}/api/variants", verify=trusted)
        assert response.status_code == 200
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def test_qr_code_of_a_link(tmp_path: Path) -> None:
    with TestClient(create_app(data_dir=tmp_path, reader=lambda *args: None)) as client:
        link = "https://192.168.1.20:8000/#game=0123456789ab&token=abc"
        response = client.post("/api/qr", json={"text": link})
        assert response.status_code == 200
        assert response.headers["content-type"] == "image/svg+xml"
        assert response.text.startswith("<svg") and "<path" in response.text
        other = client.post("/api/qr", json={"text": link + "x"})
        assert other.text != response.text
        assert client.post("/api/qr", json={"text": ""}).status_code == 422
        assert client.post("/api/qr", json={"text": "x" * 1001}).status_code == 422
