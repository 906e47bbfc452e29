"""pygraph.lower_to_executable(): the graph compiled to an AOT artifact
(exec.program) through graphModuleLowerToExecutable, as text or MLIR
bytecode, and loaded back with pygraph.from_mlir. Lowering needs no GPU;
running the artifact on host buffers is the documented NOT_SUPPORTED error
(artifacts run only on the GPU)."""

import numpy as np
import pytest

import cudnn

from conftest import needs_lib

F = cudnn.data_type.FLOAT
SHAPES = {"A": (1, 64, 32), "B": (1, 32, 16), "bias": (1, 1, 16), "Y": (1, 64, 16)}


def matmul_bias_relu():
    g = cudnn.pygraph(name="mbr", io_data_type=F, intermediate_data_type=F, compute_data_type=F)
    a = g.tensor(name="A", dim=[1, 64, 32], stride=[64 * 32, 32, 1], uid=1)
    b = g.tensor(name="B", dim=[1, 32, 16], stride=[32 * 16, 16, 1], uid=2)
    bias = g.tensor(name="bias", dim=[1, 1, 16], stride=[16, 16, 1], uid=3)
    y = g.relu(g.add(g.matmul(a, b), bias))
    y.set_output(True).set_name("Y").set_uid(4)
    return g


def lower(g, **kw):
    try:
        return g.lower_to_executable(**kw)
    except cudnn.cudnnGraphNotSupportedError as exc:
        if "not linked into this build" in str(exc):
            pytest.skip("the C API library has no GPU lowering in this build")
        raise


def io_of(g):
    ins, outs = g._module.inputs(), g._module.outputs()
    return [(t["uid"], t["name"], t["dims"]) for t in ins], [(t["uid"], t["name"], t["dims"]) for t in outs]


EXPECTED_IO = (
    [(1, "A", [1, 64, 32]), (2, "B", [1, 32, 16]), (3, "bias", [1, 1, 16])],
    [(4, "Y", [1, 64, 16])],
)


@needs_lib
def test_lowering_gives_the_artifact_text():
    text = lower(matmul_bias_relu())
    assert isinstance(text, str)
    assert "exec.program @mbr" in text
    assert "exec.cudnn_group" in text
    assert "graph.graph" not in text


@needs_lib
def test_lowering_to_bytecode_starts_with_the_mlir_magic():
    data = lower(matmul_bias_relu(), bytecode=True)
    assert isinstance(data, bytes)
    assert data.startswith(b"ML\xefR")


@needs_lib
def test_from_mlir_of_the_lowered_text_describes_the_program():
    g = matmul_bias_relu()
    art = cudnn.pygraph.from_mlir(lower(g))
    assert art.name == "mbr"
    assert art._module.is_executable()
    assert io_of(art) == EXPECTED_IO
    # The artifact's tensors are the graph's, by uid and by name.
    assert {n: art.find_tensor(n).get_uid() for n in SHAPES} == {"A": 1, "B": 2, "bias": 3, "Y": 4}
    assert art.find_tensor(4).get_name() == "Y"


@needs_lib
def test_from_mlir_of_the_lowered_bytecode_describes_the_program():
    art = cudnn.pygraph.from_mlir(lower(matmul_bias_relu(), bytecode=True))
    assert art.name == "mbr"
    assert io_of(art) == EXPECTED_IO
    assert "exec.program @mbr" in art.to_mlir()


@needs_lib
def test_lowering_leaves_the_graph_usable_on_the_cpu():
    g = matmul_bias_relu()
    g.build([cudnn.heur_mode.A])
    lower(g)
    rng = np.random.default_rng(0)
    bufs = {k: rng.standard_normal(s).astype(np.float32) for k, s in SHAPES.items() if k != "Y"}
    y = np.zeros(SHAPES["Y"], np.float32)
    g.execute({**bufs, "Y": y})
    np.testing.assert_allclose(y, np.maximum(bufs["A"] @ bufs["B"] + bufs["bias"], 0), rtol=1e-5, atol=1e-5)


@needs_lib
def test_artifact_on_numpy_buffers_is_not_supported():
    art = cudnn.pygraph.from_mlir(lower(matmul_bias_relu()))
    bufs = {k: np.zeros(s, np.float32) for k, s in SHAPES.items()}
    with pytest.raises(cudnn.cudnnGraphNotSupportedError) as info:
        art.execute(bufs)
    assert "GRAPH_ERROR_NOT_SUPPORTED" in str(info.value)
    assert "runs only on the GPU" in str(info.value)


@needs_lib
def test_a_graph_no_engine_runs_fails_to_lower_with_the_message():
    g = cudnn.pygraph(name="f64mm", io_data_type=cudnn.data_type.DOUBLE, compute_data_type=F)
    x = g.tensor(name="X", dim=[1, 4, 8], stride=[32, 8, 1])
    w = g.tensor(name="W", dim=[1, 8, 4], stride=[32, 4, 1])
    g.matmul(x, w, name="mm").set_output(True)
    with pytest.raises(cudnn.cudnnGraphNotSupportedError) as info:
        lower(g)
    msg = str(info.value)
    assert "graph 'f64mm'" in msg
    assert "GRAPH_ERROR_NOT_SUPPORTED" in msg
    assert "no engine can run this op" in msg


@needs_lib
def test_an_artifact_plans_as_its_one_recorded_plan():
    # Its groups' engine configs are recorded in it: the plan list is that one
    # plan (not "no engine runs this graph", not the CPU reference).
    art = cudnn.pygraph.from_mlir(lower(matmul_bias_relu()))
    art.build([cudnn.heur_mode.A])
    assert art.get_execution_plan_count() == 1
    assert art.get_plan_name_at_index(0) == "compiled_artifact"


@needs_lib
def test_lowering_an_artifact_again_is_a_value_error():
    art = cudnn.pygraph.from_mlir(lower(matmul_bias_relu()))
    with pytest.raises(ValueError, match="already is a compiled artifact"):
        art.lower_to_executable()


@needs_lib
def test_lowering_an_invalid_graph_names_the_compiler_diagnostics():
    g = cudnn.pygraph(name="bad", io_data_type=F)
    a = g.tensor(name="a", dim=[2, 3])
    b = g.tensor(name="b", dim=[4, 5])
    g.matmul(a, b).set_output(True).set_dim([2, 5])
    with pytest.raises(cudnn.GraphValidationError) as info:
        g.lower_to_executable()
    assert "graph 'bad'" in str(info.value)
