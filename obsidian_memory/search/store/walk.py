"""The walk of the vault that tells whether the index is fresh: every note's stamp.

A note's stamp is (mtime_ns, size, ctime_ns). An edit made in place changes the note's stamp
but not its folder's, so nothing short of one `stat` per note proves that no note changed (a
process that lives long can watch the vault instead: `watch`). This runs before every search,
so it does that and little else: a folder is read through a descriptor (a note's stat does not
resolve its whole path again), the stamps go into one packed array in walk order, and the
fingerprint of the walk (its paths and stamps) is what a search compares with the one the
last complete update stored.

A folder's entries change only with its own stamp (a note added, deleted or renamed in or out
changes the folder's mtime and ctime; a folder replaced is another inode), so a walk that is
given the `state` of an earlier one (`known`) does not list the folders again: it checks that
each folder it listed has the stamp it had then, and stats the notes it found there, by name.
Any folder changed, or anything else it cannot vouch for, and it walks the whole vault as
before. The state is kept only when nothing but the folders' stamps decided what the walk
found (no folder that could not be read, no note that is a link, a local file system), and
only for folders whose stamp was old enough when listed to show a later change (`state`).
At 20,000 notes (16 folders), best of 15 on this machine: 42 ms of CPU for a walk that lists
every folder, 32 for one that lists none (20,000 stats by name in a loop alone: 24 ms, half of
it the kernel's), fingerprints included.

Import-light (no SQLite, no markdown): a search may start the walk before it imports the rest.
"""
from __future__ import annotations

import os
import time
from array import array

from obsidian_memory.core.fsutil import shown_name, undecodable
from obsidian_memory.vault.canvas import is_canvas
from obsidian_memory.vault.excluded import WALK_MARK, ExcludedFiles
from obsidian_memory.vault.sync_conflicts import is_copy_of_ours

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any

    from obsidian_memory.core.settings import Settings
    from obsidian_memory.vault.privacy import Privacy

    # A folder a walk listed: [prefix, st_dev, st_ino, mtime_ns, ctime_ns, first note, end of its notes]
    # (a list: its end is set once its notes are counted).
    Folder = list[Any]

# POSIX: a folder is listed through a descriptor and its entries are stat'ed relative to it
_BY_DESCRIPTOR = os.scandir in os.supports_fd and os.stat in os.supports_dir_fd
_DIRECTORY = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)


class Walk:
    """What a walk found: the vault-relative `paths` of the notes in walk order, their stamps
    packed three by three in `stamps` (mtime_ns, size, ctime_ns), and the names it left out
    (`skipped`: not valid UTF-8, shown escaped). A walk of the folders also says which folders
    it listed and with what stamp (`folders`: [prefix, st_dev, st_ino, mtime_ns, ctime_ns, first
    note, end of its notes] in walk order), when it started (`started_ns`), whether those
    stamps alone decided what it found (`trusted`) and whether it listed them (`listed`) or
    only checked them against an earlier walk's state."""
    __slots__ = ("paths", "stamps", "skipped", "folders", "started_ns", "trusted", "listed", "basis")

    def __init__(self, paths: list[str], stamps: array[int], skipped: list[str]) -> None:
        self.paths, self.stamps, self.skipped = paths, stamps, skipped
        self.folders: list[Folder] = []
        self.started_ns = 0
        self.trusted = self.listed = False
        self.basis: list[Any] = []     # [the vault's real path, the ignore patterns, the privacy rules' signature]

    def __len__(self) -> int:
        return len(self.paths)

    def __iter__(self) -> Iterator[str]:
        return iter(self.paths)

    def by_path(self) -> dict[str, tuple[int, int, int]]:
        """{path: stamp}."""
        s = self.stamps
        return dict(zip(self.paths, zip(s[0::3], s[1::3], s[2::3])))

    def fingerprint(self) -> str:
        """A digest of the paths, the names left out and the stamps, in walk order."""
        import hashlib

        digest = hashlib.blake2b(digest_size=16)
        digest.update("\n".join([*self.paths, "", *self.skipped]).encode("utf-8", "surrogateescape"))
        digest.update(self.stamps.tobytes())
        return digest.hexdigest()

    @classmethod
    def of(cls, stamps: dict[str, tuple[int, int, int]], skipped: list[str] | None = None) -> "Walk":
        """The walk that would have found these {path: stamp}, in this order."""
        return cls(list(stamps), array("q", [n for stamp in stamps.values() for n in stamp]), list(skipped or ()))

    def state(self, settled: Callable[[int, int], bool]) -> str | None:
        """What a later walk needs to check the folders instead of listing them (`walk_vault`'s
        `known`), or None when this walk cannot vouch for its folders: something besides their
        stamps decided what it found, a folder's mtime was too recent when it was listed to show
        a change made after (`settled(mtime_ns, started_ns)` says which are old enough), a name
        holds a line break, or the vault is on a file system that may change without this
        machine's kernel updating folder stamps (a network share, FUSE, not Linux: there is no
        telling which). A walk that only checked the folders passes on the state it was given."""
        if not self.trusted:
            return None
        joined = "\n".join(self.paths)
        if self.listed:
            if any(not settled(folder[3], self.started_ns) for folder in self.folders) \
                    or joined.count("\n") != max(0, len(self.paths) - 1):
                return None
            from obsidian_memory.search.store.watch import foreign_filesystem

            if foreign_filesystem(self.basis[0]) is not None:
                return None
        fields = [str(value) for folder in self.folders for value in folder]
        return "\0".join([_STATE_FORMAT, repr(self.basis), str(len(self.folders)), *fields, joined, *self.skipped])


