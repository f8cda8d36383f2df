"""A `--ray` address: its form checked before the first point, and the head it names asked,
within a bound, whether it is there and speaks gRPC, before Ray is handed it.

Why: given a malformed address Ray raises from deep inside (a traceback); given a host:port
where nothing answers, or something that is not a Ray head, `ray.init` retries for minutes.
A Ray head's GCS is a gRPC (HTTP/2) server: it answers a client's connection preface with a
SETTINGS frame at once, which is what `probe_ray_head` waits for."""

from __future__ import annotations

import ipaddress
import re
import socket
from dataclasses import dataclass

# Ray's own words for "join the cluster this machine belongs to (or start one)" and "start a
# new local cluster": no address to check.
KEYWORDS = ("auto", "local")
CLIENT_SCHEME = "ray://"
CONNECT_TIMEOUT_S = 5.0
REPLY_TIMEOUT_S = 5.0
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_HOSTNAME = re.compile(rf"(?=.{{1,253}}$){_LABEL}(?:\.{_LABEL})*")
# HTTP/2's client connection preface and an empty SETTINGS frame (RFC 9113 section 3.4).
_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
_SETTINGS = 0x4


class RayAddressError(ValueError):
    """A --ray value that is not an address, in one line."""


class RayHeadError(ConnectionError):
    """Nothing that behaves like a Ray head answered at the address, in one line."""


@dataclass(frozen=True)
class HeadAddress:
    host: str
    port: int


def parse_ray_address(text: str) -> HeadAddress | None:
    """None for auto/local; the host and port of HOST:PORT or ray://HOST:PORT; else
    RayAddressError saying what a right one looks like."""
    value = text.strip()
    if value in KEYWORDS:
        return None
    hint = "use auto, or the head's HOST:PORT (e.g. 10.0.0.5:6379, ray status shows it)"
    rest = value.removeprefix(CLIENT_SCHEME)
    host, sep, port_text = rest.rpartition(":")
    if not sep or not host or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise RayAddressError(f"--ray {text!r} is not an address: {hint}")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise RayAddressError(f"--ray {text!r}: {host!r} is not an IPv6 address") from None
    elif re.fullmatch(r"[\d.]+", host):
        try:
            ipaddress.IPv4Address(host)
        except ValueError:
            raise RayAddressError(f"--ray {text!r}: {host!r} is not an IPv4 address") from None
    elif not _HOSTNAME.fullmatch(host):
        raise RayAddressError(f"--ray {text!r}: {host!r} is not a host name; {hint}")
    return HeadAddress(host, int(port_text))


def probe_ray_head(
    head: HeadAddress,
    connect_timeout_s: float = CONNECT_TIMEOUT_S,
    reply_timeout_s: float = REPLY_TIMEOUT_S,
) -> None:
    """Return when a gRPC server answers at `head` (as a Ray head's GCS does); RayHeadError
    after at most about connect_timeout_s + reply_timeout_s otherwise."""
    where = f"{head.host}:{head.port}"
    advice = "check the address (ray status on the head node shows it) or use --ray auto"
    try:
        sock = socket.create_connection((head.host, head.port), timeout=connect_timeout_s)
    except TimeoutError:
        raise RayHeadError(
            f"no Ray head answered at {where} within {connect_timeout_s:g} s; {advice}"
        ) from None
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise RayHeadError(f"cannot reach a Ray head at {where} ({reason}); {advice}") from None
    with sock:
        sock.settimeout(reply_timeout_s)
        try:
            sock.sendall(_PREFACE)
            header = b""
            while len(header) < 9:
                chunk = sock.recv(9 - len(header))
                if not chunk:
                    break
                header += chunk
        except TimeoutError:
            raise RayHeadError(
                f"{where} accepted a connection but did not answer as a Ray head within "
                f"{reply_timeout_s:g} s; {advice}"
            ) from None
        except OSError as exc:
            reason = exc.strerror or type(exc).__name__
            raise RayHeadError(f"{where} dropped the connection ({reason}); {advice}") from None
    if len(header) < 9 or header[3] != _SETTINGS:
        raise RayHeadError(f"{where} answers, but not as a Ray head (no gRPC reply); {advice}")
