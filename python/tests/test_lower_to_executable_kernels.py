"""lower_to_executable() of a graph cuDNN's rules decline (issue 12): the C
API's lowering embeds the codegen engine's kernels in the artifact
(exec.kernel_group with PTX, launches and typed arguments), and
pygraph.from_mlir loads that artifact back, text or bytecode. No GPU: the
GPU suite runs the same graphs (test/gpu/artifact_codegen_*.exec.mlir)."""

import os

import pytest

import cudnn

from conftest import needs_lib

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "test", "gpu", "Inputs",
                      "artifact_codegen_norm_backward.mlir")


def graph():
    with open(SOURCE) as f:
        return cudnn.pygraph.from_mlir(f.read())


def lower(g, **kw):
    try:
        return g.lower_to_executable(**kw)
    except cudnn.cudnnGraphNotSupportedError as exc:
        if "not linked into this build" in str(exc):
            pytest.skip("the C API library has no GPU lowering in this build")
        raise


def io_of(g):
    ins, outs = g._module.inputs(), g._module.outputs()
    return [(t["name"], t["dims"]) for t in ins], [(t["name"], t["dims"]) for t in outs]


@needs_lib
def test_declined_group_becomes_generated_kernels():
    text = lower(graph())
    assert "exec.program @norm_backward" in text
    assert 'exec.kernel_group "norm_backward/group0" engine = "codegen_v2_' in text
    assert "exec.kernel_module @kernels format = ptx" in text
    assert 'exec.kernel_launch @kernels entry = "stage0"' in text
    assert "#exec.scratch<uid = -1" in text
    assert "exec.cudnn_group" not in text


@needs_lib
def test_artifact_with_kernels_loads_back_as_text_and_bytecode():
    g = graph()
    want = io_of(g)
    for form in (lower(g), lower(g, bytecode=True)):
        art = cudnn.pygraph.from_mlir(form)
        assert io_of(art) == (
            [("x", [64, 256]), ("scale", [1, 256]), ("dy", [64, 256]), ("mean", [64, 1]),
             ("inv_var", [64, 1]), ("residual", [64, 256])],
            [("dx", [64, 256]), ("dscale", [1, 256]), ("dbias", [1, 256])],
        )
        assert io_of(art) == want
