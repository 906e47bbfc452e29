"""Bad input to the Python front (issue 13, item 6): arguments are checked at
the builder boundary instead of coerced, and every failure is one of the
package's exceptions with a message naming the argument and the rule.
Wrong types raise TypeError (as pybind11 does in the cuDNN frontend), wrong
values ValueError (GraphValidationError for data that is not a graph)."""

import json
import math

import numpy as np
import pytest

import graph_compiler as gc
from conftest import graph_opt, needs_graph_opt, needs_lib

D = gc.data_type


def g_(name="test_graph"):
    return gc.pygraph(name=name, io_data_type=D.FLOAT, intermediate_data_type=D.FLOAT, compute_data_type=D.FLOAT)


# ---- dims, strides and uids are ints ------------------------------------------


@pytest.mark.parametrize(
    "kwargs, kind, words",
    [
        (dict(dim=[2.5, 3]), TypeError, ["'x'", "dim[0]", "int", "float"]),
        (dict(dim=[2, 3.0]), TypeError, ["dim[1]", "int", "float"]),
        (dict(dim=[True, 3]), TypeError, ["dim[0]", "int", "bool"]),
        (dict(dim="abc"), TypeError, ["dim", "list of ints", "str"]),
        (dict(dim=5), TypeError, ["dim", "list of ints", "int"]),
        (dict(dim=None), TypeError, ["dim", "list of ints", "NoneType"]),
        (dict(dim=[-2, 4]), ValueError, ["'x'", "dim[0]", "-2", "positive", "dynamic"]),
        (dict(dim=[0, 4]), ValueError, ["dim[0]", "0", "positive"]),
        (dict(dim=[2, 3], uid=1.5), TypeError, ["'x'", "uid", "int", "float"]),
        (dict(dim=[2, 3], uid="7"), TypeError, ["uid", "int", "str"]),
        (dict(dim=[2, 3], uid=True), TypeError, ["uid", "int", "bool"]),
        (dict(dim=[2, 3], uid=-5), ValueError, ["uid", "non-negative", "-5"]),
        (dict(dim=[2, 3], stride=[3, 1.5]), TypeError, ["stride[1]", "int", "float"]),
        (dict(dim=[2, 3], stride="ab"), TypeError, ["stride", "list of ints", "str"]),
    ],
)
def test_tensor_arguments_are_checked(kwargs, kind, words):
    g = g_()
    with pytest.raises(kind) as info:
        g.tensor(name="x", **kwargs)
    assert type(info.value) is kind
    for word in words:
        assert word in str(info.value), (word, str(info.value))


def test_tensor_setters_are_checked():
    g = g_()
    x = g.tensor(name="x", dim=[2, 3])
    with pytest.raises(TypeError, match=r"set_dim.*'x'.*dim\[1\].*int.*float"):
        x.set_dim([2, 3.5])
    with pytest.raises(ValueError, match=r"set_dim.*'x'.*dim\[0\].*-1.*positive"):
        x.set_dim([-1, 3])
    with pytest.raises(TypeError, match=r"set_stride.*'x'.*stride\[0\].*int"):
        x.set_stride(["3", 1])
    with pytest.raises(TypeError, match=r"set_uid.*'x'.*uid.*int.*float"):
        x.set_uid(2.0)
    assert x.get_dim() == [2, 3]  # a rejected call changes nothing


def test_numpy_and_sequence_ints_are_ints():
    g = g_()
    x = g.tensor(name="x", dim=(np.int64(2), np.int32(3)), stride=np.array([3, 1]), uid=np.int64(7))
    assert x.get_dim() == [2, 3] and x.get_stride() == [3, 1] and x.get_uid() == 7
    assert all(type(d) is int for d in x.get_dim() + x.get_stride()) and type(x.get_uid()) is int
    x.set_dim(np.zeros((4, 5)).shape)  # a shape tuple, like torch.Size: a tuple of ints
    assert x.get_dim() == [4, 5]
    with pytest.raises(TypeError, match="dim"):
        g.tensor(dim=[np.float32(2.0), 3])
    with pytest.raises(TypeError, match="dim"):
        g.tensor(dim=[np.bool_(True), 3])


