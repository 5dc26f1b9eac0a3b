#!/bin/sh
# obsidian-memory installer for macOS and Linux shells: finds a Python 3 and runs install.py with
# the same options (`./install.sh --help`). install.py needs nothing but Python; on Windows run
# `py -3 install.py`. $OBSIDIAN_MEMORY_PYTHON names the interpreter to use.
here=$(dirname "$0")
for candidate in "${OBSIDIAN_MEMORY_PYTHON:-}" python3 python; do
    [ -n "$candidate" ] || continue
    if command -v "$candidate" >/dev/null 2>&1; then
        exec "$candidate" "$here/install.py" "$@"
    fi
done
echo "install.sh: no python3 on PATH. obsidian-memory needs Python 3.10 or newer:" >&2
echo "  macOS: https://www.python.org/downloads/macos/ (or brew install python@3.12);" >&2
echo "  Debian/Ubuntu: sudo apt install python3 python3-venv; Fedora: sudo dnf install python3." >&2
exit 1
