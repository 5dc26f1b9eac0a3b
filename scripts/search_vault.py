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
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from obsidian_memory.search.cli import main

sys.exit(main())
