"""The HTTP MCP endpoint (`obsidian_memory.py mcp --http`), as everything else sees it: which
addresses it may listen on, its bearer token, the state file a running server leaves, and the
client configuration a user pastes. Import-light (no SDK, no socket until asked): `status`,
`doctor` and the installer use it; `mcp_http` serves.

Files, in our folder of the Claude config dir:
- `mcp-http.token`: the bearer token, made at the first start (or by `install.py --mcp-http`),
  mode 0600. A token file that others may read, that is a symbolic link or that holds no token is
  refused, never used: whoever could read it could call the tools.
- `mcp-http.json`: written by a running server once it listens ({pid, port, addresses, url, ...}),
  removed when it stops. One left by a server that was killed is stale: `status` and `doctor` say
  so, and the next start replaces it.
- `locks/mcp-http.lock`: held while a server runs, so that there is one per config dir.
"""
from __future__ import annotations

import ipaddress
import json
import os
import stat
import time

from obsidian_memory.core import fsutil, json_light
from obsidian_memory.core.errors import UserError

TOKEN_FILE = "mcp-http.token"
STATE_FILE = "mcp-http.json"
LOCK_FILE = os.path.join("locks", "mcp-http.lock")
PATH = "/mcp"
DEFAULT_ADDRESSES = ("127.0.0.1", "::1")   # both loopbacks: "localhost" is ::1 first on some systems
SERVER_NAME = "obsidian-memory"
TOKEN_BYTES = 32                           # secrets.token_urlsafe(32): 43 characters, 256 bits
TOKEN_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
PROBE_TIMEOUT = 0.3


# -- where it may listen -------------------------------------------------------------------------

def listen_addresses(host: str | None) -> tuple[str, ...]:
    """The addresses to bind: both loopbacks by default, else `host` if it is a loopback address.
    Anything else (0.0.0.0, a LAN address, a name) is refused: the tools read the user's vault and
    their past sessions, which nothing beyond this machine's own user may reach."""
    if host is None:
        return DEFAULT_ADDRESSES
    text = host.strip().strip("[]")
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        address = None
    if address is None or not address.is_loopback:
        raise UserError(f"--host {host!r} is refused: the HTTP MCP server listens on a loopback address only "
                        f"(127.0.0.1 or ::1), so that nothing beyond this machine can reach your vault")
    return (str(address),)


def url(port: int, address: str = DEFAULT_ADDRESSES[0]) -> str:
    return f"http://{_host(address)}:{port}{PATH}"