def test_ints_must_fit_int64():
    """An int the frontend's int64_t arguments cannot hold is refused where it
    is given (it used to wrap: a uid of 2**64 became 0)."""
    g = g_()
    with pytest.raises(TypeError, match=r"'big'.*dim\[0\] is 9223372036854775808.*int64"):
        g.tensor(name="big", dim=[2**63, 1])
    x = g.tensor(name="x", dim=[2, 3])
    with pytest.raises(TypeError, match=r"set_uid.*'x'.*18446744073709551616.*int64"):
        x.set_uid(2**64)
    with pytest.raises(TypeError, match=r"stride\[0\].*int64"):
        x.set_stride([-(2**63) - 1, 1])
    assert x.get_uid() != 0 and x.get_stride() != [-(2**63) - 1, 1]


@pytest.mark.parametrize(
    "build, words",
    [
        (lambda g, x, f: g.rope(x, f, rope_dim=8.9), ["rope()", "rope_dim", "float"]),
        (lambda g, x, f: g.rope(x, f, rope_dim=np.float32(8.0)), ["rope()", "rope_dim", "float32"]),
        (lambda g, x, f: g.transpose(x, permutation=[1.2, 0.1, 2, 3]), ["transpose()", "permutation[0]", "float"]),
        (lambda g, x, f: g.concatenate([x, x], axis=1.9), ["concatenate()", "axis", "float"]),
        (lambda g, x, f: g.rope(x, f, rope_dim=2**70), ["rope()", "rope_dim", "int64"]),
    ],
)
def test_integer_attributes_are_not_truncated(build, words):
    """rope_dim=8.9 ran as 8 and axis=1.9 as 1: an integer attribute given as
    a float is a TypeError naming it, as pybind11 makes it in the frontend."""
    g = g_()
    x, f = g.tensor(name="x", dim=[2, 4, 8, 16]), g.tensor(name="f", dim=[1, 1, 8, 4])
    with pytest.raises(TypeError) as info:
        build(g, x, f)
    for word in words:
        assert word in str(info.value), (word, str(info.value))


def test_emitted_dims_are_never_dynamic():
    """An op output whose inferred dim is not positive (a filter larger than
    the padded image) is an error naming the tensor, not a '?' dim."""
    g = g_()
    x, w = g.tensor(name="x", dim=[1, 2, 4, 4]), g.tensor(name="w", dim=[2, 2, 7, 7])
    y = g.conv_fprop(x, w, name="conv")
    y.set_output(True)
    with pytest.raises(ValueError, match=r"conv::Y.*-2.*conv_fprop node 'conv'.*positive") as info:
        g.to_mlir()
    assert "?" not in str(info.value)


def test_none_or_unreadable_operand_names_the_op_and_port():
    # the frontend's bindings refuse these with a TypeError; here the message
    # names the node and its port, not only the Python type
    g = g_()
    a = g.tensor(name="a", dim=[1, 4, 8])
    with pytest.raises(TypeError, match=r"operand 'mm::B' is None: expected a graph tensor"):
        g.matmul(A=a, B=None, name="mm")
    with pytest.raises(TypeError, match=r"operand 'mm2::B': cannot read a buffer from str"):
        g.matmul(A=a, B="weights", name="mm2")


# ---- tensors of another graph ----------------------------------------------------


def test_tensor_of_another_graph_as_op_operand():
    # an op result of another graph has no producer here (an input made by
    # tensor() is adopted instead, as the frontend does: test_frontend_compat)
    g1, g2 = g_("graph_one"), g_("graph_two")
    a = g1.relu(g1.tensor(name="x", dim=[2, 3]), name="r")
    with pytest.raises(ValueError) as info:
        g2.relu(a)
    for word in ("'r::OUT_0'", "graph_one", "graph_two"):
        assert word in str(info.value), (word, str(info.value))


