#!/usr/bin/env bash
# obsidian-memory installer: one command wires Claude Code to your Obsidian vault, and
# `./install.sh --uninstall` takes exactly that away again.
#
# This script only finds Python, makes the virtual environment and installs the package into it;
# everything that touches Claude Code's files is done (and undone) by `python -m obsidian_memory
# install`, see obsidian_memory/install.py.
set -euo pipefail

usage() {
    cat <<'EOF'
usage: ./install.sh [--vault PATH] [--no-import] [--dry-run] [--yes] [--semantic] [--mcp]
       ./install.sh --uninstall [--purge] [--dry-run] [--yes]

  --vault PATH   your Obsidian vault (default: config.yaml, then $OBSIDIAN_VAULT, then ~/Vault)
  --no-import    do not backfill the transcripts Claude Code already has
  --dry-run      print what would change, change nothing (not even the virtual environment)
  --yes, -y      never ask (also the behaviour without a terminal)
  --semantic     also install the optional semantic-search extra
  --mcp          also install the MCP SDK, for `obsidian_memory.py mcp` (any MCP client)
  --uninstall    remove the hooks, permission rules, skill, CLAUDE.md block, launchers and venv
  --purge        with --uninstall: also delete the session archive, config and logs
                 (the notes in your vault are never deleted)

Honours CLAUDE_CONFIG_DIR (default ~/.claude); everything lives in $CLAUDE_CONFIG_DIR/obsidian-memory/.
EOF
}

die() { printf 'install.sh: %s\n' "$*" >&2; exit 1; }

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CONFIG_DIR="${CLAUDE_CONFIG_DIR:-$HOME/.claude}"
OUR_HOME="$CONFIG_DIR/obsidian-memory"
VENV="$OUR_HOME/venv"
VENV_PY="$VENV/bin/python"
STAMP="$VENV/.obsidian-memory-source"

DRY_RUN=0
UNINSTALL=0
EXTRA_NAMES=()
ARGS=()
while [ $# -gt 0 ]; do
    case "$1" in
        --vault)
            [ $# -ge 2 ] && [ -n "$2" ] || die "--vault needs a path"
            ARGS+=(--vault "$2"); shift 2 ;;
        --vault=*) ARGS+=(--vault "${1#--vault=}"); shift ;;
        --no-import|--purge|--yes|-y) ARGS+=("$1"); shift ;;
        --dry-run) DRY_RUN=1; ARGS+=("$1"); shift ;;
        --uninstall) UNINSTALL=1; ARGS+=("$1"); shift ;;
        --semantic) EXTRA_NAMES+=(semantic); ARGS+=("$1"); shift ;;
        --mcp) EXTRA_NAMES+=(mcp); ARGS+=("$1"); shift ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown option '$1' (see ./install.sh --help)" ;;
    esac
