"""Progress bars (tqdm) for the long commands: import, reindex, embed. Never on a hook's path."""
from __future__ import annotations

import sys


def progress_bar(total: int, progress: bool | None, *, desc: str, unit: str, minimum: int = 1,
                 leave: bool = True, lines_every: float | None = None, **options):
    """A tqdm bar on stderr, or None: `progress` False never shows one, True always does, None
    shows one when stderr is a terminal (else, with `lines_every`, a Lines: a plain line every
    that many seconds); fewer than `minimum` items never get one. `options` go to tqdm (a
    bar_format, unit_scale...)."""
    if progress is False or total < max(1, minimum):
        return None
    if progress is None and not _stderr_is_terminal():
        return Lines(total, desc, lines_every) if lines_every else None
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


class Lines:
    """Progress off a terminal (a log, a pipe, an agent's tool call): one plain line on stderr every
    `every` seconds, with the share done, the time taken and an estimate of the time left (from
    the share of `total` done, in whatever units it counts). Speaks tqdm's few words that the
    commands use: update, set_description_str, close."""

    def __init__(self, total: int, desc: str, every: float):
        import time

        self.total, self.desc, self.every = max(1, total), desc, every
        self.done = 0
        self.started = self.last = time.monotonic()
        _line(f"{desc}: started (progress every {every:g} s)")

    def set_description_str(self, desc: str, refresh: bool = True) -> None:
        self.desc = desc

    def update(self, count: int = 1) -> None:
        import time

        self.done += count
        now = time.monotonic()
        if now - self.last >= self.every:
            self.last = now
            self._say(now)

    def close(self) -> None:
        pass

    def _say(self, now: float) -> None:
        share = min(1.0, self.done / self.total)
        elapsed = now - self.started
        left = f", about {duration(elapsed * (1 - share) / share)} left" if share > 0 else ""
        _line(f"{self.desc}: {share:.0%} done, {duration(elapsed)} elapsed{left}")


def _line(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def duration(seconds: float) -> str:
    """`1 h 05 min`, `4 min 10 s`, `12 s`."""
    seconds = int(round(seconds))
    if seconds >= 3600:
        return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"
    if seconds >= 60:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds} s"
