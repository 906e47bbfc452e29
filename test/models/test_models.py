"""The real-model corpus under pytest (see README.md):

- every model and phase at its small size on the CPU reference executor
  against the model's float64 numpy reference (dtype-aware normwise bounds);
- every model and phase at its full size through graph-opt --graph-prepare
  --graph-fuse --graph-select-engines: every op gets a group and a
  non-empty engine list (nothing executes at full size on the CPU);
- the harness's own pieces (bf16 rounding, strided buffers, group parsing,
  bounds) on cases whose answers are known.

Tests that need build/lib/libGraphCAPI.so or build/bin/graph-opt skip when
they are not built.
"""

import math

import numpy as np
import pytest

import harness

MODELS = harness.load_models()
CASES = [(name, phase) for name, mod in sorted(MODELS.items()) for phase in harness.phases(mod)]
IDS = [f"{name}-{phase}" for name, phase in CASES]

needs_lib = pytest.mark.skipif(
    not harness.library_available(),
    reason="libGraphCAPI.so is not built (ninja -C build GraphCAPI, or set GRAPH_CAPI_LIBRARY)",
)
needs_graph_opt = pytest.mark.skipif(not harness.graph_opt_available(), reason=f"graph-opt is not built ({harness.GRAPH_OPT})")


# =============================================================================
# The models
# =============================================================================


@needs_lib
@pytest.mark.parametrize("name,phase", CASES, ids=IDS)
def test_small_on_cpu_reference(name, phase):
    checks = harness.check_numerics(MODELS[name], phase, "small")
    assert checks, f"{name}/{phase} has no outputs"
    harness.assert_numerics(checks, f"{name}/{phase}/small")


@needs_graph_opt
@pytest.mark.parametrize("name,phase", CASES, ids=IDS)
def test_full_size_selects_engines(name, phase):
    mod = MODELS[name]
    model = harness.build_model(mod, phase, "full")
    label = f"{name}/{phase}/full"
    report = harness.select_engines(model.graph.to_mlir(), label)
    assert report.ops >= len(model.graph.nodes), f"{label}: graph-opt printed {report.ops} ops for {len(model.graph.nodes)} nodes"
    assert not report.ungrouped, f"{label}: ops without a group or engine:\n  " + "\n  ".join(report.ungrouped)
    assert 1 <= report.groups <= report.ops
    for group, engines in report.engines.items():
        assert engines and all(engines), f"{label}: group {group} has no engine"


def test_every_model_declares_its_sizes():
    assert MODELS, "no model modules found in test/models/"
    for name, mod in MODELS.items():
        assert set(mod.SIZES["small"]) == set(mod.SIZES["full"]), f"{name}: small and full sizes name different dims"


@needs_lib
def test_wrong_reference_is_caught():
    """The comparison fails when the reference is off by one bf16 ulp-scale
    perturbation times 10 (so a passing model is not a vacuous pass)."""
    mod = MODELS["llama_block"]
    dims = harness.dims_of(mod, "small")
    model = harness.build_model(mod, "forward", "small")
    feeds = harness.make_feeds(mod, model, "forward", dims)
    got = harness.run_cpu(model, feeds)
    want = mod.reference("forward", feeds, **dims)
    good = harness.compare_outputs(model, got, want)
    assert all(c.ok for c in good)
    bad = harness.compare_outputs(model, got, {"y": want["y"] * 1.05})
    assert not bad[0].ok
    with pytest.raises(AssertionError, match="exceed their bound"):
        harness.assert_numerics(bad, "perturbed")


# =============================================================================
# The harness itself
# =============================================================================


def test_bf16_rounding():
    # exact values, round to nearest even on ties, overflow to inf, NaN
    x = np.array([1.0, -2.5, 1 + 2**-8, 1 + 3 * 2**-8, 1 + 2**-7, 3.399e38, 1e-40, np.nan])
    bits = harness.bf16_bits(x)
    assert list(bits[:5]) == [0x3F80, 0xC020, 0x3F80, 0x3F82, 0x3F81]
    assert bits[5] == 0x7F80  # rounds past the largest bf16 to +inf
    assert bits[7] == 0x7FC0
    back = harness.bf16_values(bits)
    assert back[0] == 1.0 and back[1] == -2.5 and back[3] == 1 + 2**-6 and math.isinf(back[5])
    r = harness.round_to(harness.DT.BFLOAT16, np.linspace(-4, 4, 1001))
    assert np.all(np.abs(r - np.linspace(-4, 4, 1001)) <= 2**-8 * np.abs(np.linspace(-4, 4, 1001)) + 1e-40)
    assert harness.round_to(harness.DT.HALF, [1 + 2**-12])[0] == 1.0


