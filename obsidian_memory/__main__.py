import sys

from obsidian_memory.cli import main

sys.exit(main())
