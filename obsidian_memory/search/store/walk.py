"""The walk of the vault that tells whether the index is fresh: every note's stamp.

A note's stamp is (mtime_ns, size, ctime_ns). An edit made in place changes the note's stamp
but not its folder's, so nothing short of one `stat` per note proves that no note changed (a
process that lives long can watch the vault instead: `watch`). This runs before every search,
so it does that and little else: a folder is read through a descriptor (a note's stat does not
resolve its whole path again), the stamps go into one packed array in walk order, and the
fingerprint of the walk (its paths and stamps) is what a search compares with the one the
last complete update stored. At 20,000 notes: ~50 ms of CPU here, half of it the kernel's stats.

Import-light (no SQLite, no markdown): a search may start the walk before it imports the rest.
"""
from __future__ import annotations

import os
from array import array

from obsidian_memory.fsutil import shown_name, undecodable
from obsidian_memory.sync_conflicts import is_copy_of_ours

# POSIX: a folder is listed through a descriptor and its entries are stat'ed relative to it
_BY_DESCRIPTOR = os.scandir in os.supports_fd and os.stat in os.supports_dir_fd
_DIRECTORY = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)


class Walk:
    """What a walk found: the vault-relative `paths` of the notes in walk order, their stamps
    packed three by three in `stamps` (mtime_ns, size, ctime_ns), and the names it left out
    (`skipped`: not valid UTF-8, shown escaped)."""
    __slots__ = ("paths", "stamps", "skipped")

    def __init__(self, paths: list[str], stamps: array, skipped: list[str]):
        self.paths, self.stamps, self.skipped = paths, stamps, skipped

    def __len__(self) -> int:
        return len(self.paths)

    def __iter__(self):
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


def walk_vault(vault: str, ignore: tuple[str, ...] = (), skipped: list | None = None, privacy=None) -> Walk:
    """Every Markdown note of the vault and its stamp. Hidden files and folders (.obsidian,
    .trash, our temp files), ignored patterns and private folders, notes and patterns
    (`privacy`'s paths: the notes private by their text are found by reading) are skipped, and so
    are symlinked folders (as the scanner does: no loops, no duplicates, nothing outside), symlinked
    notes that resolve outside the vault and a sync tool's conflict copies of our notes (a session
    would be found twice). A note or folder whose name is not valid UTF-8 cannot be stored or
    shown: it is left out and its name (escaped) added to `skipped` (and to the walk's)."""
    paths: list[str] = []
    stamps = array("q")
    add = stamps.extend
    left_out: list[str] = []
    patterns = tuple(p.strip().strip("/") for p in ignore if p and p.strip().strip("/"))
    hidden = privacy.hides_entry if privacy is not None and privacy.has_paths else None
    root = None
    stack = [("", vault)]
    while stack:
        prefix, folder = stack.pop()
        try:
            handle = os.open(folder, _DIRECTORY) if _BY_DESCRIPTOR else folder
        except OSError:
            continue
        try:
            with os.scandir(handle) as entries:
                for entry in entries:
                    name = entry.name
                    if name[0] == ".":
                        continue
                    try:
                        if entry.is_dir():
                            if entry.is_symlink() or (patterns and is_ignored(prefix + name, patterns)) \
                                    or (hidden and hidden(prefix + name)):
                                continue
                            if undecodable(name):
                                left_out.append(shown_name(prefix + name + "/"))
                                continue
                            stack.append((prefix + name + "/", os.path.join(folder, name)))
                        elif name[-3:] == ".md" or name[-3:].lower() == ".md":
                            if not name.isascii() and undecodable(name):
                                left_out.append(shown_name(prefix + name))
                                continue
                            if ((name[0] == "c" or name[0].isdigit()) and is_copy_of_ours(name)) \
                                    or (patterns and is_ignored(prefix + name, patterns)) \
                                    or (hidden and hidden(prefix + name)):
                                continue
                            if entry.is_symlink():
                                root = root or os.path.realpath(vault)
                                if not _inside(os.path.realpath(os.path.join(folder, name)), root):
                                    continue
                            st = entry.stat()
                            add((st.st_mtime_ns, st.st_size, st.st_ctime_ns))
                            paths.append(prefix + name)
                    except OSError:
                        continue
        except OSError:
            continue
        finally:
            if handle is not folder:
                os.close(handle)
    if skipped is not None:
        skipped += left_out
    return Walk(paths, stamps, left_out)


def _inside(path: str, root: str) -> bool:
    root = os.path.realpath(root)
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def is_ignored(rel: str, patterns: tuple[str, ...]) -> bool:
    import fnmatch

    for pattern in patterns:
        candidates = (pattern, pattern[3:]) if pattern.startswith("**/") else (pattern,)
        for p in candidates:
            if fnmatch.fnmatchcase(rel, p) or fnmatch.fnmatchcase(rel, p.rstrip("*").rstrip("/") or p):
                return True
    return False
