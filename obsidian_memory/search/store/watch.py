"""Knowing, in a long-running process, that nothing in the vault changed since the last
freshness check, without walking it (Linux inotify; elsewhere there is no watch and every check
walks the vault, as before).

A `VaultWatch` holds one inotify watch per folder the walk would descend (not hidden, not a
symbolic link). Nothing runs in the background: `changed()` reads the kernel's queue without
blocking, at the moment a request asks. The kernel queues an event inside the very call that
changed the file, before that call returns, so a note saved before a request is always seen
by that request's `changed()`. Whatever the watch cannot vouch for counts as a change: a folder
created, moved or deleted (the folders are watched again, before the walk that follows), an
overflowed queue. A note that is a link (symbolic, or hard with another name elsewhere) may
change where no watch hears it: then there is no watch.
When the watch itself breaks (the vault moved, no watch left to add) it says so for good and
every check walks.
"""
from __future__ import annotations

import errno
import os
import stat
import struct
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import ctypes
    from collections.abc import Iterator

_MODIFY, _ATTRIB, _CLOSE_WRITE = 0x2, 0x4, 0x8
_MOVED_FROM, _MOVED_TO, _CREATE, _DELETE = 0x40, 0x80, 0x100, 0x200
_DELETE_SELF, _MOVE_SELF, _UNMOUNT, _Q_OVERFLOW, _IGNORED = 0x400, 0x800, 0x2000, 0x4000, 0x8000
_ONLYDIR, _DONT_FOLLOW, _EXCL_UNLINK, _ISDIR = 0x01000000, 0x02000000, 0x04000000, 0x40000000
_MASK = (_MODIFY | _ATTRIB | _CLOSE_WRITE | _MOVED_FROM | _MOVED_TO | _CREATE | _DELETE | _DELETE_SELF
         | _MOVE_SELF | _ONLYDIR | _EXCL_UNLINK)
_SELF_EVENT = _DELETE_SELF | _MOVE_SELF | _IGNORED   # a watched folder moved or went
_ENTRY_EVENT = _CREATE | _DELETE | _MOVED_FROM | _MOVED_TO
_EVENT = struct.Struct("iIII")                                 # wd, mask, cookie, len (then the name)


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)       # the process's own symbols: libc's among them
        libc.inotify_init1, libc.inotify_add_watch, libc.inotify_rm_watch  # noqa: B018 (present?)
    except (OSError, AttributeError):
        return None
    libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
    libc.inotify_rm_watch.argtypes = [ctypes.c_int, ctypes.c_int]
    return libc


# Filesystems whose every change is made by this kernel, so that inotify hears of it. Not a network
# share (nfs, cifs/smb), not FUSE (sshfs, rclone, cloud drives), not 9p/virtiofs/drvfs (a VM's or
# WSL's view of the host's files): changes made on the other side would never be heard of.
LOCAL_FILESYSTEMS = frozenset({"ext2", "ext3", "ext4", "xfs", "btrfs", "tmpfs", "f2fs", "zfs", "overlay", "jfs",
                               "reiserfs", "bcachefs", "nilfs2"})


LINKED_NOTE = "a note in it is a link (symbolic, or hard with another name)"


def unwatchable(vault: str) -> str | None:
    """Why no watch can serve `vault` at all, or None."""
    if _libc() is None:
        return "inotify is Linux's" if not sys.platform.startswith("linux") else "inotify is not available"
    if not os.path.isdir(vault):
        return "it is not a folder"
    kind = foreign_filesystem(vault)
    return f"it is on a {kind} file system, whose changes made elsewhere are never announced" if kind else None


def foreign_filesystem(vault: str, mountinfo: str = "/proc/self/mountinfo") -> str | None:
    """The type of the first file system under the vault (holding it or mounted inside it) that
    is not one of LOCAL_FILESYSTEMS, or None when all are."""
    kinds = _filesystems(vault, mountinfo)
    if kinds is None:
        return "unknown"
    return next((kind for kind in kinds if kind not in LOCAL_FILESYSTEMS), None)


def _filesystems(vault: str, mountinfo: str) -> list[str] | None:
    """The types of the file system holding the vault and of those mounted inside it (None: unknown)."""
    root = os.path.realpath(vault)
    try:
        with open(mountinfo, encoding="utf-8", errors="surrogateescape") as handle:
            mounts = [_mount(line) for line in handle]
    except OSError:
        return None
    holding, holding_kind, kinds = "", "", []
    for point, kind in filter(None, mounts):
        if root == point or root.startswith(point.rstrip("/") + "/"):
            if len(point) >= len(holding):
                holding, holding_kind = point, kind
        elif point.startswith(root.rstrip("/") + "/"):
            kinds.append(kind)                      # mounted inside the vault
    return [holding_kind, *kinds] if holding else None


