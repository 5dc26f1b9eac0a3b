"""`python -m obsidian_memory ...`, or `python <package>/__main__.py ...` (spawn.command: run by
path, so that the current folder is not put on sys.path; the package's own folder, which Python
puts there instead, is replaced by its parent)."""
import os
import sys

if not __package__:
    _here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.abspath(sys.path[0] or os.curdir) == _here:
        sys.path[0] = os.path.dirname(_here)

from obsidian_memory.cli import main  # noqa: E402

sys.exit(main())
