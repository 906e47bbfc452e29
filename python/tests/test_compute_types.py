"""The graph-level compute data type as the frontend's programs give it."""

import numpy as np
import pytest

import cudnn
from conftest import needs_lib


def int8_conv_graph(**types):
    g = cudnn.pygraph(**types)
    x = g.tensor(dim=[2, 64, 8, 8], stride=[4096, 1, 512, 64], data_type=cudnn.data_type.INT8)
    w = g.tensor(dim=[4, 64, 3, 3], stride=[576, 1, 192, 64], data_type=cudnn.data_type.INT8)
    y = g.identity(input=g.conv_fprop(image=x, weight=w, padding=[1, 1], stride=[1, 1], dilation=[1, 1]))
    y.set_output(True).set_data_type(cudnn.data_type.INT32)
    return g


@needs_lib
def test_an_explicit_int32_compute_type_reaches_the_graph():
    # int8 convolution accumulates in INT32 (test_conv_bias.py's int8 case):
    # cuDNN offers no engine for it with a FLOAT compute type.
    g = int8_conv_graph(io_data_type=cudnn.data_type.INT8, intermediate_data_type=cudnn.data_type.INT32,
                        compute_data_type=cudnn.data_type.INT32)
    g.validate()
    assert "compute_data_type = i32" in g.to_mlir()


@needs_lib
def test_a_compute_type_inherited_from_an_integer_io_type_is_float():
    g = int8_conv_graph(io_data_type=cudnn.data_type.INT8)
    g.validate()
    assert "compute_data_type = f32" in g.to_mlir()


@needs_lib
def test_index_masks_compute_in_int32_and_booleans():
    # The frontend's score_mod masks (test_flexible_sdpa.py) build a causal
    # mask from gen_index in INT32 and cmp_ge in BOOLEAN; the values are
    # compared as numbers.
    g = cudnn.pygraph(io_data_type=cudnn.data_type.FLOAT, compute_data_type=cudnn.data_type.FLOAT)
    s = g.tensor(dim=[1, 2, 4, 8], stride=[64, 32, 8, 1], data_type=cudnn.data_type.FLOAT)
    row = g.gen_index(input=s, axis=2, compute_data_type=cudnn.data_type.INT32)
    row.set_data_type(cudnn.data_type.INT32)
    col = g.gen_index(input=s, axis=3, compute_data_type=cudnn.data_type.INT32)
    col.set_data_type(cudnn.data_type.INT32)
    mask = g.cmp_ge(input=row, comparison=col, compute_data_type=cudnn.data_type.BOOLEAN)
    mask.set_data_type(cudnn.data_type.BOOLEAN)
    neg_inf = g.tensor(dim=[1, 1, 1, 1], stride=[1, 1, 1, 1], is_pass_by_value=True,
                       data_type=cudnn.data_type.FLOAT)
    out = g.binary_select(input0=s, input1=neg_inf, mask=mask)
    out.set_output(True)
    g.build([cudnn.heur_mode.A])
    text = g.to_mlir()
    assert "compute_data_type = i32" in text and "compute_data_type = i1" in text
    x = np.random.default_rng(0).random((1, 2, 4, 8), dtype=np.float32)
    y = np.zeros_like(x)
    g.execute({s: x, neg_inf: np.full((1, 1, 1, 1), -1e9, np.float32), out: y})
    i, j = np.arange(4)[:, None], np.arange(8)[None, :]
    np.testing.assert_array_equal(y, np.where(i >= j, x, np.float32(-1e9)))


@needs_lib
def test_integer_index_arithmetic_computes_in_int32():
    # test_flexible_sdpa.py's diagonal band: sub(row, col) in INT32
    g = cudnn.pygraph(io_data_type=cudnn.data_type.FLOAT, compute_data_type=cudnn.data_type.FLOAT)
    s = g.tensor(dim=[1, 1, 4, 8], stride=[32, 32, 8, 1], data_type=cudnn.data_type.FLOAT)
    row = g.gen_index(input=s, axis=2, compute_data_type=cudnn.data_type.INT32)
    col = g.gen_index(input=s, axis=3, compute_data_type=cudnn.data_type.INT32)
    for t in (row, col):
        t.set_data_type(cudnn.data_type.INT32)
    diff = g.sub(a=row, b=col, compute_data_type=cudnn.data_type.INT32)
    diff.set_output(True).set_data_type(cudnn.data_type.INT32)
    g.build([cudnn.heur_mode.A])
    x = np.zeros((1, 1, 4, 8), np.float32)
    y = np.zeros((1, 1, 4, 8), np.int32)
    g.execute({s: x, diff: y})
    np.testing.assert_array_equal(y[0, 0], np.arange(4)[:, None] - np.arange(8)[None, :])


@needs_lib
def test_an_int32_division_is_refused_naming_the_rule():
    # integer division would truncate; the engines divide the values
    g = cudnn.pygraph(io_data_type=cudnn.data_type.FLOAT, compute_data_type=cudnn.data_type.FLOAT)
    a = g.tensor(dim=[4, 16], stride=[16, 1], data_type=cudnn.data_type.FLOAT)
    m = g.div(a=a, b=a, compute_data_type=cudnn.data_type.INT32)
    m.set_output(True)
    with pytest.raises(Exception, match=r"compute_data_type must be a float type \(i1 only for logical and comparison "
                                        r"modes, i32 only for those and the modes exact on integers\), got 'i32'"):
        g.validate()