@needs_lib
def test_tensor_of_another_graph_as_variant_pack_key():
    g1, g2 = g_("graph_one"), g_("graph_two")
    a = g1.tensor(name="a", dim=[2, 3])
    x = g2.tensor(name="x", dim=[2, 3])
    y = g2.relu(x).set_output(True)
    g2.build()
    buf = np.ones((2, 3), np.float32)
    with pytest.raises(ValueError) as info:
        g2.execute({x: buf, y: np.zeros_like(buf), a: buf})
    for word in ("variant pack", "'a'", "graph_one", "graph_two"):
        assert word in str(info.value), (word, str(info.value))
    # two graphs of one name are still told apart
    g3 = g_("graph_two")
    b = g3.tensor(name="b", dim=[2, 3])
    with pytest.raises(ValueError, match="another graph named 'graph_two'"):
        g2.execute({x: buf, y: np.zeros_like(buf), b: buf})


# ---- deserialize / from_mlir ------------------------------------------------------

_LEAKS = (json.JSONDecodeError, UnicodeDecodeError, UnicodeEncodeError, AttributeError, RecursionError)
_MAGIC = b"GRAPHPY1\n"


@pytest.mark.parametrize(
    "data, words",
    [
        (b"nonsense", ["bad header"]),
        (_MAGIC + b"{bad json\ngraph", ["header", "JSON"]),
        (_MAGIC + b"\xff\xfe\ngraph", ["header", "JSON"]),
        (_MAGIC + b"[1, 2]\ngraph", ["header", "object"]),
        (_MAGIC + b'{"name": 5}\ngraph', ["name", "str"]),
        (_MAGIC + b'{"plan_index": "0"}\ngraph', ["plan_index", "int"]),
        (_MAGIC + b"{}\n\xff\xfe", ["UTF-8"]),
        (_MAGIC + b"{}", ["no graph text"]),
        (_MAGIC + b"[" * 100000 + b"\ngraph", ["header"]),
        (_MAGIC + b"{}\ngarbage", ["rejected"]),
        ([300, 1], ["byte values"]),
    ],
    ids=["no-magic", "bad-json", "header-not-utf8", "header-list", "name-int", "plan-index-str", "text-not-utf8", "no-text", "deep-json", "bad-mlir", "list-out-of-range"],
)
def test_deserialize_bad_data(data, words):
    g = g_()
    with pytest.raises(gc.GraphValidationError) as info:
        g.deserialize(data)
    assert not isinstance(info.value, _LEAKS)
    for word in words:
        assert word in str(info.value), (word, str(info.value))
    assert g._text is None and g.name == "test_graph"  # a failed load leaves the graph as it was


@pytest.mark.parametrize("data", [None, 12, 1.5, object(), ["a"]])
def test_deserialize_wrong_type(data):
    with pytest.raises(TypeError, match="deserialize"):
        g_().deserialize(data)


@needs_lib
@pytest.mark.parametrize(
    "text, words",
    [
        (b"\xff\xfe", ["neither MLIR bytecode nor UTF-8"]),
        ("\ud800", ["UTF-8"]),
        ("garbage", ["rejected"]),
        (b"ML\xefRjunk", ["bytecode"]),
    ],
    ids=["bytes-not-utf8", "lone-surrogate", "garbage", "bad-bytecode"],
)
def test_from_mlir_bad_text(text, words):
    with pytest.raises(gc.GraphValidationError) as info:
        gc.pygraph.from_mlir(text)
    assert not isinstance(info.value, _LEAKS)
    for word in words:
        assert word in str(info.value), (word, str(info.value))


@pytest.mark.parametrize("text", [None, 12, ["graph.graph"], 1.5])
def test_from_mlir_wrong_type(text):
    with pytest.raises(TypeError, match=r"from_mlir.*str.*bytes"):
        gc.from_mlir(text)


