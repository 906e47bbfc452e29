"""``cudnn.engines``: the frontend's table of its python (FROST) engines.

The frontend ships engines written in python next to cuDNN's backend engines
and lists them in ``cudnn.engines.manifest``; its tests ask that table whether
an engine is on offer before they assert that it served a graph. The graph
compiler has no python engines: the names are here so those programs import
and find nothing on offer (their FROST tests then skip)."""

from . import engine_ids, manifest  # noqa: F401
