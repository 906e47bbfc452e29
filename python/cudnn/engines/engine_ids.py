"""The frontend's engine-id ranges (``cudnn.engines.engine_ids``).

One integer space names every engine: cuDNN's backend engines below 10000,
the frontend's C++ open-source engines from 10000, its python engines from
20000 in blocks of 100 per family. A plan's ``get_engine_and_knobs_at_index``
id here is a cuDNN backend id, or a negative id for the compiler's own
generated-kernel plans (neither a backend nor a python engine)."""

BACKEND_ENGINE_ID_BASE = 0
CPP_OSS_ENGINE_ID_BASE = 10_000
PYTHON_ENGINE_ID_BASE = 20_000
# the entry that asks cuDNN's heuristics (the frontend's OPENSOURCE plan list)
BACKEND_HEURISTIC_ENGINE_ID = -1

FAMILY_BLOCK = 100
GDN_ID_BASE = PYTHON_ENGINE_ID_BASE + 100
KDA_ID_BASE = PYTHON_ENGINE_ID_BASE + 200
GDN2_ID_BASE = PYTHON_ENGINE_ID_BASE + 300
FROST_GEMM_ID_BASE = PYTHON_ENGINE_ID_BASE + 400
FROST_SDPA_FWD_ID_BASE = PYTHON_ENGINE_ID_BASE + 500
FROST_SDPA_BWD_ID_BASE = PYTHON_ENGINE_ID_BASE + 600
GDP_ID_BASE = PYTHON_ENGINE_ID_BASE + 700
FROST_CONV_ID_BASE = PYTHON_ENGINE_ID_BASE + 800


def is_python_engine(engine_id: int) -> bool:
    """Whether ``engine_id`` lies in the python engines' range."""
    return engine_id >= PYTHON_ENGINE_ID_BASE


def is_backend_engine(engine_id: int) -> bool:
    """Whether ``engine_id`` lies in cuDNN's backend engines' range."""
    return BACKEND_ENGINE_ID_BASE <= engine_id < CPP_OSS_ENGINE_ID_BASE
