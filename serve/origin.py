"""Who a request says it is for and where it comes from: the Host and Origin rules of `fif serve`.

A browser page on another site can reach a server on loopback two ways: by DNS rebinding
(its own name resolves to 127.0.0.1, so the request's Host header is that name) and by
cross-site requests (its Origin, or `Sec-Fetch-Site: cross-site`). The server answers only
the names it serves under (loopback names, the bind address, `--allow-host`), and API
calls only from its own page or from clients that are not browsers.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from urllib.parse import urlsplit

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
WILDCARD_BINDS = ("0.0.0.0", "::", "")
SAME_ORIGIN_FETCHES = ("same-origin", "none")
"""`Sec-Fetch-Site` values of a request from the server's own page or typed by the user;
`same-site` is refused too: another port of localhost is the same site."""


def host_name(value: str) -> str:
    """Return the lower-cased name of a Host header (`name:port`, `[v6]:port`) without port."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1 : value.find("]")] if "]" in value else value[1:]
    if value.count(":") == 1:
        return value.partition(":")[0]
    return value  # a bare IPv6 address or a name without port


def allowed_names(bind_host: str, extra: Iterable[str] = ()) -> frozenset[str] | None:
    """Return the Host names a server answers under; None: any (a wildcard bind, no list).

    A server bound to 0.0.0.0 is reached under names it cannot know (the machine's
    addresses and DNS names): without `--allow-host` it accepts any, and its token (which
    a non-loopback bind requires) is what keeps rebinding pages out.
    """
    names = {host_name(name) for name in extra if name.strip()}
    if bind_host in WILDCARD_BINDS and not names:
        return None
    names.update(LOOPBACK_NAMES)
    if bind_host not in WILDCARD_BINDS:
        names.add(host_name(bind_host) if not _is_ipv6(bind_host) else bind_host.lower())
    return frozenset(names)


def host_allowed(host_header: str | None, names: frozenset[str] | None) -> bool:
    """Tell whether a request's Host header names this server (a missing header does not)."""
    if names is None:
        return True
    return host_header is not None and host_name(host_header) in names


def origin_allowed(origin: str, host_header: str | None, names: frozenset[str] | None) -> bool:
    """Tell whether a browser's Origin header is this server's own page.

    The origin's name must be one the server answers under and, when the request names a
    Host, be that host: a page of `localhost:3000` calling `localhost:8000` is refused.
    """
    if origin == "null":
        return False
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return False
    if host_header is not None and parts.netloc.lower() != host_header.strip().lower():
        return False
    return names is None or host_name(parts.netloc) in names


def _is_ipv6(value: str) -> bool:
    try:
        return ipaddress.ip_address(value).version == 6
    except ValueError:
        return False
