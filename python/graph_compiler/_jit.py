"""The frontend's graph-caching helpers: ``cudnn.jit`` and
``cudnn.graph_cache`` (the ``cudnn.graph`` context manager is the class
graph in _graph.py). Used together::

    @cudnn.jit(heur_modes=[cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    @cudnn.graph_cache(key_fn=lambda handle, x: x.shape)
    def make(handle, x):
        with cudnn.graph(handle) as (g, _):
            X = g.tensor_like(x)
            Y = g.relu(X).set_output(True)
        return g, [X, Y]

    g, (x_uid, y_uid) = make(handle, x)   # built once per key
"""

import functools


def graph_cache(key_fn, maxsize=256):
    """Decorator: results of the wrapped function cached under
    ``key_fn(*args, **kwargs)``, at most ``maxsize`` of them (the oldest
    entry goes first)."""
    if maxsize is not None and maxsize < 1:
        raise ValueError(f"graph_cache: maxsize must be at least 1, got {maxsize}")

    def decorator(func):
        cache = {}

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            key = key_fn(*args, **kwargs)
            if key in cache:
                return cache[key]
            result = func(*args, **kwargs)
            if maxsize is not None and len(cache) >= maxsize:
                cache.pop(next(iter(cache)))
            cache[key] = result
            return result

        wrapper.cache = cache
        return wrapper

    return decorator


def jit(heur_modes=None, **kwargs):
    """Decorator for a function returning ``(graph, [tensors])``: a graph
    without plans is built with ``heur_modes`` (default heur_mode.A; one mode
    or a list), and the tensors become their uids: the call returns
    ``(graph, [uid, ...])``."""
    from ._enums import heur_mode

    if heur_modes is None:
        heur_modes = heur_mode.A
    if not isinstance(heur_modes, list):
        heur_modes = [heur_modes] if not isinstance(heur_modes, tuple) else list(heur_modes)

    def decorator(func):
        @functools.wraps(func)
        def wrapper(*args, **kw):
            result = func(*args, **kw)
            try:
                g, tensors = result
            except (TypeError, ValueError):
                raise TypeError(f"cudnn.jit: {func.__name__}() must return (graph, [tensors]), got {type(result).__name__}") from None
            if g.get_execution_plan_count() <= 0:
                g.build(heur_modes)
            return g, [t.get_uid() for t in tensors]

        return wrapper

    return decorator