def allowed_hosts(port: int) -> list[str]:
    """The `Host` headers a request may carry: this port on a loopback name. A page that points
    its own domain at 127.0.0.1 (DNS rebinding) sends its domain and is refused."""
    return [f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"]


def allowed_origins(port: int) -> list[str]:
    """The `Origin` headers a request may carry (MCP clients send none; a browser always does):
    only pages served from this very port, which is none of ours."""
    return [f"http://{host}" for host in allowed_hosts(port)]


def _host(address: str) -> str:
    return f"[{address}]" if ":" in address else address


# -- the token ------------------------------------------------------------------------------------

def token_path(home: str) -> str:
    return os.path.join(home, TOKEN_FILE)


def ensure_token(home: str) -> tuple[str, bool]:
    """(the token, whether it was made just now). Made once, mode 0600, by exclusive create of a
    complete file: two starts at once agree on one token."""
    path = token_path(home)
    if not os.path.lexists(path):
        _create_token(path)
        created = True
    else:
        created = False
    return read_token(path), created


def _create_token(path: str) -> None:
    import secrets

    os.makedirs(os.path.dirname(path), exist_ok=True)
    partial = f"{path}.{os.getpid()}.new"
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        try:
            if hasattr(os, "fchmod"):
                os.fchmod(fd, 0o600)      # whatever the umask
            os.write(fd, (secrets.token_urlsafe(TOKEN_BYTES) + "\n").encode("ascii"))
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(partial, path)        # fails if another start made it first: theirs is kept
        except FileExistsError:
            pass
    finally:
        try:
            os.unlink(partial)
        except OSError:
            pass


def read_token(path: str) -> str:
    """The token in `path`, or a UserError saying why it cannot be trusted."""
    token, problem = _checked_token(path)
    if problem:
        raise UserError(problem)
    return token


def token_file_problem(path: str) -> str | None:
    """Why the token file cannot be used (None: it can, or it does not exist yet)."""
    if not os.path.lexists(path):
        return None
    return _checked_token(path)[1]


def _checked_token(path: str) -> tuple[str, str | None]:
    try:
        info = os.lstat(path)
    except OSError as exc:
        return "", f"cannot read {path}: {exc.strerror}"
    if stat.S_ISLNK(info.st_mode):
        return "", f"{path} is a symbolic link: the token must be a file of its own (delete the link)"
    if not stat.S_ISREG(info.st_mode):
        return "", f"{path} is not a regular file: delete it, and the next start makes a new token"
    if os.name != "nt":   # (Windows has no POSIX modes: the file is as private as the user's profile folder)
        if info.st_uid != os.geteuid():
            return "", f"{path} belongs to another user (uid {info.st_uid}): delete it for a new token"
        if info.st_mode & 0o077:
            return "", (f"{path} may be read by others (mode {stat.filemode(info.st_mode)}): if no one else could "
                        f"have read it, `chmod 600 {path}`; otherwise delete it and restart the server for a new "
                        f"token (then update your clients)")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as handle:
            text = handle.read(4096).decode("ascii", "replace").strip()
    except OSError as exc:
        return "", f"cannot read {path}: {exc.strerror}"
    if len(text) < 32 or not set(text) <= TOKEN_ALPHABET:
        return "", f"{path} holds no token of ours: delete it, and the next start makes a new one"
    return text, None


def token_status(home: str) -> dict:
    """For `status` and `doctor`: {"path", "exists", "mode", "problem"}."""
    path = token_path(home)
    info = {"path": path, "exists": os.path.lexists(path), "mode": None, "problem": token_file_problem(path)}
    if info["exists"]:
        info["mode"] = f"{stat.S_IMODE(os.lstat(path).st_mode):04o}"
    return info


# -- the state file of a running server ----------------------------------------------------------

def state_path(home: str) -> str:
    return os.path.join(home, STATE_FILE)


def lock_path(home: str) -> str:
    return os.path.join(home, LOCK_FILE)


def write_state(home: str, port: int, addresses, vault: str) -> dict:
    from obsidian_memory import __version__

    state = {"pid": os.getpid(), "port": port, "addresses": list(addresses), "url": url(port, addresses[0]),
             "vault": vault, "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "version": __version__}
    fsutil.atomic_write_text(state_path(home), json.dumps(state, indent=2) + "\n")
    return state


def remove_state(home: str) -> None:
    """Remove the state file if it is this process's (never another server's)."""
    if (read_state(home) or {}).get("pid") == os.getpid():
        try:
            os.unlink(state_path(home))
        except OSError:
            pass


def read_state(home: str) -> dict | None:
    state = json_light.read_json(state_path(home), 65536)
    if isinstance(state, json_light.Unread):
        return None
    return state if isinstance(state.get("pid"), int) and isinstance(state.get("port"), int) else None


def server_status(home: str) -> dict:
    """Whether a server runs, where, and whether a state file was left behind: {"running",
    "stale", "pid", "port", "url", "detail", "state_path", "token": token_status}. Never raises;
    connects (briefly) to the recorded port on loopback only."""
    info = {"running": False, "stale": False, "pid": None, "port": None, "url": None,
            "state_path": state_path(home), "token": token_status(home)}
    if not os.path.lexists(info["state_path"]):
        info["detail"] = "not running"
        return info
    state = read_state(home)
    if state is None:
        info.update(stale=True, detail=f"{info['state_path']} is unreadable (the next start replaces it)")
        return info
    info.update(pid=state["pid"], port=state["port"], url=state.get("url"))
    if not fsutil.process_alive(state["pid"]):
        info.update(stale=True, detail=f"not running; {info['state_path']} was left by a server that did not stop "
                                       f"cleanly (pid {state['pid']}; the next start replaces it)")
    elif not answers(state.get("addresses") or list(DEFAULT_ADDRESSES), state["port"]):
        info.update(stale=True, detail=f"pid {state['pid']} is alive but nothing answers on port {state['port']}: "
                                       f"{info['state_path']} is stale (the next start replaces it)")
    else:
        info.update(running=True, detail=f"running on {info['url']} (pid {state['pid']})")
    return info


def answers(addresses, port: int, timeout: float = PROBE_TIMEOUT) -> bool:
    import socket

    for address in addresses:
        family = socket.AF_INET6 if ":" in str(address) else socket.AF_INET
        try:
            with socket.socket(family, socket.SOCK_STREAM) as probe:
                probe.settimeout(timeout)
                if probe.connect_ex((str(address), int(port))) == 0:
                    return True
        except OSError:
            continue
    return False


# -- what a user pastes into their clients -----------------------------------------------------------

def client_configuration(port: int, token: str, token_file: str) -> str:
    """Claude Code, Cursor and Claude Desktop, configured for the server on `port`."""
    address = url(port)
    cursor = {"mcpServers": {SERVER_NAME: {"url": address, "headers": {"Authorization": f"Bearer {token}"}}}}
    desktop = {"mcpServers": {SERVER_NAME: {
        "command": "npx", "args": ["-y", "mcp-remote", address, "--header", "Authorization:${AUTH}"],
        "env": {"AUTH": f"Bearer {token}"}}}}
    return "\n".join([
        f"The MCP server answers on {address}, for requests that carry its token (in {token_file}).",
        "",
        "Claude Code (every project; the shell reads the token from the file, so it stays out of your history):",
        f"  claude mcp add --scope user --transport http {SERVER_NAME} {address} \\",
        f"    --header \"Authorization: Bearer $(cat {_shell_path(token_file)})\"",
        "",
        "Cursor (~/.cursor/mcp.json):",
        "  " + json.dumps(cursor),
        "",
        "Claude Desktop (claude_desktop_config.json; through the mcp-remote bridge, which needs Node.js):",
        "  " + json.dumps(desktop),
        "",
        "Keep the token private: anyone holding it can search your vault and your past sessions.",
    ]) + "\n"


def _shell_path(path: str) -> str:
    import shlex

    return shlex.quote(path) if os.name != "nt" else f'"{path}"'
