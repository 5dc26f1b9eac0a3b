"""The redaction rules each session's stored text was redacted under (capture.redact.rules: "off",
or a fingerprint of the rules), so that text stored under other rules is redacted again: at the
session's next archive, and by the sweep for the sessions never archived again (docs/security.md).
A session without a row was stored under rules unknown (before they were recorded, or text was
added under other rules): it counts as stored under other rules."""
from __future__ import annotations

from obsidian_memory.archive.store import Store

# of `sessions`: those whose stored text was redacted under other rules than the parameter (or unknown ones)
_UNDER_OTHER_RULES = "session_id NOT IN (SELECT session_id FROM redaction WHERE rules = ?)"


class Redaction(Store):
    def rules_of(self, session_id: str) -> str | None:
        """The rules the session's stored text was redacted under; None when unknown."""
        row = self.db.execute("SELECT rules FROM redaction WHERE session_id = ?", (session_id,)).fetchone()
        return str(row[0]) if row else None

    def record_in_transaction(self, session_id: str, rules: str | None) -> None:
        """All of the session's stored text is redacted under `rules` (None: unknown) (inside the
        caller's write transaction)."""
        if rules is None:
            self.db.execute("DELETE FROM redaction WHERE session_id = ?", (session_id,))
        else:
            self.db.execute("INSERT INTO redaction (session_id, rules) VALUES (?, ?) "
                            "ON CONFLICT(session_id) DO UPDATE SET rules = excluded.rules", (session_id, rules))

    def added_in_transaction(self, session_id: str, rules: str | None) -> None:
        """Text redacted under `rules` was added to the session's stored text: unless the rest is
        under the same rules, the session's are unknown now (inside the caller's write transaction)."""
        self.db.execute("DELETE FROM redaction WHERE session_id = ? AND rules IS NOT ?", (session_id, rules))

    def stored_under_other_rules(self, rules: str, limit: int) -> list[str]:
        """At most `limit` sessions whose stored text was redacted under other rules than `rules`
        (or unknown ones). (In no order: found in the index of session ids, without reading the
        sessions' rows.)"""
        return [row[0] for row in self.db.execute(f"SELECT session_id FROM sessions WHERE {_UNDER_OTHER_RULES} LIMIT ?",
                                                  (rules, int(limit)))]

    def count_stored_under_other_rules(self, rules: str) -> int:
        """How many sessions' stored text was redacted under other rules than `rules` (or unknown ones)."""
        row = self.db.execute(f"SELECT count(*) FROM sessions WHERE {_UNDER_OTHER_RULES}", (rules,)).fetchone()
        return int(row[0])
