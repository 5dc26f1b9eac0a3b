"""Progress bars (tqdm) for the long commands: import, reindex, embed. Never on a hook's path."""
from __future__ import annotations

import sys


def progress_bar(total: int, progress: bool | None, *, desc: str, unit: str, minimum: int = 1,
                 leave: bool = True, **options):
    """A tqdm bar on stderr, or None: `progress` False never shows one, True always does, None
    shows one when stderr is a terminal; fewer than `minimum` items never get one. `options`
    go to tqdm (a bar_format, unit_scale...)."""
    if progress is False or total < max(1, minimum):
        return None
    if progress is None and not _stderr_is_terminal():
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, leave=leave, **options)


def _stderr_is_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def track(items: list, progress: bool | None, **bar_options):
    """The items, counted on a progress_bar() as they are taken."""
    bar = progress_bar(len(items), progress, **bar_options)
    if bar is None:
        yield from items
        return
    try:
        for item in items:
            yield item
            bar.update(1)
    finally:
        bar.close()
