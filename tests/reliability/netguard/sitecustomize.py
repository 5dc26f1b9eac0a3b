"""Loaded at start-up by every Python process whose PYTHONPATH holds this folder (the reliability
tests put it there for the CLI, hook, search and detached sweep processes they start).

Every socket connect/bind/listen/sendto and every name lookup is recorded as one JSON line in
$OM_NETGUARD_LOG; all of them raise, except connects to the hosts in $OM_NETGUARD_ALLOW
(comma-separated, e.g. "127.0.0.1" for the Omnisearch engine). Unix sockets are recorded only.
"""
import json
import os
import socket

_LOG = os.environ.get("OM_NETGUARD_LOG")
_ALLOW = {h for h in os.environ.get("OM_NETGUARD_ALLOW", "").split(",") if h}


def _record(**event):
    if not _LOG:
        return
    event["pid"] = os.getpid()
    try:
        with open(_LOG, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(event, default=str) + "\n")
    except OSError:
        pass


def _host(address):
    return address[0] if isinstance(address, tuple) and address else address


def _guard(name, allow_connect=False):
    original = getattr(socket.socket, name)

    def guarded(self, *args):
        address = args[-1] if args else None
        if self.family == getattr(socket, "AF_UNIX", None):
            _record(event=name, family="unix", address=address)
            return original(self, *args)
        allowed = allow_connect and _host(address) in _ALLOW
        _record(event=name, family=int(self.family), address=address, allowed=allowed)
        if not allowed:
            raise PermissionError(f"netguard: socket.{name}({address!r}) refused in this test")
        return original(self, *args)

    setattr(socket.socket, name, guarded)


if _LOG:
    _record(event="loaded")
    for _name in ("connect", "connect_ex"):
        _guard(_name, allow_connect=True)
    for _name in ("bind", "listen", "sendto"):
        _guard(_name)
    _getaddrinfo = socket.getaddrinfo

    def _guarded_getaddrinfo(host, *args, **kwargs):
        allowed = host in _ALLOW
        _record(event="getaddrinfo", address=host, allowed=allowed)
        if not allowed:
            raise PermissionError(f"netguard: name lookup of {host!r} refused in this test")
        return _getaddrinfo(host, *args, **kwargs)

    socket.getaddrinfo = _guarded_getaddrinfo
