"""`embed` as the user runs it: at low priority, on the cores the `embed_threads` setting (or
--threads) allows, with a progress bar and an ETA when asked or on a terminal, never in a pipe;
and the worker pipeline behind it stores exactly what a one-at-a-time run stores. The model is
the REAL one (the tests that need it skip, saying why, without the `semantic` extra)."""
from __future__ import annotations

import os
import re
import sqlite3
import threading

from obsidian_memory.core import settings as settings_module
from obsidian_memory.search import semantic
from obsidian_memory.search.store import vectors
from testkit import requires_semantic, write_note

needs_model = requires_semantic()

ETA_LINE = re.compile(r"embedding (\d+)/(\d+) notes: +(\d+)%\|[^|]*\| \d\d:\d\d elapsed, ETA \d\d:\d\d")


def _notes(vault, count: int, words: int = 40) -> None:
    for n in range(count):
        write_note(vault, f"topic {n}.md", f"# Topic {n}\n" + " ".join(f"word{n}x{i}" for i in range(words)) + "\n")


# -- the setting (no model needed) ------------------------------------------------------------------

def test_embed_threads_is_a_validated_setting(env):
    config = env.config_dir / "obsidian-memory" / "config.yaml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("embed_threads: 3\n", encoding="utf-8")
    assert settings_module.load(config_dir=str(env.config_dir)).embed_threads == 3
    assert settings_module.load(config_dir=str(env.config_dir), threads="1").embed_threads == 1   # the flag wins
    config.write_text("embed_threads: -2\n", encoding="utf-8")
    loaded = settings_module.load(config_dir=str(env.config_dir))
    assert loaded.embed_threads == 0          # the default: one core fewer than the machine has
    assert any("`embed_threads` is -2, not 0 (one core fewer than the machine has) or a whole number from 1 to 256"
               in str(p) for p in loaded.problems)
    doctor = env.run("doctor")
    assert b"embed_threads" in doctor.stdout + doctor.stderr and doctor.returncode != 0


def test_a_bad_threads_flag_is_one_line_and_exit_2(env):
    _notes(env.vault, 1)
    for bad in ("many", "-1", "257"):
        result = env.run("embed", "--threads", bad)
        assert result.returncode == 2, result.stderr.decode()
        error = result.stderr.decode()
        assert error.count("\n") == 1 and b"Traceback" not in result.stderr
        assert f"--threads '{bad}' is not 0 (one core fewer than the machine has) or a whole number from 1 to 256" \
            in error


def test_the_default_leaves_one_core_free():
    assert semantic.default_threads() == max(1, semantic._cores() - 1)


# -- the command (the real model) ---------------------------------------------------------------------

@needs_model
def test_embed_runs_at_low_priority_on_the_cores_asked(env):
    _notes(env.vault, 3)
    result = env.run("embed", "--threads", "1")
    assert result.returncode == 0, result.stderr.decode()
    out = result.stdout.decode()
    # what the child reads back from the OS (its niceness) and from OpenMP (threads per call)
    assert f"on 1 core (1 thread per model call), at nice {max(10, os.nice(0))}\n" in out, out
    _notes(env.vault, 5)
    default = env.run("embed").stdout.decode()
    cores = semantic.default_threads()
    assert f"on {cores} {'core' if cores == 1 else 'cores'} (1 thread per model call)" in default, default


@needs_model
def test_progress_with_an_eta_when_asked_and_nothing_in_a_pipe(env):
    _notes(env.vault, 12)
    shown = env.run("embed", "--progress")
    assert shown.returncode == 0, shown.stderr.decode()
    lines = [m.groups() for m in ETA_LINE.finditer(shown.stderr.decode())]
    assert lines, shown.stderr.decode()
    assert lines[-1] == ("12", "12", "100")
    assert all(total == "12" for _, total, _ in lines)
    _notes(env.vault, 12, words=41)               # every note changed: work to do, and stderr is a pipe
    piped = env.run("embed")                      # no bar in a pipe: plain lines, the first at once
    assert piped.returncode == 0
    assert piped.stderr.decode().splitlines() == [f"embedding 0/12 notes: started (progress every "
                                                  f"{vectors.LINE_SECONDS:g} s)"]
    _notes(env.vault, 12, words=42)
    assert env.run("embed", "--quiet").stderr == b""
    both = env.run("embed", "--quiet", "--progress")
    assert both.returncode == 2 and b"not allowed with" in both.stderr