def _mount(line: str) -> tuple[str, str] | None:
    """(mount point, file system type) of a line of /proc/self/mountinfo."""
    fields = line.split()
    try:
        point, kind = fields[4], fields[fields.index("-") + 1]
    except (IndexError, ValueError):
        return None
    return _unescape(point), kind


def _unescape(text: str) -> str:
    """mountinfo writes space, tab, newline and backslash as octal escapes."""
    for code in ("040", "011", "012", "134"):
        text = text.replace("\\" + code, chr(int(code, 8)))
    return text


class VaultWatch:
    """Whether anything in `vault` changed since the previous `changed()`. `start` makes one."""

    def __init__(self, libc: ctypes.CDLL, fd: int, vault: str) -> None:
        self._libc, self._fd, self.vault = libc, fd, vault
        self._folders: dict[int, str] = {}     # watch descriptor -> folder
        self.broken = False
        self.reason: str | None = None         # why it broke

    @classmethod
    def start(cls, vault: str) -> "tuple[VaultWatch | None, str | None]":
        """(a watch over `vault`, None), or (None, why there is none)."""
        why = unwatchable(vault)
        if why:
            return None, why
        libc = _libc()
        assert libc is not None          # (`unwatchable` found it)
        fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if fd < 0:
            return None, "no inotify instance left (fs.inotify.max_user_instances)"
        watch = cls(libc, fd, vault)
        watch._watch_folders()
        return (None, watch.reason) if watch.broken else (watch, None)

    def changed(self) -> bool:
        """True when something may have changed since the last call (or the watch is broken)."""
        if self.broken:
            return True
        changed = rewatch = False
        while True:
            try:
                data = os.read(self._fd, 65536)
            except BlockingIOError:
                break
            except OSError as exc:
                self._break(f"its queue cannot be read: {exc.strerror}")
                return True
            for wd, mask, name in self._events(data):
                if mask & (_Q_OVERFLOW | _UNMOUNT):
                    changed = rewatch = True
                elif mask & _SELF_EVENT or (mask & _ISDIR and mask & _ENTRY_EVENT):
                    changed = rewatch = True        # a folder made, moved or deleted
                elif not name.startswith(b"."):      # the walk skips hidden names
                    changed = True
                    if mask & (_CREATE | _MOVED_TO | _ATTRIB) and self._linked_note(wd, name):
                        self._break(LINKED_NOTE)
                        return True
        if rewatch:
            self._watch_folders()
        return changed

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        self.broken = True
        self.reason = self.reason or "closed"

    def _events(self, data: bytes) -> Iterator[tuple[int, int, bytes]]:
        offset = 0
        while offset + _EVENT.size <= len(data):
            wd, mask, _cookie, length = _EVENT.unpack_from(data, offset)
            offset += _EVENT.size
            yield wd, mask, data[offset:offset + length].rstrip(b"\0")
            offset += length

    def _linked_note(self, wd: int, name: bytes) -> bool:
        if not name.lower().endswith(b".md") or wd not in self._folders:
            return False
        try:
            info = os.lstat(os.path.join(os.fsencode(self._folders[wd]), name))
        except OSError:
            return False
        return stat.S_ISLNK(info.st_mode) or info.st_nlink > 1

    def _watch_folders(self) -> None:
        """Watch every folder the walk descends (again: a folder moved in or created since), and
        drop the watches of folders gone. A symbolically linked note breaks the watch (see above)."""
        seen: dict[int, str] = {}
        stack = [self.vault]
        while stack:
            folder = stack.pop()
            wd = self._libc.inotify_add_watch(self._fd, os.fsencode(folder),
                                              _MASK | (_DONT_FOLLOW if folder != self.vault else 0))
            if wd < 0:
                code = _errno()
                if code in (errno.ENOSPC, errno.ENOMEM):
                    self._break("no inotify watch left (fs.inotify.max_user_watches)")
                    return
                if folder == self.vault:
                    self._break(f"its folder cannot be watched: {os.strerror(code)}")
                    return
                continue                     # a folder removed meanwhile: its parent's event says so
            seen[wd] = folder
            try:
                with os.scandir(folder) as entries:
                    for entry in entries:
                        if entry.name.startswith("."):
                            continue
                        if entry.name.lower().endswith(".md") and _linked(entry):
                            self._break(LINKED_NOTE)
                            return
                        if entry.is_dir(follow_symlinks=False):
                            stack.append(entry.path)
            except OSError:
                continue
        for wd in set(self._folders) - set(seen):
            self._libc.inotify_rm_watch(self._fd, wd)
        self._folders = seen

    def _break(self, reason: str) -> None:
        self.reason = reason
        self.close()


def _linked(entry: os.DirEntry[str]) -> bool:
    """A note that is a symbolic link, or a hard link also reachable from elsewhere: written
    through its other name, it changes where no watch hears it."""
    try:
        return entry.is_symlink() or entry.stat(follow_symlinks=False).st_nlink > 1
    except OSError:
        return False


def _errno() -> int:
    import ctypes

    return ctypes.get_errno()
