"""Who is asking: the client's address, the same for every rule that counts or trusts one
(the rate limits, django-axes' lockouts, the loopback rule of /metrics, the request log).

Behind a load balancer or a resort's NAT every request comes from the proxy's address. A peer
in ``TRUSTED_PROXIES`` (addresses or CIDR ranges) is believed about the client: the client is
the right-most address of its ``X-Forwarded-For`` that is not itself a trusted proxy, read by
django-ipware. From any other peer the header is ignored, since anyone can write one.
"""

import ipaddress
from functools import cache, lru_cache

from django.conf import settings
from django.http import HttpRequest
from ipware import get_client_ip

# A chain longer than this of trusted proxies names no client: the last one read stands.
MAX_TRUSTED_HOPS = 16
FORWARDED_FOR = ("HTTP_X_FORWARDED_FOR",)
IPV6_COUNTED_PREFIX = 64  # an IPv6 customer usually holds at least a /64


@cache
def _trusted_networks(
    proxies: tuple[str, ...],
) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    return tuple(ipaddress.ip_network(proxy, strict=False) for proxy in proxies)


def is_trusted_proxy(address: str) -> bool:
    if not settings.TRUSTED_PROXIES:  # the default: every request's question, answered at once
        return False
    return _trusted(address, tuple(settings.TRUSTED_PROXIES))


@lru_cache(maxsize=4096)
def _trusted(address: str, proxies: tuple[str, ...]) -> bool:
    """Kept for the addresses seen lately: a flood's few are answered without parsing."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    if ip.version == 6 and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    return any(ip in network for network in _trusted_networks(proxies))


def _forwarded_client(request: HttpRequest) -> str | None:
    """The right-most X-Forwarded-For address that is not a trusted proxy: ipware's client
    behind `hops` proxies recorded in the header, for 0, 1, 2... trusted hops."""
    found = None
    for hops in range(MAX_TRUSTED_HOPS):
        address, _ = get_client_ip(
            request, proxy_count=hops, request_header_order=FORWARDED_FOR, strict=False
        )
        if address is None:
            break
        found = address
        if not is_trusted_proxy(address):
            break
    return found


def client_address(request: HttpRequest) -> str:
    """The client's address (read once per request)."""
    if not hasattr(request, "_client_address"):
        peer = request.META.get("REMOTE_ADDR", "")
        forwarded = _forwarded_client(request) if is_trusted_proxy(peer) else None
        request._client_address = forwarded or peer
    return request._client_address


@lru_cache(maxsize=4096)
def counted_address(address: str) -> str:
    """What the limits count: an IPv4 address as it is, an IPv6 one by its /64 (written as
    the network's first address, still a valid address), since one subscriber line holds a
    whole /64 and could otherwise take a new address for every request. Kept for the
    addresses seen lately: a flood comes from few."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if ip.version == 4:
        return str(ip)
    if ip.ipv4_mapped:
        return str(ip.ipv4_mapped)
    return str(ipaddress.ip_network(f"{ip}/{IPV6_COUNTED_PREFIX}", strict=False).network_address)


def counted_client(request: HttpRequest) -> str:
    """The client as the rate limits and django-axes count it."""
    return counted_address(client_address(request))


def counted_scope_client(scope: dict) -> str:
    """counted_client of an ASGI request from its scope alone, before any request is built
    (the stream process refuses a flood's requests at that cost)."""
    peer = scope["client"][0] if scope.get("client") else ""
    if not is_trusted_proxy(peer):
        return counted_address(peer)
    request = HttpRequest()
    request.META["REMOTE_ADDR"] = peer
    forwarded = [value for name, value in scope["headers"] if name == b"x-forwarded-for"]
    if forwarded:  # several lines as one, as Django's ASGIRequest joins them
        request.META["HTTP_X_FORWARDED_FOR"] = b",".join(forwarded).decode("latin-1")
    return counted_client(request)
