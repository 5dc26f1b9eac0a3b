#!/usr/bin/env python3
"""Ranked search over the Obsidian vault (Omnisearch when Obsidian runs, the local index when not)."""
import os
import sys

# This file is named like the package: keep its own folder off the import path.
if sys.path and os.path.abspath(sys.path[0] or ".") == os.path.dirname(os.path.abspath(__file__)):
    del sys.path[0]
try:
    import obsidian_memory  # noqa: F401  (installed into this interpreter)
except ImportError:
    # Run as a plain command (`#!/usr/bin/env python3`): the installed copy in
    # $CLAUDE_CONFIG_DIR/obsidian-memory/bin/ hands over to the venv beside it, a checkout's copy
    # uses the checkout.
    home = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    venv_python = os.path.join(home, "venv", "bin", "python")
    if os.path.isfile(venv_python) and os.path.abspath(sys.prefix) != os.path.join(home, "venv"):
        os.execv(venv_python, [venv_python, os.path.abspath(__file__), *sys.argv[1:]])
    sys.path.insert(0, home)

from obsidian_memory.search.cli import main

sys.exit(main())