@needs_lib
def test_from_mlir_bad_name():
    text = g_simple().to_mlir()
    with pytest.raises(TypeError, match=r"from_mlir.*name.*str"):
        gc.pygraph.from_mlir(text, name=5)
    with pytest.raises(gc.GraphValidationError, match="no graph named 'nope'"):
        gc.pygraph.from_mlir(text, name="nope")


@needs_lib
def test_from_mlir_graph_name_not_utf8():
    """A symbol name escaping a byte that is not UTF-8 loads (the name is
    decoded with replacement), not a UnicodeDecodeError."""
    text = g_simple().to_mlir().replace("@simple", '@"\\FF"')
    assert '@"\\FF"' in text
    g = gc.from_mlir(text)
    assert g.name == "\ufffd"


def g_simple():
    g = g_("simple")
    x = g.tensor(name="x", dim=[2, 3])
    g.relu(x).set_output(True)
    return g


def test_kernel_cache_deserialize_bad_data():
    for data in (b"\xff\xfe", '{"format": "graph_compiler.kernel_cache/1", "graphs": [1]}'):
        with pytest.raises(gc.GraphValidationError, match="kernel_cache.deserialize"):
            gc.create_kernel_cache().deserialize(data)
    with pytest.raises(TypeError, match="kernel_cache.deserialize"):
        gc.create_kernel_cache().deserialize(12)


# ---- op attributes ------------------------------------------------------------------


def test_conv_attributes_are_checked():
    g = g_()
    x, w = g.tensor(name="x", dim=[1, 2, 8, 8]), g.tensor(name="w", dim=[2, 2, 3, 3])
    with pytest.raises(TypeError) as info:
        g.conv_fprop(x, w, padding="same")
    for word in ("conv_fprop", "padding", "'same'", "list of ints", "one per spatial dim"):
        assert word in str(info.value), (word, str(info.value))
    assert "set_dim" not in str(info.value)
    with pytest.raises(TypeError, match=r"conv_fprop.*stride\[0\].*int.*float"):
        g.conv_fprop(x, w, stride=[1.5, 1])
    with pytest.raises(ValueError, match=r"conv_fprop.*stride.*3 entries.*2 spatial dims"):
        g.conv_fprop(x, w, stride=[1, 1, 1])
    with pytest.raises(ValueError, match=r"conv_fprop.*dilation\[1\].*0.*at least 1"):
        g.conv_fprop(x, w, dilation=[1, 0])
    with pytest.raises(ValueError, match=r"conv_fprop.*convolution_mode.*CROSS_CORRELATION"):
        g.conv_fprop(x, w, convolution_mode="bogus")
    assert g.conv_fprop(x, w, padding=(np.int64(1), 1)).get_dim() == [1, 2, 8, 8]


def test_reduction_mode_is_checked():
    g = g_()
    x = g.tensor(name="x", dim=[2, 4])
    with pytest.raises(ValueError) as info:
        g.reduction(x, mode="sum")
    for word in ("reduction", "mode", "'sum'", "ADD", "MAX"):
        assert word in str(info.value), (word, str(info.value))
    assert "set_dim" not in str(info.value)
    with pytest.raises(TypeError, match=r"reduction.*mode.*cudnn.reduction_mode.*int"):
        g.reduction(x, mode=3)
    with pytest.raises(ValueError, match=r"reduction.*mode.*NOT_SET"):
        g.reduction(x, mode=gc.reduction_mode.NOT_SET)
    # the member and its name are accepted
    g.reduction(x, mode=gc.reduction_mode.ADD)
    g.reduction(x, mode="max")


# ---- NaN and Inf scalars ----------------------------------------------------------------

_NONFINITE = [float("nan"), float("inf"), float("-inf")]


def scalar_graph(value, dt=D.FLOAT):
    g = g_()
    x = g.tensor(name="x", dim=[1, 1, 2, 3])
    s = g.tensor_scalar(value, dt, name="s")
    if dt != D.FLOAT:
        s = g.identity(s, compute_data_type=D.FLOAT)
    y = g.add(x, s, name="add")
    y.set_output(True).set_name("y")
    return g, x, y


