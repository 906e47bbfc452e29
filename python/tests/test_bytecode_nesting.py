"""MLIR bytecode nested too deep is refused with a message, never a stack
overflow that kills the Python process (issue 13, class 4: the text guard
did not cover bytecode). The fixtures nest 1,000 levels (test/bad-inputs)."""

import os

import pytest

import graph_compiler as gc
from graph_compiler import _capi
from conftest import REPO, needs_lib

INPUTS = os.path.join(REPO, "test", "bad-inputs", "Inputs")


@needs_lib
@pytest.mark.parametrize("name, regions", [("deep-regions", 256), ("deep-attribute", 0), ("deep-type", 0)])
def test_deep_bytecode_is_refused(name, regions):
    with open(os.path.join(INPUTS, name + ".mlirbc"), "rb") as f:
        data = f.read()
    assert data[:4] == b"ML\xefR"
    with pytest.raises(gc.GraphValidationError) as info:
        gc.pygraph.from_mlir(data)
    text = str(info.value)
    assert "bytecode nesting deeper than 256 levels" in text, text
    assert f"({regions} nested regions" in text, text


@needs_lib
def test_shallow_bytecode_still_loads():
    g = gc.pygraph(io_data_type=gc.data_type.FLOAT)
    x = g.tensor(name="x", dim=[2, 3])
    y = g.relu(x)
    y.set_output(True)
    data = _capi.Module(g.to_mlir()).bytecode()
    assert data[:4] == b"ML\xefR"
    loaded = gc.pygraph.from_mlir(data)
    assert "relu" in loaded.to_mlir()
