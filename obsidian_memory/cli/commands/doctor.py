"""`obsidian_memory.py doctor [--json]`: check the installation, one line per check."""
from __future__ import annotations

import sys


def add_arguments(parser) -> None:
    parser.add_argument("--json", action="store_true", help="print the checks as one JSON object")


def run(args) -> int:
    from obsidian_memory.setup import doctor

    checks = doctor.run_checks()
    sys.stdout.write(doctor.format_json(checks) if args.json else doctor.format_text(checks))
    return doctor.exit_code(checks)
