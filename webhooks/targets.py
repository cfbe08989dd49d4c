"""Where a webhook may be sent: an http(s) URL whose host resolves only to public addresses.

A receiver's URL is the Administrator's to choose, so without this check the service would
post, on anyone's behalf, to its own loopback interface, the private network it runs in or a
cloud's metadata service (169.254.169.254). Every address the host resolves to must be public;
the check runs when the endpoint is registered (for a clear error) and again before each batch
of sends, whose connection then goes to the address checked, never to a second lookup's (DNS
rebinding). WEBHOOK_ALLOW_PRIVATE_TARGETS=1 lifts it (tests, `make run`); under the production
profile only https:// URLs are taken.
"""

import ipaddress
import re
import socket
from dataclasses import dataclass

from django.conf import settings

from core.errors import Invalid

URL_MAX_LENGTH = 2000
_PORT = r"(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3})"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"


# An IPv6 address in brackets is checked as one when resolved (a bracketed text that is not an
# address cannot be resolved); a full IPv6 grammar here would slow every schema-driven test.
_HOST = rf"(?:{_LABEL}(?:\.{_LABEL})*\.?|\[[0-9A-Fa-f:.]{{2,45}}\])"
# RFC 3986's path and query characters; anything else is percent-encoded (%C3%A9).
_REST = r"(?:[/?](?:[A-Za-z0-9._~!$&'()*+,;=:@/?-]|%[0-9A-Fa-f]{2})*)?"
# What a webhook URL looks like (the OpenAPI document gives this pattern): http or https, a
# host name (ASCII: punycode for others) or an IP address (IPv6 in brackets), an optional
# port, a path and query; no user name or password, no fragment.
URL_PATTERN = rf"^[Hh][Tt][Tt][Pp][Ss]?://{_HOST}(?::{_PORT})?{_REST}$"
_URL = re.compile(URL_PATTERN)

AddressType = ipaddress.IPv4Address | ipaddress.IPv6Address


@dataclass(frozen=True)
class Target:
    """A URL taken apart: where to connect, and what to say in the Host header and TLS."""

    url: str
    scheme: str
    host: str  # without brackets
    port: int
    path: str  # path and query, at least "/"

    @property
    def host_header(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        default = 443 if self.scheme == "https" else 80
        return host if self.port == default else f"{host}:{self.port}"


class RefusedTarget(Exception):
    """The URL may not be sent to; the message says why, for people."""


def parse(url: str) -> Target:
    """The URL's parts, or RefusedTarget naming the rule it breaks."""
    if len(url) > URL_MAX_LENGTH:
        raise RefusedTarget(f"at most {URL_MAX_LENGTH} characters.")
    if not _URL.fullmatch(url):
        raise RefusedTarget(
            "must be an http:// or https:// URL with a host, and no user name, password or "
            "#fragment, other characters percent-encoded (e.g. https://example.org/hooks/trails)."
        )
    scheme, rest = url.split("://", 1)
    scheme = scheme.lower()
    if settings.PRODUCTION and scheme != "https":
        raise RefusedTarget("must be an https:// URL.")
    cut = min((rest.find(mark) for mark in "/?" if mark in rest), default=len(rest))
    authority, path = rest[:cut], rest[cut:]
    if authority.startswith("["):
        host, _, port = authority[1:].partition("]")
        port = port.removeprefix(":")
    else:
        host, _, port = authority.partition(":")
    default = 443 if scheme == "https" else 80
    path = path if path.startswith("/") else f"/{path}"
    return Target(url, scheme, host.lower(), int(port) if port else default, path)


def private_reason(address: AddressType) -> str | None:
    """Why an address is not public ("a loopback address", ...), or None when it is."""
    embedded = _embedded_ipv4(address)
    if embedded is not None:
        return private_reason(embedded)
    if address.is_loopback:
        return "a loopback address"
    if address.is_link_local:
        return "a link-local address"
    if address.is_multicast:
        return "a multicast address"
    if address.is_private:
        return "a private address"
    if not address.is_global:
        return "not a public address"
    return None


def _embedded_ipv4(address: AddressType) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries to (mapped, 6to4, Teredo, NAT64)."""
    if not isinstance(address, ipaddress.IPv6Address):
        return None
    if address.ipv4_mapped:
        return address.ipv4_mapped
    if address.sixtofour:
        return address.sixtofour
    if address.teredo:
        return address.teredo[1]
    if address in ipaddress.IPv6Network("64:ff9b::/96"):
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def _address(host: str) -> AddressType | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def resolve(target: Target) -> list[AddressType]:
    """Every address the host resolves to (the host itself when it is an address)."""
    literal = _address(target.host)
    if literal is not None:
        return [literal]
    try:
        found = socket.getaddrinfo(target.host, target.port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as error:
        raise RefusedTarget(f"the host {target.host} cannot be resolved ({error}).") from None
    addresses = []
    for *_, sockaddr in found:
        address = ipaddress.ip_address(sockaddr[0].split("%", 1)[0])
        if address not in addresses:
            addresses.append(address)
    return addresses


def checked_address(target: Target) -> str | None:
    """The address to connect to: the first the host resolves to, each of them checked to be
    public. None when private targets are allowed (the connection resolves the host then)."""
    if settings.WEBHOOK_ALLOW_PRIVATE_TARGETS:
        return None
    addresses = resolve(target)
    literal = _address(target.host)
    for address in addresses:
        reason = private_reason(address)
        if reason is not None:
            shown = target.host if literal == address else f"{target.host} ({address})"
            raise RefusedTarget(f"{shown} is {reason}; webhooks are sent only to public addresses.")
    return str(addresses[0])


def check_url(url: str) -> str:
    """A URL an endpoint may be registered with, or 400 invalid_field saying why not."""
    try:
        checked_address(parse(url))
    except RefusedTarget as refusal:
        raise Invalid("invalid_field", str(refusal), field="url") from None
    return url
