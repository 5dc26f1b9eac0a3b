#!/usr/bin/env bash
# The project's test command (README "Set up"): a local virtual environment with the package and
# its test dependencies, then the whole suite. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
exec .venv/bin/python -m pytest "$@"
