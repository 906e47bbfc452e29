"""pygraph.from_mlir of a compiled artifact (exec.program, made by
graph-opt --graph-lower-to-executable): its tensors come from the program;
host buffers are refused with a clear error (the artifact is GPU-only), and
device buffers run on the GPU (here, without one: GraphNoDeviceError).
Needs no numpy."""

import ctypes
import os
import subprocess

import pytest

import graph_compiler as gc

from conftest import GRAPH_OPT, needs_graph_opt, needs_lib

GRAPH = """graph.graph @mbr(
    %a: tensor<1x64x32xf32> {graph.uid = 1 : i64, graph.name = "A"},
    %b: tensor<1x32x16xf32> {graph.uid = 2 : i64, graph.name = "B"},
    %bias: tensor<1x1x16xf32> {graph.uid = 3 : i64, graph.name = "bias"})
    -> (tensor<1x64x16xf32> {graph.uid = 4 : i64, graph.name = "Y"})
    attributes {io_data_type = f32, intermediate_data_type = f32, compute_data_type = f32} {
  %h = graph.matmul %a, %b : (tensor<1x64x32xf32>, tensor<1x32x16xf32>) -> tensor<1x64x16xf32>
  %hb = graph.pointwise add(%h, %bias) : (tensor<1x64x16xf32>, tensor<1x1x16xf32>) -> tensor<1x64x16xf32>
  %y = graph.pointwise relu(%hb) : (tensor<1x64x16xf32>) -> tensor<1x64x16xf32>
  graph.output %y : tensor<1x64x16xf32>
}
"""

SHAPES = {"A": (1, 64, 32), "B": (1, 32, 16), "bias": (1, 1, 16), "Y": (1, 64, 16)}


class HostF32:
    """A host f32 array through __array_interface__."""

    def __init__(self, shape):
        n = 1
        for d in shape:
            n *= d
        self.storage = (ctypes.c_float * n)()
        self.__array_interface__ = {"shape": tuple(shape), "typestr": "<f4", "data": (ctypes.addressof(self.storage), False), "strides": None, "version": 3}


class DeviceF32:
    """A fake device array through __cuda_array_interface__ (never read without a GPU)."""

    def __init__(self, shape):
        self.__cuda_array_interface__ = {"shape": tuple(shape), "typestr": "<f4", "data": (0x10000, False), "strides": None, "version": 3}


def artifact_text():
    proc = subprocess.run(
        [GRAPH_OPT, "-", "--graph-prepare", "--graph-fuse", "--graph-select-engines", "--graph-lower-to-executable"],
        input=GRAPH,
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0 and "graph-lower-to-executable" in proc.stderr:
        pytest.skip("graph-opt has no GPU lowering in this build")
    assert proc.returncode == 0, proc.stderr
    assert "exec.program @mbr" in proc.stdout
    return proc.stdout


@needs_lib
@needs_graph_opt
def test_from_mlir_of_an_artifact_describes_the_program():
    g = gc.pygraph.from_mlir(artifact_text())
    assert g.name == "mbr"
    ins, outs = g._module.inputs(), g._module.outputs()
    assert [i["uid"] for i in ins] == [1, 2, 3]
    assert [i["name"] for i in ins] == ["A", "B", "bias"]
    assert [i["dims"] for i in ins] == [[1, 64, 32], [1, 32, 16], [1, 1, 16]]
    assert [(o["uid"], o["name"], o["dims"]) for o in outs] == [(4, "Y", [1, 64, 16])]


@needs_lib
@needs_graph_opt
def test_artifact_on_host_buffers_is_a_clear_error():
    g = gc.pygraph.from_mlir(artifact_text())
    with pytest.raises(Exception) as info:
        g.execute({k: HostF32(s) for k, s in SHAPES.items()})
    assert "GRAPH_ERROR_NOT_SUPPORTED" in str(info.value)
    assert "runs only on the GPU" in str(info.value)


@needs_lib
@needs_graph_opt
@pytest.mark.skipif(os.path.exists("/dev/nvidia0"), reason="fake device pointers must not reach a real GPU")
def test_artifact_on_device_buffers_goes_to_the_gpu():
    g = gc.pygraph.from_mlir(artifact_text())
    with pytest.raises(Exception) as info:
        g.execute({k: DeviceF32(s) for k, s in SHAPES.items()})
    assert "GRAPH_ERROR_NO_DEVICE" in str(info.value)
    assert "exec.program @mbr runs only on the GPU" in str(info.value)