done
ARGS+=(--source "$REPO")
EXTRAS=""
if [ ${#EXTRA_NAMES[@]} -gt 0 ]; then EXTRAS="[$(IFS=,; echo "${EXTRA_NAMES[*]}")]"; fi

find_python() {
    local candidate
    for candidate in ${OBSIDIAN_MEMORY_PYTHON:-} python3 python3.14 python3.13 python3.12 python3.11 python3.10 python; do
        command -v "$candidate" >/dev/null 2>&1 || continue
        if "$candidate" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' >/dev/null 2>&1; then
            command -v "$candidate"
            return 0
        fi
    done
    return 1
}

PY="$(find_python)" || die "obsidian-memory needs Python 3.10 or newer, and none was found on PATH.
Install it (macOS: brew install python; Debian/Ubuntu: sudo apt install python3 python3-venv),
or point OBSIDIAN_MEMORY_PYTHON at one, then run ./install.sh again."

venv_works() {
    [ -x "$VENV_PY" ] && "$VENV_PY" -I -c 'import obsidian_memory' >/dev/null 2>&1
}

# The checkout's own code, for the dry run and the preflight (nothing may be created yet): run by
# the venv's Python when there is one (it has jinja2 for the skill), else by the system Python.
from_checkout() {
    local python="$PY"
    if venv_works; then python="$VENV_PY"; fi
    PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$REPO${PYTHONPATH:+:$PYTHONPATH}" "$python" -m obsidian_memory install "$@"
}

# A digest of what would be installed: when it matches the venv's stamp, pip is skipped (fast,
# and works offline); a changed checkout or extra reinstalls.
source_digest() {
    PYTHONDONTWRITEBYTECODE=1 "$PY" - "${1:-$REPO}" "$EXTRAS" <<'EOF'
import hashlib, os, sys
root, extras = sys.argv[1], sys.argv[2]
digest = hashlib.sha256(extras.encode())
for top in ("pyproject.toml", "obsidian_memory", "templates"):
    path = os.path.join(root, top)
    files = [path] if os.path.isfile(path) else sorted(
        os.path.join(d, f) for d, dirs, names in os.walk(path)
        for f in names if "__pycache__" not in d and not f.endswith(".pyc"))
    for name in files:
        digest.update(os.path.relpath(name, root).replace(os.sep, "/").encode() + b"\0")
        with open(name, "rb") as handle:
            digest.update(handle.read() + b"\0")
print(digest.hexdigest())
EOF
}

if [ "$UNINSTALL" = 1 ]; then
    if venv_works; then
        exec "$VENV_PY" -I -m obsidian_memory install "${ARGS[@]}"
    fi
    from_checkout "${ARGS[@]}"
    exit $?
fi

if [ "$DRY_RUN" = 1 ]; then
    status=0
    from_checkout "${ARGS[@]}" || status=$?
    [ "$status" = 0 ] || exit "$status"
    if ! venv_works; then
        echo "- create the virtual environment $VENV (with $PY, $("$PY" -c 'import platform; print(platform.python_version())'))"
        echo "- install obsidian-memory$EXTRAS from $REPO into it"
    elif [ "$(cat "$STAMP" 2>/dev/null)" != "$(source_digest)" ]; then
        echo "- reinstall obsidian-memory$EXTRAS from $REPO into $VENV (the checkout changed)"
    fi
    exit 0
fi

# Refuse early (an unreadable settings.json, a missing skill template, ...) and, at a terminal
# without --yes, show the plan and ask: all before creating anything.
from_checkout --preflight "${ARGS[@]}" || exit $?

if ! venv_works && [ -e "$VENV" ]; then
    echo "install.sh: the virtual environment in $VENV is broken: re-creating it"
    rm -rf "$VENV"
fi
if [ ! -x "$VENV_PY" ]; then
    echo "install.sh: creating the virtual environment $VENV"
    mkdir -p "$OUR_HOME"
    "$PY" -m venv "$VENV" || die "could not create a virtual environment with $PY -m venv
(Debian/Ubuntu: sudo apt install python3-venv)"
fi
# pip builds a package in its source folder (setuptools' build/ and *.egg-info there): two installs
# from one checkout at once mix each other's files ("Failed building wheel"), and a stale build/lib
# can ship a module the checkout no longer has. So the package is built from a private copy of what
# the build reads, which is also exactly what the stamp's digest then describes.
BUILD_DIR=""
remove_build_dir() { if [ -n "$BUILD_DIR" ]; then rm -rf "$BUILD_DIR"; BUILD_DIR=""; fi; }
trap remove_build_dir EXIT
copy_build_inputs() {
    BUILD_DIR="$(mktemp -d "${TMPDIR:-/tmp}/obsidian-memory-build.XXXXXX")" || die "cannot make a temporary folder"
    mkdir "$BUILD_DIR/obsidian-memory"
    (cd "$REPO" && cp -R pyproject.toml README.md obsidian_memory templates "$BUILD_DIR/obsidian-memory/") \
        || die "cannot copy the checkout's package files from $REPO"
}

if [ "$(cat "$STAMP" 2>/dev/null)" != "$(source_digest)" ] || ! venv_works; then
    echo "install.sh: installing obsidian-memory$EXTRAS into it"
    rm -f "$STAMP"
    copy_build_inputs
    DIGEST="$(source_digest "$BUILD_DIR/obsidian-memory")"
    (cd "$OUR_HOME" && "$VENV_PY" -m pip install --quiet --disable-pip-version-check \
        "$BUILD_DIR/obsidian-memory$EXTRAS") \
        || die "pip could not install obsidian-memory (see above); nothing in Claude Code was changed"
    printf '%s\n' "$DIGEST" > "$STAMP"
    remove_build_dir
fi

# The preflight asked (when there is someone to ask): no second question.
exec "$VENV_PY" -I -m obsidian_memory install "${ARGS[@]}" --yes
