"""The nginx site (deploy/nginx.py renders deploy/nginx-site.conf): what a server gets is
valid nginx, TLS included, and a wrong daphne or static root is refused up front."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from bench.processes import free_port
from deploy.nginx import (
    PLACEHOLDER_CERTIFICATE,
    PLACEHOLDER_CERTIFICATE_KEY,
    production_site,
    write_local,
)

DAPHNES = ["127.0.0.1:8001", "127.0.0.1:8002"]


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for pan.example.com and its key, as files."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "pan.example.com")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(now + datetime.timedelta(days=1))
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "fullchain.pem", folder / "privkey.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


@pytest.mark.nginx
def test_the_production_site_with_its_certificate_is_valid_nginx(tmp_path):
    cert, key = self_signed(tmp_path)
    nginx = write_local(tmp_path / "nginx", port=free_port(), daphnes=DAPHNES, static_root=tmp_path)
    site = production_site(
        server_name="pan.example.com",
        daphnes=DAPHNES,
        static_root="/srv/pan/var/static",
        certificate=str(cert),
        certificate_key=str(key),
    )
    nginx.site.write_text(site)
    nginx.check()  # nginx -t: raises with nginx's words if it rejects the file
    assert "listen 443 ssl http2;" in site
    assert "return 301 https://$host$request_uri;" in site
    assert "hash $request_uri consistent;" in site
    assert "X-Upstream" not in site  # internal addresses stay inside


def test_the_certificate_paths_are_marked_as_placeholders_until_given():
    site = production_site(
        server_name="pan.example.com", daphnes=DAPHNES, static_root="/srv/pan/var/static"
    )
    assert f"ssl_certificate     {PLACEHOLDER_CERTIFICATE};" in site
    assert f"ssl_certificate_key {PLACEHOLDER_CERTIFICATE_KEY};" in site
    assert "PLACEHOLDER PATHS" in site


@pytest.mark.parametrize(
    ("daphnes", "static_root", "refusal"),
    [
        ([], "/srv/pan/var/static", "at least one daphne"),
        (["8001"], "/srv/pan/var/static", "host:port"),
        (["127.0.0.1:http"], "/srv/pan/var/static", "host:port"),
        (DAPHNES, "var/static", "absolute path"),
    ],
)
def test_a_wrong_daphne_or_static_root_is_refused_and_nothing_is_written(
    tmp_path, daphnes, static_root, refusal
):
    with pytest.raises(ValueError, match=refusal):
        write_local(tmp_path / "nginx", port=8080, daphnes=daphnes, static_root=static_root)
    assert not (tmp_path / "nginx").exists()


@pytest.mark.nginx
def test_the_access_log_hides_a_token_sent_in_the_query_string(tmp_path):
    import urllib.error
    import urllib.request

    from bench.processes import running, wait_for_port

    # The daphne behind it is down: nginx answers 502 itself, and still logs the request.
    port = free_port()
    nginx = write_local(
        tmp_path / "nginx",
        port=port,
        daphnes=[f"127.0.0.1:{free_port()}"],
        static_root=tmp_path,
        worker_processes="1",
    )
    with running(nginx.command(), env={}, log=tmp_path / "nginx.out") as proc:
        wait_for_port(port, proc=proc, log=tmp_path / "nginx.out")
        for path in ("/api/account?token=pan_secret1", "/api/stream/event?x=1&access_token=s2"):
            with pytest.raises(urllib.error.HTTPError):
                urllib.request.urlopen(f"{nginx.url}{path}", timeout=10)
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(f"{nginx.url}/tables/?page=2", timeout=10)
    log = (nginx.prefix / "logs" / "access.log").read_text()
    assert "pan_secret1" not in log and "s2" not in log
    assert "GET /api/account?[hidden: it carries a token] HTTP/1.1" in log
    assert "GET /api/stream/event?[hidden: it carries a token] HTTP/1.1" in log
    assert '"GET /tables/?page=2 HTTP/1.1"' in log  # any other query is logged whole