_STATE_FORMAT = "walk state 2"     # `Walk.state`: fields joined by NUL (json would cost a search its import)
# (2: canvases are walked too; a state of 1 listed notes only)


def ignore_patterns(settings: Settings) -> tuple[str, ...]:
    """What the walk of the vault of `settings` leaves out: the `index_ignore` globs and the notes
    Obsidian's Excluded files cover (vault/excluded)."""
    return tuple(settings.index_ignore or ()) + ExcludedFiles.of(settings).walk_patterns()


def walk_vault(vault: str, ignore: tuple[str, ...] = (), skipped: list[str] | None = None,
               privacy: Privacy | None = None, known: str | None = None) -> Walk:
    """Every Markdown note of the vault and its stamp. Hidden files and folders (.obsidian,
    .trash, our temp files), ignored patterns and private folders, notes and patterns
    (`privacy`'s paths: the notes private by their text are found by reading) are skipped, and so
    are symlinked folders (as the scanner does: no loops, no duplicates, nothing outside), symlinked
    notes that resolve outside the vault and a sync tool's conflict copies of our notes (a session
    would be found twice). A note or folder whose name is not valid UTF-8 cannot be stored or
    shown: it is left out and its name (escaped) added to `skipped` (and to the walk's).
    `known`: the `state` of an earlier walk with the same settings; its folders are checked
    instead of listed when none changed."""
    patterns = tuple(p if p.startswith(WALK_MARK) else p.strip().strip("/")
                     for p in ignore if p and p.strip().strip("/"))
    basis = [os.path.realpath(vault), list(patterns), privacy.signature() if privacy is not None else ""]
    found = _rewalk(vault, known, basis) if known and _BY_DESCRIPTOR else None
    if found is None:
        found = _walk(vault, patterns, privacy)
    found.basis = basis
    if skipped is not None:
        skipped += found.skipped
    return found


def _walk(vault: str, patterns: tuple[str, ...], privacy: Privacy | None) -> Walk:
    """The walk that lists every folder."""
    started = time.time_ns()
    paths: list[str] = []
    stamps = array("q")
    add = stamps.extend
    left_out: list[str] = []
    folders: list[Folder] = []
    trusted = _BY_DESCRIPTOR
    hidden = privacy.hides_entry if privacy is not None and privacy.has_paths else None
    ignored = left_out_by(patterns)
    root = None
    stack = [("", vault)]
    while stack:
        prefix, folder = stack.pop()
        handle: Any         # a descriptor of the folder, or its path where folders are not read by one
        try:
            handle = os.open(folder, _DIRECTORY) if _BY_DESCRIPTOR else folder
        except OSError:
            trusted = False
            continue
        try:
            if _BY_DESCRIPTOR:
                info = os.fstat(handle)      # (before the listing: a change made during it changes the stamp)
                folders.append([prefix, info.st_dev, info.st_ino, info.st_mtime_ns, info.st_ctime_ns, len(paths), 0])
            with os.scandir(handle) as entries:
                for entry in entries:
                    name = entry.name
                    if name[0] == ".":
                        continue
                    try:
                        if entry.is_dir():
                            if entry.is_symlink() or (patterns and ignored(prefix + name, True)) \
                                    or (hidden and hidden(prefix + name)):
                                continue
                            if undecodable(name):
                                left_out.append(shown_name(prefix + name + "/"))
                                continue
                            stack.append((prefix + name + "/", os.path.join(folder, name)))
                        elif name[-3:] == ".md" or name[-3:].lower() == ".md" or is_canvas(name):
                            if not name.isascii() and undecodable(name):
                                left_out.append(shown_name(prefix + name))
                                continue
                            if ((name[0] == "c" or name[0].isdigit()) and is_copy_of_ours(name)) \
                                    or (patterns and ignored(prefix + name)) \
                                    or (hidden and hidden(prefix + name)):
                                continue
                            if entry.is_symlink():
                                trusted = False          # (its target may move without this folder changing)
                                root = root or os.path.realpath(vault)
                                if not _inside(os.path.realpath(os.path.join(folder, name)), root):
                                    continue
                            st = entry.stat()
                            add((st.st_mtime_ns, st.st_size, st.st_ctime_ns))
                            paths.append(prefix + name)
                    except OSError:
                        trusted = False
                        continue
        except OSError:
            trusted = False
            continue
        finally:
            if handle is not folder:
                os.close(handle)
            if folders and folders[-1][0] == prefix:
                folders[-1][6] = len(paths)
    found = Walk(paths, stamps, left_out)
    found.folders, found.started_ns, found.trusted, found.listed = folders, started, trusted, True
    return found