@needs_graph_opt
@pytest.mark.parametrize("dt", [D.FLOAT, D.HALF, D.BFLOAT16, D.DOUBLE])
@pytest.mark.parametrize("value", _NONFINITE)
def test_nonfinite_scalar_text_parses_and_round_trips(value, dt):
    g, _, _ = scalar_graph(value, dt)
    text = g.to_mlir()
    ok, out = graph_opt(text)
    assert ok, out
    ok2, out2 = graph_opt(out)
    assert ok2 and out2 == out, out2  # the printed form parses back to itself


@needs_graph_opt
@pytest.mark.parametrize(
    "dt, value, bits",
    [
        (D.FP8_E5M2, float("inf"), "0x7C"),
        (D.FP8_E5M2, float("-inf"), "0xFC"),
        (D.FP8_E5M2, float("nan"), "0x7E"),
        (D.FP8_E4M3, float("nan"), "0x7F"),
        (D.FP8_E8M0, float("nan"), "0xFF"),
        (D.HALF, float("-inf"), "0xFC00"),
        (D.FLOAT, float("nan"), "0x7FC00000"),
    ],
)
def test_nonfinite_scalar_bits(dt, value, bits):
    """The literal is the type's own bit pattern, as wide as the type."""
    g, _, _ = scalar_graph(value, dt)
    text = g.to_mlir()
    assert f"= scalar {bits} : " in text, text
    ok, out = graph_opt(text)
    assert ok, out


def test_nonfinite_scalar_has_no_form_in_some_types():
    g = g_()
    with pytest.raises(ValueError, match=r"tensor_scalar.*inf.*f8E4M3FN.*no infinity"):
        g.tensor_scalar(float("inf"), D.FP8_E4M3)
    with pytest.raises(ValueError, match=r"tensor_scalar.*nan.*INT32.*integer"):
        g.tensor_scalar(float("nan"), D.INT32)
    with pytest.raises(TypeError, match=r"tensor_scalar.*number.*str"):
        g.tensor_scalar("1.0")


@needs_lib
@pytest.mark.parametrize("value", _NONFINITE)
def test_nonfinite_scalar_executes_on_cpu_reference(value):
    g, x, y = scalar_graph(value)
    g.build()
    data = np.array([[[[1, -2, 3], [0, 5, -6]]]], np.float32)
    out = np.zeros_like(data)
    g.execute({x: data, y: out})
    if math.isnan(value):
        assert np.isnan(out).all(), out
    else:
        np.testing.assert_array_equal(out, np.full_like(data, value))


# ---- deep nesting through from_mlir (issue 13, class 4) ---------------------------


def _deep_text(n):
    return "graph.graph @g(%x: tensor<4xf32>) attributes {deep = " + "[" * n + "]" * n + "} {\n  graph.output\n}"


@needs_lib
@pytest.mark.parametrize("as_bytes", [False, True], ids=["str", "bytes"])
def test_from_mlir_deep_nesting_is_refused(as_bytes):
    """An attribute nested 10,000 deep (20 KB of text) overflowed the parser's
    stack and killed the Python process; the bracket guard refuses it with
    one of the package's exceptions."""
    text = _deep_text(10000)
    with pytest.raises(gc.GraphValidationError) as info:
        gc.pygraph.from_mlir(text.encode() if as_bytes else text)
    assert not isinstance(info.value, _LEAKS)
    for word in ("nesting deeper than 256 brackets", "line 1", "overflow its stack"):
        assert word in str(info.value), (word, str(info.value))


@needs_lib
def test_deserialize_deep_nesting_is_refused():
    """The same text inside serialize()'s format is refused on load too."""
    g = g_()
    with pytest.raises(gc.GraphValidationError) as info:
        g.deserialize(_MAGIC + b"{}\n" + _deep_text(10000).encode())
    assert not isinstance(info.value, _LEAKS)
    assert "nesting deeper than 256 brackets" in str(info.value), str(info.value)
    assert g._text is None and g.name == "test_graph"
