#!/usr/bin/env bash
# The project's test command (README "Set up"): a local virtual environment with the package and
# everything its tests exercise (the test tools, the MCP SDK as the tests' MCP client, the semantic-search model),
# then the whole suite, the end-to-end tests in the real Claude Code client included (they install
# the pinned client with npm into ~/.cache/claude-code-e2e, and skip, saying why, without npm).
# Extra arguments go to pytest, e.g. `-m "not e2e"` or `tests/test_install.py`.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test,mcp,semantic]'
exec .venv/bin/python -m pytest "$@"
