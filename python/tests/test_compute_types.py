"""The graph-level compute data type as the frontend's programs give it."""

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