def test_strided_buffers():
    nhwc = harness.strided_empty([2, 3, 4, 5], [60, 1, 15, 3], np.float32)
    assert [s // 4 for s in nhwc.strides] == [60, 1, 15, 3]
    bshd = harness.make_buffer(harness.DT.BFLOAT16, [2, 4, 8, 16], [512, 16, 64, 1], np.ones((2, 4, 8, 16)))
    assert bshd.dtype == np.uint16 and [s // 2 for s in bshd.strides] == [512, 16, 64, 1] and np.all(bshd == 0x3F80)
    assert harness.strided_empty([3, 1, 4], [4, 4, 1], np.float64).shape == (3, 1, 4)
    with pytest.raises(ValueError, match="not a dense layout"):
        harness.strided_empty([4, 4], [8, 1], np.float32)


def test_relative_error_and_bounds():
    assert harness.relative_error([3.0, 4.0], [3.0, 4.0]) == 0.0
    assert harness.relative_error([3.0, 4.0], [3.0, 5.0]) == pytest.approx(1 / math.sqrt(34))
    assert harness.relative_error([np.nan], [1.0]) == math.inf
    with pytest.raises(ValueError, match="does not match"):
        harness.relative_error(np.zeros(3), np.zeros(4))
    g = harness.cudnn.pygraph(io_data_type=harness.DT.FLOAT, intermediate_data_type=harness.DT.FLOAT, compute_data_type=harness.DT.FLOAT)
    a = g.tensor(name="a", dim=[4, 8])
    w = g.tensor(name="w", dim=[8, 2])
    y = g.matmul(a, w).set_output(True)
    assert harness.bound_for(g, harness.DT.FLOAT) == 1e-4
    assert harness.fill_role(g, w) == ("normal", 1 / math.sqrt(8))
    assert harness.fill_role(g, a) == ("normal", 1.0)
    y.set_data_type(harness.DT.BFLOAT16)
    assert harness.bound_for(g, harness.DT.FLOAT) == 2e-2


def test_parse_groups():
    # the custom form graph-opt prints (dialect prefix elided in the body)
    text = """module {
  graph.graph @g(%a: tensor<4xf32>) -> tensor<4xf32> attributes {compute_data_type = f32} {
    %0 = scalar 1.0 : f32 {uid = 3 : i64} -> tensor<1xf32>
    %1 = group 0 engines [#graph.engine<cudnn, plans = ["heuristics"]>, #graph.engine<codegen, plans = ["codegen_v1"]>] (%arg1 = %a : tensor<4xf32>) -> tensor<4xf32> {
      %4 = pointwise relu(%arg1) : (tensor<4xf32>) -> tensor<4xf32>
      yield %4 : tensor<4xf32>
    }
    %2 = group 1 engines [#graph.engine<codegen, plans = ["codegen_v1"]>] (%arg1 = %1 : tensor<4xf32>, %arg2 = %a : tensor<4xf32>) -> tensor<4xf32> {
      %Y = layernorm inference %arg1, scale %arg2 : (tensor<4xf32>) -> tensor<4xf32>
      yield %Y : tensor<4xf32>
    }
    %3 = group 2 (%arg1 = %2 : tensor<4xf32>) -> tensor<4xf32> {
      %4 = pointwise neg(%arg1) : (tensor<4xf32>) -> tensor<4xf32>
      yield %4 : tensor<4xf32>
    }
    %5 = pointwise abs(%3) : (tensor<4xf32>) -> tensor<4xf32>
    output %5 : tensor<4xf32>
  }
}"""
    rep = harness.parse_groups(text)
    assert rep.ops == 4 and rep.groups == 2
    assert rep.engines == {0: ["cudnn", "codegen"], 1: ["codegen"]}
    # an op of a group with no engine, and one outside any group
    assert len(rep.ungrouped) == 2 and "neg" in rep.ungrouped[0] and "abs" in rep.ungrouped[1]
    # the generic form
    generic = text.replace("graph.graph @g", '"graph.graph"() <{sym_name = "g"}> ({').replace("%1 = pointwise", '%1 = "graph.pointwise"')
    generic = generic.replace("%1 = group 0 engines [", '%1 = "graph.group"(%a) <{engines = [').replace(
        '"codegen_v1"]>] (%arg1 = %a : tensor<4xf32>) -> tensor<4xf32> {', '"codegen_v1"]>], id = 0 : i64}> ({')
    rep = harness.parse_groups(generic)
    assert rep.ops == 4 and rep.engines[0] == ["cudnn", "codegen"]


@needs_graph_opt
def test_select_engines_failure_is_reported():
    with pytest.raises(harness.SelectEnginesError, match="graph-select-engines"):
        harness.select_engines("graph.graph @broken(", "broken")


@needs_graph_opt
def test_op_no_engine_accepts_is_reported():
    """An f64 matmul: cuDNN has no f64 path and the generated kernels no
    matmul, so select-engines fails and the error lists both reasons."""
    g = harness.cudnn.pygraph(io_data_type=harness.DT.DOUBLE, intermediate_data_type=harness.DT.DOUBLE, compute_data_type=harness.DT.DOUBLE)
    a = g.tensor(name="a", dim=[4, 8])
    w = g.tensor(name="w", dim=[8, 2])
    g.matmul(a, w, name="mm64").set_output(True)
    with pytest.raises(harness.SelectEnginesError, match="(?s)no engine can run this op.*cudnn:.*codegen:"):
        harness.select_engines(g.to_mlir(), "f64 matmul")
