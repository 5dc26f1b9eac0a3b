"""obsidian-memory: a memory for Claude Code that you can trust, kept in your Obsidian vault."""

__version__ = "0.1.0"
