"""Everything obsidian-memory writes into the vault: session notes, the history table, and the
memory notes (working state, learnings, agent log). The only package that writes into the vault;
every write is atomic (fsutil.atomic_write_text)."""