def test_off_a_terminal_the_progress_is_a_line_every_few_seconds_with_the_time_left(monkeypatch, capsys):
    now = [1000.0]
    monkeypatch.setattr("time.monotonic", lambda: now[0])
    todo = [(f"n{i}.md", (0, 1000)) for i in range(10)]     # ten notes of 1000 bytes
    shown = vectors.EmbedProgress(todo, None)                # None: a bar only on a terminal; capsys is none
    for step in range(10):
        now[0] += 4.0
        shown.done(todo[step:step + 1])
    shown.close()
    lines = capsys.readouterr().err.splitlines()
    assert lines == ["embedding 0/10 notes: started (progress every 10 s)",
                     "embedding 3/10 notes: 30% done, 12 s elapsed, about 28 s left",
                     "embedding 6/10 notes: 60% done, 24 s elapsed, about 16 s left",
                     "embedding 9/10 notes: 90% done, 36 s elapsed, about 4 s left"]


# -- the pipeline ---------------------------------------------------------------------------------------

class PeakCalls:
    """The real model, recording how many of its calls ran at once at most, and every text."""

    def __init__(self):
        self.running = self.peak = 0
        self.texts: list[str] = []
        self.lock = threading.Lock()

    def model_id(self) -> str:
        return semantic.model_id()

    def embed_passages(self, texts):
        with self.lock:
            self.running += 1
            self.peak = max(self.peak, self.running)
            self.texts.extend(texts)
        try:
            return semantic.embed_passages(texts)
        finally:
            with self.lock:
                self.running -= 1


def _stored(settings) -> dict:
    conn = sqlite3.connect(vectors.store_path(settings))
    try:
        return {"vectors": dict(conn.execute("SELECT text_hash, vector FROM embeddings")),
                "chunks": sorted(conn.execute("SELECT path, seq, text_hash FROM chunks"))}
    finally:
        conn.close()


@needs_model
def test_workers_store_exactly_what_one_worker_stores_and_embed_each_text_once(tmp_path, monkeypatch):
    vault = tmp_path / "vault"
    _notes(vault, 9, words=300)                   # several model calls per batch
    for n in range(4):                            # the same text in notes of different batches
        write_note(vault, f"copy {n}.md", "# Same\nThe very same words in four notes.\n")
    runs = {}
    for threads in (1, 3):
        monkeypatch.setenv("OBSIDIAN_MEMORY_CACHE_DIR", str(tmp_path / f"cache-{threads}"))
        settings = settings_module.Settings(str(tmp_path / "claude"), vault=str(vault))
        model = PeakCalls()
        stats = vectors.embed_vault(settings, embedder=model, progress=False, batch_notes=2, threads=threads)
        runs[threads] = (_stored(settings), model, stats)
    (one, single, one_stats), (three, several, three_stats) = runs[1], runs[3]
    assert one == three                           # the same vectors, bit for bit, and the same chunks
    assert single.peak == 1 and several.peak > 1
    assert len(several.texts) == len(set(several.texts)) == len(one["vectors"])
    assert three_stats.embedded + three_stats.reused == one_stats.embedded + one_stats.reused == 13


def test_model_calls_keep_the_order_and_stay_near_their_size():
    texts = ["a" * 700, "b" * 700, "c" * 700, "d" * 5000, "e" * 10, "f" * 10]
    calls = vectors.model_calls(texts)
    assert [t for call in calls for t in call] == texts
    assert calls == [["a" * 700, "b" * 700], ["c" * 700], ["d" * 5000], ["e" * 10, "f" * 10]]
    assert vectors.model_calls([]) == []
