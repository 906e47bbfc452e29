"""Tensor descriptors of a graph (the frontend's ``tensor`` objects)."""

import operator
import weakref

from ._enums import data_type, to_data_type


def check_int(value, what: str) -> int:
    """``value`` as a Python int of int64's range, or TypeError naming
    ``what``. An int, a numpy integer scalar or anything else with
    ``__index__`` is an int (a torch.Size holds ints); bool (numpy's too),
    float, str and the rest are not, as pybind11 refuses them for the
    frontend's int64 arguments."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        raise TypeError(f"{what} must be an int, got bool {value!r}")
    if isinstance(value, int):
        out = int(value)
    else:
        try:
            out = operator.index(value)
        except TypeError:
            raise TypeError(f"{what} must be an int, got {type(value).__name__} {value!r}") from None
    # The frontend's int64_t arguments: a wider int would wrap in C.
    if not -(1 << 63) <= out < (1 << 63):
        raise TypeError(f"{what} is {out}, which does not fit an int64")
    return out


def check_ints(values, what: str) -> list:
    """``values`` (a list, tuple, torch.Size, numpy array ... of ints) as a
    list of Python ints; TypeError naming ``what`` (and the index) for
    anything else, e.g. a str or a single number."""
    if isinstance(values, (str, bytes, bytearray)) or not hasattr(values, "__iter__"):
        raise TypeError(f"{what} must be a list of ints, got {type(values).__name__} {values!r}")
    return [check_int(v, f"{what}[{i}]") for i, v in enumerate(values)]


def check_dims(dims, what: str) -> list:
    """check_ints, and every dim positive: the graph has static shapes, so
    a negative dim is an error rather than a dynamic (?) dim."""
    out = check_ints(dims, what)
    for i, d in enumerate(out):
        if d < 1:
            raise ValueError(f"{what}[{i}] is {d}: dims must be positive (a negative dim is not a dynamic dim; the graph has static shapes)")
    return out


def check_uid(uid, what: str, tensor_name: str) -> int:
    uid = check_int(uid, what)
    if uid < 0:
        raise ValueError(f"uid must be non-negative, got {uid} (tensor {tensor_name!r})")
    return uid


def row_major_stride(dim):
    stride, acc = [], 1
    for extent in reversed(list(dim)):
        stride.append(acc)
        acc *= max(int(extent), 1)
    return list(reversed(stride))


def normalize_unit_strides(dim, stride):
    """``stride`` with the stride of every extent-1 dim that is not positive
    (numpy's and torch's 0 on a broadcast or inserted axis) set to what a
    packed tensor has there: the next inner dim's stride times its extent,
    1 for the innermost. Such a stride addresses nothing, and the compiler
    takes only positive strides."""
    if not stride or len(stride) != len(dim):
        return list(stride) if stride else []
    out = [int(s) for s in stride]
    for i in reversed(range(len(out))):
        if int(dim[i]) == 1 and out[i] <= 0:
            out[i] = out[i + 1] * max(int(dim[i + 1]), 1) if i + 1 < len(out) else 1
    return out


class Tensor:
    """A tensor of a graph: dims, strides, data type, uid, name, and whether it
    is virtual (an intermediate the graph keeps to itself) or not (an input,
    or an output the caller reads).

    Setters return the tensor so calls chain:
    ``y.set_output(True).set_data_type(cudnn.data_type.FLOAT).set_name("y")``.
    """

    def __init__(self, name="", dim=None, stride=None, data_type=None, is_virtual=False, is_pass_by_value=False, uid=0, uid_assigned=False):
        self.name = name
        self.dim = list(dim) if dim else []
        self.stride = normalize_unit_strides(self.dim, stride)
        self.data_type = data_type
        self.is_virtual = is_virtual
        self.is_pass_by_value = is_pass_by_value
        self.uid = uid
        self.uid_assigned = uid_assigned
        self.dim_assigned = False
        self.stride_assigned = False
        self.pass_by_value = None  # the value of a tensor_scalar
        self.scalar_type = None
        self.ragged_offset = None
        self.reordering_type = None
        self.ragged_offset_multiplier = 1
        self.alignment_value = None  # bytes the buffer's address is aligned to, as declared
        self.vector_count, self.vector_dimension = 1, -1
        self.producer = None  # (node, port) for op outputs
        self.owner = None  # weakref to the graph

    # ---- helpers -----------------------------------------------------------
    def _graph(self):
        return self.owner() if self.owner is not None else None

    def _guard(self, what):
        graph = self._graph()
        if graph is not None:
            graph._check_mutable(what)

    # ---- setters -----------------------------------------------------------
    def set_output(self, is_output: bool = True) -> "Tensor":
        self._guard("mark a tensor as output")
        self.is_virtual = not bool(is_output)
        return self

    def set_is_virtual(self, is_virtual: bool) -> "Tensor":
        self._guard("change a tensor's virtual flag")
        self.is_virtual = bool(is_virtual)
        return self

    def set_is_pass_by_value(self, value: bool) -> "Tensor":
        self._guard("change a tensor's pass-by-value flag")
        self.is_pass_by_value = bool(value)
        return self

    def set_name(self, name: str) -> "Tensor":
        graph = self._graph()
        if graph is not None:
            graph._rename_tensor(self, name)
        else:
            self.name = name
        return self

    def set_uid(self, uid: int) -> "Tensor":
        uid = check_uid(uid, f"set_uid of tensor {self.name!r}: uid", self.name)
        graph = self._graph()
        if graph is not None:
            graph._reuid_tensor(self, uid)
        else:
            self.uid, self.uid_assigned = uid, True
        return self

    def set_dim(self, dim) -> "Tensor":
        dim = check_dims(dim, f"set_dim of tensor {self.name!r}: dim")
        self._guard("change a tensor's dims")
        self.dim = dim
        self.dim_assigned = True
        if self.stride and len(self.stride) != len(self.dim):
            self.stride, self.stride_assigned = [], False
        self.stride = normalize_unit_strides(self.dim, self.stride)
        return self

    def set_stride(self, stride) -> "Tensor":
        stride = check_ints(stride, f"set_stride of tensor {self.name!r}: stride")
        self._guard("change a tensor's strides")
        self.stride = normalize_unit_strides(self.dim, stride)
        self.stride_assigned = True
        return self

    def set_data_type(self, dt=None) -> "Tensor":
        """A cudnn.data_type or a framework dtype (torch.float16 ...);
        NOT_SET/None clears it."""
        self._guard("change a tensor's data type")
        self.data_type = to_data_type(dt, f"set_data_type of tensor {self.name!r}")
        return self

    def set_ragged_offset(self, offset) -> "Tensor":
        """This tensor's buffer packs its batches (THD): batch b starts at
        element offset[b] (`offset`, a [B + 1, 1, 1, 1] integer graph
        tensor). sdpa's and sdpa_backward's q/k/v/o/dO and their results take
        it (graph.sdpa's ragged_offset_<port> operands); on any other tensor
        it raises cudnnGraphNotSupportedError at create_execution_plans(),
        naming this tensor."""
        self._guard("set a tensor's ragged offset")
        self.ragged_offset = offset
        return self

    def set_reordering_type(self, reordering) -> "Tensor":
        """Recorded; a reordering other than NONE (e.g. F8_128x4 block-scale
        layouts) makes validate()/build raise cudnnGraphNotSupportedError."""
        self._guard("set a tensor's reordering type")
        if reordering is not None and getattr(reordering, "name", "NONE") == "NONE":
            reordering = None
        self.reordering_type = reordering
        return self

    def set_ragged_offset_multiplier(self, multiplier: int) -> "Tensor":
        """Recorded; a multiplier other than 1 makes validate()/build raise
        cudnnGraphNotSupportedError (the dialect's ragged offsets count
        elements; scaled offsets are not modelled)."""
        self._guard("set a tensor's ragged offset multiplier")
        self.ragged_offset_multiplier = int(multiplier)
        return self

    def set_alignment_value(self, alignment: int) -> "Tensor":
        """The byte alignment the caller promises for this tensor's buffer
        (cuDNN's tensor byte alignment). Recorded; the runtime tells cuDNN
        the alignment of the buffers it is given, so a promise changes no
        plan."""
        self._guard("set a tensor's alignment")
        alignment = check_int(alignment, f"set_alignment_value of tensor {self.name!r}")
        if alignment <= 0 or alignment & (alignment - 1):
            raise ValueError(f"set_alignment_value of tensor {self.name!r}: {alignment} is not a positive power of two")
        self.alignment_value = alignment
        return self

    set_alignment = set_alignment_value  # the extension module's spelling

    def get_alignment(self) -> int:
        """The declared byte alignment; 16 (what cuDNN assumes) when none was
        declared."""
        return self.alignment_value if self.alignment_value is not None else 16

    def set_vector_count_and_dimension(self, count: int, dimension: int) -> "Tensor":
        """A vectorized layout (e.g. INT8x32: 32 elements of `dimension`
        packed per address). Recorded; a count other than 1 makes
        create_execution_plans()/build() raise cudnnGraphNotSupportedError
        naming the tensor."""
        self._guard("set a tensor's vector count")
        count = check_int(count, f"set_vector_count_and_dimension of tensor {self.name!r}: count")
        dimension = check_int(dimension, f"set_vector_count_and_dimension of tensor {self.name!r}: dimension")
        if count < 1:
            raise ValueError(f"set_vector_count_and_dimension of tensor {self.name!r}: count {count} is not positive")
        self.vector_count, self.vector_dimension = count, dimension
        return self

    def get_vector_count(self) -> int:
        return self.vector_count

    def get_vector_dimension(self) -> int:
        return self.vector_dimension

    def validate(self) -> None:
        """Raises ValueError naming this tensor when its dims are unset, its
        strides do not match them, or it is both virtual and pass-by-value."""
        if not self.dim:
            raise ValueError(f"tensor {self.name!r}: dims not set (call set_dim)")
        if self.stride and len(self.stride) != len(self.dim):
            raise ValueError(f"tensor {self.name!r}: {len(self.stride)} strides for {len(self.dim)} dims")
        if self.is_virtual and self.is_pass_by_value:
            raise ValueError(f"tensor {self.name!r} is both virtual and pass-by-value")

    def _unsupported_features(self, ragged_ok: bool = False, ragged_use=None):
        """What this tensor asks for that the compiler cannot model (each a
        phrase naming the feature and the tensor); `ragged_ok`: only
        attention ports that take ragged layouts use it; `ragged_use`: the
        node and port that cannot (a phrase)."""
        what = []
        if self.ragged_offset is not None and not ragged_ok:
            from ._ops import RAGGED_PORTS

            takers = "; ".join(f"{op}: {', '.join(ports)}" for op, ports in RAGGED_PORTS.items())
            where = f"{ragged_use} and cannot read a packed layout" if ragged_use else "no node reads it packed"
            what.append(f"tensor {self.name!r}: ragged_offset ({where}; the ports that can: {takers})")
        if getattr(self, "ragged_offset_multiplier", 1) != 1:
            what.append(f"tensor {self.name!r}: ragged_offset_multiplier={self.ragged_offset_multiplier}")
        if self.reordering_type is not None:
            what.append(f"tensor {self.name!r}: reordering_type={self.reordering_type} (reordered layouts)")
        if getattr(self, "vector_count", 1) != 1:
            what.append(f"tensor {self.name!r}: vector count {self.vector_count} along dim {self.vector_dimension} "
                        "(vectorized layouts)")
        return what

    # ---- getters -----------------------------------------------------------
    def get_name(self) -> str:
        return self.name

    def get_uid(self) -> int:
        return self.uid

    def get_dim(self):
        return list(self.dim)

    def get_stride(self):
        return list(self.stride) if self.stride else row_major_stride(self.dim)

    def get_data_type(self):
        return self.data_type if self.data_type is not None else data_type.NOT_SET

    def get_is_virtual(self) -> bool:
        return self.is_virtual

    def get_is_pass_by_value(self) -> bool:
        return self.is_pass_by_value

    def get_is_output(self) -> bool:
        return self.producer is not None and not self.is_virtual

    def get_reordering_type(self):
        from ._enums import tensor_reordering

        return self.reordering_type if self.reordering_type is not None else tensor_reordering.NONE

    def get_ragged_offset(self):
        return self.ragged_offset

    def get_ragged_offset_multiplier(self) -> int:
        return getattr(self, "ragged_offset_multiplier", 1)

    def get_has_compile_time_constant(self) -> bool:
        """Whether the tensor is a tensor_scalar (its value is in the graph)."""
        return self.pass_by_value is not None

    # numpy-ish conveniences
    @property
    def shape(self):
        return tuple(self.dim)

    def __repr__(self):
        dt = self.data_type.name if self.data_type is not None else "NOT_SET"
        return f"tensor(name={self.name!r}, uid={self.uid}, dim={list(self.dim)}, stride={self.get_stride()}, data_type={dt}, is_virtual={self.is_virtual})"

    # identity hashing: tensors are dict keys of a variant pack
    __hash__ = object.__hash__

    def __eq__(self, other):
        return self is other


def attach(tensor: Tensor, graph) -> None:
    tensor.owner = weakref.ref(graph)
