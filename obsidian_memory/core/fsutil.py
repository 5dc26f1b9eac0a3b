"""Atomic file writes and vault-path safety. Import-light: used on the SessionStart path."""
from __future__ import annotations

import os
import time

TEMP_PREFIX = ".obsidian-memory-tmp-"


def atomic_write_text(path: str, text: str) -> None:
    """Write `text` to `path` so that readers see the old file or the new one, never half of it.

    The temp file sits beside the target (same filesystem, so the rename is atomic) and is
    hidden (Obsidian, Omnisearch and our own index skip dot-files) and removed on failure.
    """
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: str, data: bytes, mode: int | None = None, *, durable: bool = True) -> None:
    """As atomic_write_text; `mode` (e.g. the replaced file's, which may be 0600) for the new file.
    `durable=False` skips the fsync: for a cache file that a crash may lose (still never half-written)."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = _temp_beside(path, data, mode, durable=durable)
    try:
        if os.path.isdir(path):
            raise IsADirectoryError(f"{path} is a folder")
        os.replace(tmp, path)
    except BaseException:
        unlink_quietly(tmp)
        raise


STALE_TEMP_SECONDS = 3600   # a temp file this old is stale even if its pid is alive again (reused)


def stale_temp_files(folder: str, *, recursive: bool = True) -> list[str]:
    """Temp files of ours (TEMP_PREFIX + pid) in `folder` whose writer is gone: a process killed
    between writing the temp file and renaming it leaves one behind. Files not named by us, and
    those of a writer still running, are never listed."""
    found = []
    now = time.time()
    for current, dirnames, filenames in os.walk(folder, followlinks=False):
        if not recursive:
            dirnames[:] = []
        for name in filenames:
            pid = _temp_file_pid(name)
            if pid is None:
                continue
            path = os.path.join(current, name)
            try:
                if os.path.islink(path):
                    continue
                old = now - os.lstat(path).st_mtime > STALE_TEMP_SECONDS
            except OSError:
                continue
            if old or not process_alive(pid):
                found.append(path)
    return sorted(found)


def _temp_file_pid(name: str) -> int | None:
    if not name.startswith(TEMP_PREFIX):
        return None
    pid, dash, rest = name[len(TEMP_PREFIX):].partition("-")
    return int(pid) if dash and rest and pid.isdigit() else None


def process_alive(pid: int) -> bool:
    """Whether a process with this pid exists here and is not a zombie (killed, not reaped yet: it
    holds and writes nothing; a detached process's reaper may be slow to reap it); when that
    cannot be told, yes (so that nothing of a live process is ever taken for a dead one's)."""
    if pid == os.getpid():
        return True
    if os.name == "nt":   # (os.kill on Windows would end the process)
        return _windows_process_alive(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True   # it exists (another user's, or we cannot tell)
    return not _zombie(pid)


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:     # (Linux; elsewhere: not told)
            return handle.read().rsplit(b")", 1)[-1].split()[:1] == [b"Z"]
    except OSError:
        return False


def _windows_process_alive(pid: int) -> bool:  # pragma: no cover - Windows only
    try:
        import ctypes
        from ctypes import wintypes

        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
        kernel32.OpenProcess.restype = wintypes.HANDLE
        handle = kernel32.OpenProcess(0x1000, False, pid)   # PROCESS_QUERY_LIMITED_INFORMATION
        if not handle:
            return ctypes.get_last_error() != 87   # ERROR_INVALID_PARAMETER: no such process
        try:
            code = wintypes.DWORD()
            if not kernel32.GetExitCodeProcess(handle, ctypes.byref(code)):
                return True
            return code.value == 259   # STILL_ACTIVE
        finally:
            kernel32.CloseHandle(handle)
    except Exception:
        return True


class NotARegularFile(OSError):
    """A FIFO, a device, a folder: never read as a file of ours."""


def open_regular(path: str):
    """`path` opened for reading in binary, only if it is a regular file. Opened without
    blocking (a FIFO would wait for a writer forever) and checked on the open descriptor, so
    that nothing swapped in between a check and the open is read."""
    import stat

    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotARegularFile(f"{path} is not a regular file")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def note_stamps(root: str, paths) -> dict[str, tuple[int, int, int]]:
    """{path: (size, mtime_ns, ctime_ns)} of those vault-relative `paths` under `root` that are
    regular files (a link is not followed; the others are left out): a note's stamp, by which the
    archive's record of the vault says whether a note changed."""
    import stat as stat_module

    found = {}
    for path in paths:
        try:
            info = os.stat(os.path.join(root, *path.split("/")), follow_symlinks=False)
        except (OSError, ValueError):
            continue
        if stat_module.S_ISREG(info.st_mode):
            found[path] = (info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    return found


def undecodable(name: str) -> bool:
    """Whether a file name the system gave us holds bytes that are not UTF-8 (Python keeps them as
    lone surrogates): such a name cannot be stored, printed or sent as text."""
    if name.isascii():
        return False
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def shown_name(path: str) -> str:
    """A path whose undecodable bytes and control characters are shown as \\xNN escapes: safe to
    print, not to open."""
    text = os.fsencode(path).decode("utf-8", "backslashreplace")
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def read_text(path: str) -> str | None:
    """The regular file at `path` as text (UTF-8, invalid bytes replaced), or None when it cannot
    be read or is no regular file (`open_regular`: a FIFO is never waited on)."""
    try:
        with open_regular(path) as handle:
            return handle.read().decode("utf-8", errors="replace")
    except OSError:
        return None


# -- file names that every system the vault syncs to accepts ----------------------------------

# Obsidian refuses these in a file name (Windows and Android forbid most of them, macOS `:`), and
# `#^[]|` break a wikilink to the note.
FORBIDDEN_IN_NAME = frozenset('*"\\/<>:|?#^[]')
_RESERVED_ON_WINDOWS = frozenset(["CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(1, 10)),
                                  *(f"LPT{i}" for i in range(1, 10))])
MAX_NAME_BYTES = 255


def safe_file_name(name: str, replacement: str = "-") -> str:
    """`name` as one file name that Windows, macOS, Linux, Android and Obsidian all accept, and that
    a wikilink can point at: forbidden and control characters replaced, no leading dot (a hidden
    file, which Obsidian ignores), no trailing dot or space, not a name Windows reserves (`CON`,
    `aux.md`, ...), at most 255 bytes of UTF-8 (cut at a character). A valid name comes back as it is."""
    text = "".join(replacement if (c in FORBIDDEN_IN_NAME or ord(c) < 32 or ord(c) == 127
                                   or 0xD800 <= ord(c) <= 0xDFFF) else c for c in name)
    text = text.lstrip(".").rstrip(". ")
    if text.split(".")[0].upper().rstrip(" ") in _RESERVED_ON_WINDOWS:
        text = "_" + text
    encoded = text.encode("utf-8")
    if len(encoded) > MAX_NAME_BYTES:
        text = encoded[:MAX_NAME_BYTES].decode("utf-8", "ignore").rstrip(". ")
    return text or replacement


class OutsideVault(ValueError):
    """A path that would leave the vault."""


def vault_relative(vault: str, relative: str) -> str:
    """Normalise a user-given vault-relative path (`/` or `\\` separators, no leading `/`).

    Refuses anything that leaves the vault: `..` segments, absolute paths, drive letters.
    Returns the cleaned relative path with forward slashes ('' for the vault itself).
    """
    text = (relative or "").replace("\\", "/").strip()
    if text.startswith("/") or (len(text) > 1 and text[1] == ":"):
        raise OutsideVault(f"{relative!r} is not a vault-relative path")
    parts = [p for p in text.split("/") if p not in ("", ".")]
    if any(p == ".." for p in parts):
        raise OutsideVault(f"{relative!r} leaves the vault")
    return "/".join(parts)


def resolve_inside(vault: str, relative: str) -> str:
    """Absolute path for a vault-relative path, refusing one that escapes the vault (symlinks too)."""
    clean = vault_relative(vault, relative)
    root = os.path.realpath(vault)
    target = os.path.realpath(os.path.join(root, *clean.split("/"))) if clean else root
    if target != root and not target.startswith(root + os.sep):
        raise OutsideVault(f"{relative!r} resolves outside the vault")
    return target


def read_note(vault: str, relative: str) -> str | None:
    """The vault note at `relative` as text (`read_text`), or None: outside the vault (a link
    leading out counts), no regular file, or unreadable. The one way every module reads a note
    by its vault path."""
    try:
        return read_text(resolve_inside(vault, relative))
    except ValueError:
        return None


def note_present(vault: str, relative: str) -> bool:
    """Whether the vault-relative note is in the vault: a regular file there, or the placeholder
    iCloud leaves for a note it evicted (`.Name.md.icloud` beside it: the note is there, its
    content in the cloud). A path leaving the vault is not."""
    try:
        target = resolve_inside(vault, relative)
    except ValueError:
        return False
    if os.path.isfile(target):
        return True
    folder, name = os.path.split(target)
    return os.path.isfile(os.path.join(folder, f".{name}.icloud"))


# -- compare-and-swap of a file another program may write at any moment ------------------------

_RENAME_NOREPLACE, _RENAME_EXCHANGE = 1, 2
_AT_FDCWD = -100


def _renameat2():
    """libc's renameat2 (Linux, glibc >= 2.28), or None."""
    global _RENAMEAT2
    if _RENAMEAT2 is False:
        import sys
        _RENAMEAT2 = None
        if sys.platform.startswith("linux"):
            try:
                import ctypes
                libc = ctypes.CDLL(None, use_errno=True)
                function = getattr(libc, "renameat2", None)
                if function is not None:
                    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
                    _RENAMEAT2 = function
            except (OSError, AttributeError):
                _RENAMEAT2 = None
    return _RENAMEAT2


_RENAMEAT2 = False   # (not looked up yet)


def _rename_with(flags: int, source: str, target: str) -> bool:
    """renameat2(source, target, flags); False when this system or filesystem has no such call
    (then the caller does it the portable way). Raises OSError for a real failure."""
    function = _renameat2()
    if function is None:
        return False
    import ctypes
    if function(_AT_FDCWD, os.fsencode(source), _AT_FDCWD, os.fsencode(target), flags) == 0:
        return True
    error = ctypes.get_errno()
    if error in (22, 38, 95):   # EINVAL, ENOSYS, EOPNOTSUPP: this filesystem cannot
        return False
    raise OSError(error, os.strerror(error), target)


def _temp_beside(path: str, data: bytes, mode: int | None, *, durable: bool = True) -> str:
    """A hidden temp file holding `data` beside `path` (same filesystem, so that a rename is
    atomic; Obsidian, Omnisearch and our own index skip dot-files), removed on failure."""
    folder = os.path.dirname(os.path.abspath(path))
    tmp = os.path.join(folder, f"{TEMP_PREFIX}{os.getpid()}-{os.path.basename(path)}")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            if mode is not None and hasattr(os, "fchmod"):
                os.fchmod(fd, mode)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException:
        unlink_quietly(tmp)
        raise
    return tmp


def unlink_quietly(path: str) -> None:
    """Remove `path`; a file that is gone or cannot be removed is left to whoever comes next."""
    try:
        os.unlink(path)
    except OSError:
        pass


def create_new(path: str, data: bytes) -> None:
    """Write a new file at `path`, atomically, only if nothing is there: FileExistsError when a
    file appeared there (another program made it since we looked: the caller reads it)."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = _temp_beside(path, data, None)
    try:
        if _rename_with(_RENAME_NOREPLACE, tmp, path):
            return
        try:
            os.link(tmp, path)        # (fails if the name is taken, as NOREPLACE does)
        except FileExistsError:
            raise
        except OSError:               # a filesystem without hard links: check, then rename
            if os.path.lexists(path):
                raise FileExistsError(17, "File exists", path)
            os.replace(tmp, path)
            return
    finally:
        unlink_quietly(tmp)


def swap_file(path: str, data: bytes, expected: bytes, *, durable: bool = True) -> tuple[bool, bytes, bool]:
    """Compare-and-swap: replace the file at `path` with `data` if it holds `expected`.

    Returns (done, what was there, whether `data` is in place). (True, expected, True) when the
    swap is done. Otherwise the caller merges what was there and tries again: with renameat2's
    RENAME_EXCHANGE (Linux) `data` is in place by then and the bytes returned are exactly what
    it replaced (even a file a sync client renamed over the note after we read it, or a line an
    editor appended a moment ago); without it nothing was replaced. Raises FileNotFoundError when `path` is gone (the note
    was moved or deleted meanwhile: the caller looks for it again).

    Either way the replaced file is read again once no other program holds it open
    (read_when_closed), so that a write an editor had begun lands in what comes back. The
    portable way (no exchange) keeps the old file open across the rename: a file renamed over
    `path` between its check and the rename can still be lost there (docs/vault-writes.md).
    `durable=False`: no fsync before the swap (a retry against a writer racing us: each round
    must be quick to win); the caller syncs what it leaves in place (sync_file).
    """
    mode = None
    try:
        import stat as stat_module
        mode = stat_module.S_IMODE(os.stat(path).st_mode)
    except OSError:
        pass
    tmp = _temp_beside(path, data, mode, durable=durable)
    try:
        if _rename_with(_RENAME_EXCHANGE, tmp, path):
            displaced = read_file_when_closed(tmp)
            return displaced == expected, displaced, True
        with open_regular(path) as old:
            there = old.read()
            if there != expected:
                return False, there, False
            os.replace(tmp, path)
            after = read_when_closed(old)
            return after == expected, after, True
    finally:
        unlink_quietly(tmp)


def sync_file(path: str) -> None:
    """fsync the file at `path` (what a swap without fsync left in place)."""
    try:
        with open_regular(path) as handle:
            os.fsync(handle.fileno())
    except OSError:
        pass


def append_bytes(path: str, data: bytes) -> None:
    """Append to the file at `path` in place (O_APPEND: never over another writer's append)."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | getattr(os, "O_BINARY", 0))
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)


DISPLACED_WAIT_SECONDS = 0.5   # how long a replaced file is waited for while another program holds it open


def read_file_when_closed(path: str) -> bytes:
    """The file at `path` (one an exchange displaced, or one moved aside), read once no other
    program holds it open (bounded: read_when_closed)."""
    with open_regular(path) as handle:
        return read_when_closed(handle)


ASIDE_PREFIX = ".obsidian-memory-aside-"   # not a temp file: a cleanup never removes one


def move_aside(path: str) -> str | None:
    """Move the file at `path` to a hidden name beside it, so that no program opens it by its
    name any more (it is still whole, and put_back gives it its name again). None when it is gone."""
    folder, name = os.path.split(path)
    for number in range(100):
        aside = os.path.join(folder, f"{ASIDE_PREFIX}{os.getpid()}-{number}-{name}")
        try:
            if not _rename_with(_RENAME_NOREPLACE, path, aside):
                if os.path.lexists(aside):
                    continue
                os.rename(path, aside)
            return aside
        except FileExistsError:
            continue
        except FileNotFoundError:
            return None
    raise FileExistsError(17, "no free name to move the file aside", path)


def put_back(aside: str, path: str) -> str:
    """Give a file moved aside its name again, or, when a file holds that name now, a free name
    beside it (`Name (2).md`); never over another file. Returns where it is."""
    stem, extension = os.path.splitext(path)
    for candidate in [path, *(f"{stem} ({number}){extension}" for number in range(2, 100))]:
        try:
            if not _rename_with(_RENAME_NOREPLACE, aside, candidate):
                os.link(aside, candidate)
                unlink_quietly(aside)
            return candidate
        except FileExistsError:
            continue
    return aside


def read_when_closed(handle) -> bytes:
    """All of an open file, read once no other process or thread holds it open (a writer that
    opened the note just before we replaced it may still write into it): on Linux a write lease
    is granted only then. Waits at most DISPLACED_WAIT_SECONDS; elsewhere, reads until the
    file stops changing for a moment."""
    try:
        import fcntl
    except ImportError:
        fcntl = None
    deadline = time.monotonic() + DISPLACED_WAIT_SECONDS
    if fcntl is not None and hasattr(fcntl, "F_SETLEASE"):
        while True:
            try:
                fcntl.fcntl(handle.fileno(), fcntl.F_SETLEASE, fcntl.F_WRLCK)
            except OSError as exc:
                if exc.errno in (11, 16) and time.monotonic() < deadline:   # EAGAIN, EBUSY: open elsewhere
                    time.sleep(0.003)
                    continue
                break      # leases off, or not the file's owner: the portable way
            try:
                handle.seek(0)
                return handle.read()
            finally:
                fcntl.fcntl(handle.fileno(), fcntl.F_SETLEASE, fcntl.F_UNLCK)
    handle.seek(0)
    data = handle.read()
    while time.monotonic() < deadline:
        time.sleep(0.002)
        handle.seek(0)
        again = handle.read()
        if again == data:
            break
        data = again
    return data