def _rewalk(vault: str, known: str, basis: list[Any]) -> Walk | None:
    """The walk from an earlier walk's `state`: each folder it listed checked (the same inode
    and stamp: the same entries), each note it found there stat'ed by name. None when a folder
    changed or anything else is not as the state says: then every folder is listed again."""
    try:
        parts = known.split("\0")       # (no name holds a NUL)
        if parts[0] != _STATE_FORMAT or parts[1] != repr(basis):
            return None
        count = int(parts[2])
        fields = parts[3:3 + 7 * count]
        folders: list[Folder] = [[fields[at], *map(int, fields[at + 1:at + 7])] for at in range(0, len(fields), 7)]
        paths = parts[3 + 7 * count].split("\n") if parts[3 + 7 * count] else []
        skipped = parts[4 + 7 * count:]
        covered = 0
        for prefix, device, inode, mtime_ns, ctime_ns, first, end in folders:    # (all first: a change costs little)
            if first != covered or not _has_stamp(os.path.join(vault, prefix), device, inode, mtime_ns, ctime_ns):
                return None
            covered = end
    except (ValueError, IndexError, TypeError):
        return None
    stamps = array("q")
    add = stamps.append          # (three appends: cheaper than extending by a tuple, at 20,000 notes ~2 ms)
    stat = os.stat
    for prefix, device, inode, mtime_ns, ctime_ns, first, end in folders:
        try:
            handle = os.open(os.path.join(vault, prefix), _DIRECTORY)
        except OSError:
            return None
        try:
            if not _has_stamp(handle, device, inode, mtime_ns, ctime_ns):
                return None
            cut = len(prefix)
            for path in paths[first:end]:
                st = stat(path[cut:], dir_fd=handle, follow_symlinks=False)
                add(st.st_mtime_ns)
                add(st.st_size)
                add(st.st_ctime_ns)
        except OSError:
            return None          # (a note gone since the folder's check: a change; the full walk says which)
        finally:
            os.close(handle)
    if covered != len(paths):
        return None
    found = Walk(paths, stamps, skipped)
    found.folders, found.trusted = folders, True
    return found


def _has_stamp(folder: int | str, device: int, inode: int, mtime_ns: int, ctime_ns: int) -> bool:
    """Whether the folder (a path or a descriptor) is that inode with that stamp."""
    try:
        info = os.stat(folder)
    except OSError:
        return False
    return (info.st_dev, info.st_ino, info.st_mtime_ns, info.st_ctime_ns) == (device, inode, mtime_ns, ctime_ns)


def _inside(path: str, root: str) -> bool:
    root = os.path.realpath(root)
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def left_out_by(patterns: tuple[str, ...]) -> Callable[..., bool]:
    """`(rel, folder) -> bool`: whether a glob of `patterns` (index_ignore), or Obsidian's Excluded
    files (the entry `ExcludedFiles.walk_patterns` gives), covers the note or the folder `rel`;
    the patterns sorted out once per walk."""
    globs = tuple(p for p in patterns if not p.startswith(WALK_MARK))
    rules = [ExcludedFiles.of_pattern(p) for p in patterns if p.startswith(WALK_MARK)]

    def left_out(rel: str, folder: bool = False) -> bool:
        return bool(globs) and _glob_covers(rel, globs) or \
            any(r.covers_folder(rel) if folder else r.covers(rel) for r in rules)
    return left_out


def _glob_covers(rel: str, patterns: tuple[str, ...]) -> bool:
    import fnmatch

    for pattern in patterns:
        candidates = (pattern, pattern[3:]) if pattern.startswith("**/") else (pattern,)
        for p in candidates:
            if fnmatch.fnmatchcase(rel, p) or fnmatch.fnmatchcase(rel, p.rstrip("*").rstrip("/") or p):
                return True
    return False
