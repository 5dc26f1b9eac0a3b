#!/usr/bin/env python3
"""The obsidian-memory command line. Works from a checkout, from an install's bin/ (whichever Python
runs it) and from an installed package; _launcher.py says how it finds the package."""
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
if sys.path and os.path.abspath(sys.path[0] or os.curdir) == _here:
    del sys.path[0]   # this file is named like the package
sys.path.insert(0, _here)
import _launcher  # noqa: E402
del sys.path[0]

sys.exit(_launcher.run("obsidian_memory.cli", __file__))
