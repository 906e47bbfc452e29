"""The shared harness of the real-model corpus (test/models/).

Every other ``test/models/<name>.py`` (not ``_*.py`` helpers, not ``test_*.py``)
is a model module with this interface:

    NAME = "<file stem>"
    TRAINS = True | False            # whether a "backward" phase exists
    SIZES = {"small": {...}, "full": {...}}   # keyword dims; "full" = the real size
                                     # (optional "check": a mid size for GPU-vs-CPU checks)
    def build(cudnn, phase, **dims) -> Model
    def reference(phase, feeds, **dims) -> {output name: np.ndarray}
    def make_inputs(phase, rng, **dims) -> {input name: np.ndarray}   # optional

``build`` returns a ``Model``: the pygraph with every op added and outputs
marked (not validated), and its input / output tensors by name. ``reference``
is float64 numpy math written from the model's definition, given the feeds
the graph ran on (already rounded to each input's data type).

What the harness does for (model, phase, size):

- ``build_model``: builds the graph through the Python package (``import
  cudnn``, python/ on sys.path);
- ``make_feeds``: the model's special inputs from ``make_inputs``, the rest
  seeded normal data scaled by role so activations stay O(1) (the B operand of
  a matmul, seen through views, has std 1/sqrt(K); a norm's scale is 1 +
  0.1 N(0, 1); a norm's bias 0.1 N(0, 1)), each rounded to its tensor's data
  type (bf16 by bit manipulation of float32, round to nearest even);
- ``run_cpu``: executes on the CPU reference executor through the package with
  numpy buffers (bf16 as uint16 raw bits, python/graph_compiler/_buffers.py),
  each buffer laid out with the strides the compiler declares;
- ``check_numerics``: compares every output with ``reference`` normwise,
  ``||got - want|| / ||want||`` against a bound set by the graph's working
  precision (``bound_for``);
- ``select_engines``: runs ``graph-opt --graph-prepare --graph-fuse
  --graph-select-engines`` on ``graph.to_mlir()`` and counts the fused groups
  (``graph.group`` region ops); ``SelectEnginesError`` carries
  graph-opt's diagnostics when an op no engine accepts makes it fail.

Command line (prints one line per model/phase):

    python3 test/models/harness.py [--size small|full|check] [--seed N] [model[:phase] ...]

small/check: CPU numerics and group count; full: group count only.
"""

import argparse
import dataclasses
import importlib.util
import math
import os
import re
import subprocess
import sys
import time
from typing import Any, Dict, List, Optional

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
for _path in (os.path.join(REPO, "python"), HERE):
    if _path not in sys.path:
        sys.path.insert(0, _path)

import cudnn  # noqa: E402  (our package through its cudnn shim)
from graph_compiler import _capi  # noqa: E402

DT = cudnn.data_type
GRAPH_OPT = os.environ.get("GRAPH_OPT", os.path.join(REPO, "build", "bin", "graph-opt"))
PHASES = ("forward", "backward")
SIZE_NAMES = ("small", "full")
_NOT_MODELS = ("harness.py", "conftest.py")


@dataclasses.dataclass
class Model:
    """What a model module's ``build`` returns."""

    graph: Any  # cudnn.pygraph, ops added, outputs marked, not validated
    inputs: Dict[str, Any]  # input name -> Tensor
    outputs: Dict[str, Any]  # output name -> Tensor


class ModelInterfaceError(Exception):
    """A model module does not follow the interface above."""


class SelectEnginesError(RuntimeError):
    """graph-opt's prepare/fuse/select-engines failed; the message carries its
    diagnostics."""


# =============================================================================
# Loading models
# =============================================================================


def model_paths() -> List[str]:
    return sorted(
        os.path.join(HERE, f)
        for f in os.listdir(HERE)
        if f.endswith(".py") and not f.startswith(("_", "test_")) and f not in _NOT_MODELS
    )


def _check_interface(mod, stem: str) -> None:
    where = f"test/models/{stem}.py"
    if getattr(mod, "NAME", None) != stem:
        raise ModelInterfaceError(f"{where}: NAME is {getattr(mod, 'NAME', None)!r}; it must be the file stem {stem!r}")
    if not isinstance(getattr(mod, "TRAINS", None), bool):
        raise ModelInterfaceError(f"{where}: TRAINS must be True or False")
    sizes = getattr(mod, "SIZES", None)
    if not isinstance(sizes, dict) or any(not isinstance(sizes.get(s), dict) for s in SIZE_NAMES):
        raise ModelInterfaceError(f"{where}: SIZES must map 'small' and 'full' to keyword dicts of dims")
    for fn in ("build", "reference"):
        if not callable(getattr(mod, fn, None)):
            raise ModelInterfaceError(f"{where}: missing function {fn}()")
    if hasattr(mod, "make_inputs") and not callable(mod.make_inputs):
        raise ModelInterfaceError(f"{where}: make_inputs must be a function")


def load_model(path: str):
    stem = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(f"graph_models.{stem}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    _check_interface(mod, stem)
    return mod


def load_models() -> Dict[str, Any]:
    """Every model module of test/models/, by NAME."""
    return {m.NAME: m for m in (load_model(p) for p in model_paths())}


def phases(mod) -> List[str]:
    return ["forward", "backward"] if mod.TRAINS else ["forward"]


def dims_of(mod, size: str) -> Dict[str, Any]:
    if size not in mod.SIZES:
        raise KeyError(f"model {mod.NAME} has no size {size!r} (it has {sorted(mod.SIZES)})")
    return dict(mod.SIZES[size])


def build_model(mod, phase: str, size: str = "small", dims: Optional[Dict[str, Any]] = None) -> Model:
    if phase not in phases(mod):
        raise ValueError(f"model {mod.NAME} has no phase {phase!r} (TRAINS={mod.TRAINS})")
    dims = dims_of(mod, size) if dims is None else dims
    model = mod.build(cudnn, phase, **dims)
    if not isinstance(model, Model):
        raise ModelInterfaceError(f"{mod.NAME}.build() returned {type(model).__name__}, not harness.Model")
    if not model.outputs:
        raise ModelInterfaceError(f"{mod.NAME}.build({phase!r}) marked no outputs")
    for name, t in model.outputs.items():
        if t.is_virtual:
            raise ModelInterfaceError(f"{mod.NAME}.build({phase!r}): output {name!r} is not marked with set_output(True)")
    return model


# =============================================================================
# Data types, rounding, buffers
# =============================================================================

# Normwise relative bounds by the graph's working precision (the narrowest
# float type any tensor of the graph has; every output flows through them).
#   f32: unit roundoff 6e-8; a length-K f32 dot product has a normwise error
#        around u*sqrt(K) (K <= 16k here: ~1e-5), plus f32 transcendental
#        differences: 1e-4 leaves a 10x margin.
#   f16/bf16: every materialized intermediate is rounded once (u = 4.9e-4 for
#        f16, 3.9e-3 for bf16 at worst, half that on average); a block
#        rounds 5-15 tensors in sequence through well-conditioned ops (norms,
#        softmax, matmuls of O(1) data), which keeps the normwise error to a
#        few u: 2e-2 is about 5 bf16 roundings at worst.
#   fp8: 3 (e4m3) / 2 (e5m2) mantissa bits: 0.125.
_BOUNDS = {
    DT.DOUBLE: 1e-10,
    DT.FLOAT: 1e-4,
    DT.HALF: 1e-2,
    DT.BFLOAT16: 2e-2,
    DT.FP8_E4M3: 0.125,
    DT.FP8_E5M2: 0.25,
}
_FLOATS = {DT.DOUBLE, DT.FLOAT, DT.HALF, DT.BFLOAT16, DT.FP8_E4M3, DT.FP8_E5M2, DT.FP8_E8M0, DT.FP4_E2M1}
_NUMPY = {
    DT.FLOAT: np.float32,
    DT.DOUBLE: np.float64,
    DT.HALF: np.float16,
    DT.BFLOAT16: np.uint16,  # raw bits
    DT.INT32: np.int32,
    DT.INT64: np.int64,
    DT.INT8: np.int8,
    DT.UINT8: np.uint8,
    DT.BOOLEAN: np.bool_,
}


def bf16_bits(values) -> np.ndarray:
    """bf16 bit patterns (uint16) of ``values``: float32 first, then round to
    nearest even on the upper 16 bits (NaN stays NaN)."""
    f = np.ascontiguousarray(np.asarray(values, dtype=np.float32))
    u = f.view(np.uint32).astype(np.uint64)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(f)
    if nan.any():
        rounded[nan] = 0x7FC0
    return rounded


def bf16_values(bits) -> np.ndarray:
    """float64 values of bf16 bit patterns."""
    b = np.ascontiguousarray(np.asarray(bits, dtype=np.uint16))
    return (b.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def round_to(dt, values) -> np.ndarray:
    """``values`` rounded to data type ``dt`` (a cudnn.data_type or one of
    "float32", "float16", "bfloat16"), returned as float64."""
    dt = {"float32": DT.FLOAT, "float16": DT.HALF, "bfloat16": DT.BFLOAT16}.get(dt, dt)
    v = np.asarray(values, dtype=np.float64)
    if dt == DT.BFLOAT16:
        return bf16_values(bf16_bits(v))
    if dt in (DT.FLOAT, DT.HALF):
        return v.astype(_NUMPY[dt]).astype(np.float64)
    if dt == DT.DOUBLE:
        return v.copy()
    if dt in (DT.INT32, DT.INT64, DT.INT8, DT.UINT8, DT.BOOLEAN):
        if not np.all(v == np.round(v)):
            raise ValueError(f"non-integer values for a {dt.name} tensor")
        return v.copy()
    raise NotImplementedError(f"the harness has no rounding for {dt}")


def to_raw(dt, values) -> np.ndarray:
    """The host buffer contents the package takes for ``dt``."""
    if dt == DT.BFLOAT16:
        return bf16_bits(values)
    if dt not in _NUMPY:
        raise NotImplementedError(f"the harness has no host buffers for {dt}")
    return np.asarray(values).astype(_NUMPY[dt])


def from_raw(dt, raw) -> np.ndarray:
    if dt == DT.BFLOAT16:
        return bf16_values(raw)
    return np.asarray(raw).astype(np.float64)


def strided_empty(dims, strides, np_dtype) -> np.ndarray:
    """An uninitialized array of ``dims`` whose element strides are
    ``strides`` (a dense permutation of the dims, as the compiler declares:
    row-major, channels-last...)."""
    dims = [int(d) for d in dims]
    if not strides or all(s == 0 for s in strides):
        return np.empty(dims, np_dtype)
    strides = [int(s) for s in strides]
    # Outermost first: larger stride, then (for unit dims) the later dim.
    order = sorted(range(len(dims)), key=lambda i: (-strides[i], -i))
    base = np.empty([dims[i] for i in order], np_dtype)
    arr = base.transpose(np.argsort(order))
    got = [s // arr.itemsize for s in arr.strides]
    if any(d != 1 and g != w for d, g, w in zip(dims, got, strides)):
        raise ValueError(f"strides {strides} of dims {dims} are not a dense layout the harness can allocate")
    return arr


def dtype_of(graph, tensor):
    """The data type the graph gives ``tensor`` (its own, or the default the
    package derives from the graph's io/intermediate types)."""
    return graph._dtype_of(tensor)


def working_precision(graph):
    """The narrowest float type among every tensor of the graph."""
    rank = [DT.FP4_E2M1, DT.FP8_E8M0, DT.FP8_E5M2, DT.FP8_E4M3, DT.BFLOAT16, DT.HALF, DT.FLOAT, DT.DOUBLE]
    seen = [dtype_of(graph, t) for t in graph.get_inputs()]
    for node in graph.nodes:
        seen.extend(dtype_of(graph, t) for t in node.outputs.values() if t is not None)
    floats = [d for d in seen if d in rank]
    return min(floats, key=rank.index) if floats else DT.FLOAT


def bound_for(graph, out_dtype) -> float:
    """The normwise bound for an output of ``out_dtype``: exact for integer
    outputs, else the bound of the narrower of the output's type and the
    graph's working precision."""
    if out_dtype not in _FLOATS:
        return 0.0
    wp = working_precision(graph)
    return max(_BOUNDS.get(out_dtype, 0.125), _BOUNDS.get(wp, 0.125))


def relative_error(got, want) -> float:
    """``||got - want||_2 / ||want||_2`` (absolute when want is all zero);
    inf when either holds a NaN or inf the other does not match."""
    got = np.asarray(got, np.float64)
    want = np.asarray(want, np.float64)
    if got.shape != want.shape:
        raise ValueError(f"shape {list(got.shape)} does not match the reference's {list(want.shape)}")
    if not np.array_equal(np.isfinite(got), np.isfinite(want)):
        return math.inf
    finite = np.isfinite(want)
    if not finite.all() and not np.array_equal(got[~finite], want[~finite]):
        return math.inf
    diff = np.linalg.norm((got - want)[finite])
    norm = np.linalg.norm(want[finite])
    return float(diff / norm) if norm > 0 else float(diff)


# =============================================================================
# Inputs
# =============================================================================

_VIEWS = ("reshape", "transpose", "slice")
_NORMS = ("layernorm", "rmsnorm", "batchnorm", "batchnorm_inference", "instancenorm", "adalayernorm")


def _consumers(graph, tensor):
    for node in graph.nodes:
        for port, t in node.inputs.items():
            if t is tensor:
                yield node, port
        for port, ts in node.list_inputs.items():
            if any(t is tensor for t in ts):
                yield node, port


def fill_role(graph, tensor, depth: int = 0):
    """How the default filler draws ``tensor``: ("normal", std) or
    ("around_one", std), from its first consumer with a role (seen through
    reshape/transpose/slice views)."""
    for node, port in _consumers(graph, tensor):
        if node.op in _VIEWS and depth < 8:
            out = node.outputs.get("OUT_0")
            if out is not None:
                role = fill_role(graph, out, depth + 1)
                if role != ("normal", 1.0):
                    return role
        if node.op == "matmul" and port == "B":
            k = node.inputs["B"].dim[-2]
            return ("normal", 1.0 / math.sqrt(max(k, 1)))
        if node.op in _NORMS and port == "scale":
            return ("around_one", 0.1)
        if node.op in _NORMS and port == "bias":
            return ("normal", 0.1)
    return ("normal", 1.0)


def make_feeds(mod, model: Model, phase: str, dims: Dict[str, Any], seed: int = 0) -> Dict[str, np.ndarray]:
    """float64 values of every input, rounded to its data type: the model's
    make_inputs first (same rng), then seeded defaults for the rest."""
    rng = np.random.default_rng(seed)
    special = mod.make_inputs(phase, rng, **dims) if hasattr(mod, "make_inputs") else {}
    unknown = sorted(set(special) - set(model.inputs))
    if unknown:
        raise ModelInterfaceError(f"{mod.NAME}.make_inputs({phase!r}) returned {unknown}, which are not inputs of the graph ({sorted(model.inputs)})")
    feeds = {}
    for name, t in model.inputs.items():
        dt = dtype_of(model.graph, t)
        if name in special:
            v = np.asarray(special[name], dtype=np.float64)
            if list(v.shape) != list(t.dim):
                raise ModelInterfaceError(f"{mod.NAME}.make_inputs: input {name!r} has shape {list(v.shape)}; the graph declares {list(t.dim)}")
        elif dt not in _FLOATS:
            raise ModelInterfaceError(f"{mod.NAME}: input {name!r} is {dt.name}; give its values with make_inputs()")
        else:
            kind, std = fill_role(model.graph, t)
            v = rng.standard_normal(t.dim) * std
            if kind == "around_one":
                v += 1.0
        feeds[name] = round_to(dt, v)
    return feeds


# =============================================================================
# Execution on the CPU reference, numerics
# =============================================================================


def library_available() -> bool:
    return _capi.available()


def io_layouts(graph):
    """uid -> (data type, dims, strides) of every input and output as the
    compiler declares them (after build/prepare)."""
    return {uid: (dt, dims, strides) for uid, _, dt, dims, strides, _ in graph._io_tensors()}


def make_buffer(dt, dims, strides, values=None) -> np.ndarray:
    buf = strided_empty(dims, strides, np.uint16 if dt == DT.BFLOAT16 else _NUMPY[dt])
    if values is not None:
        buf[...] = to_raw(dt, values)
    return buf


def run_cpu(model: Model, feeds: Dict[str, np.ndarray]) -> Dict[str, np.ndarray]:
    """Build the graph (CPU plan), execute it on numpy buffers; returns each
    output as float64."""
    g = model.graph
    g.build([cudnn.heur_mode.A])
    layouts = io_layouts(g)
    pack, outs = {}, {}
    for name, t in model.inputs.items():
        if t.uid not in layouts:
            raise ModelInterfaceError(f"input {name!r} (uid {t.uid}) is not read by any op of graph {g.name!r}")
        dt, dims, strides = layouts[t.uid]
        pack[t] = make_buffer(dt, dims, strides, feeds[name])
    for name, t in model.outputs.items():
        dt, dims, strides = layouts[t.uid]
        outs[name] = (dt, make_buffer(dt, dims, strides))
        pack[t] = outs[name][1]
    g.execute(pack)
    return {name: from_raw(dt, buf) for name, (dt, buf) in outs.items()}


@dataclasses.dataclass
class OutputCheck:
    name: str
    dtype: Any
    error: float
    bound: float

    @property
    def ok(self) -> bool:
        return self.error <= self.bound

    def __str__(self):
        return f"{self.name} ({self.dtype.name}): relative error {self.error:.3g} (bound {self.bound:g})"


def compare_outputs(model: Model, got: Dict[str, np.ndarray], want: Dict[str, np.ndarray], label: str = "") -> List[OutputCheck]:
    missing = sorted(set(model.outputs) - set(want))
    if missing:
        raise ModelInterfaceError(f"{label}: reference() gave no value for outputs {missing}")
    checks = []
    for name, t in model.outputs.items():
        dt = dtype_of(model.graph, t)
        try:
            err = relative_error(got[name], want[name])
        except ValueError as exc:
            raise ModelInterfaceError(f"{label}: output {name!r}: {exc}") from None
        checks.append(OutputCheck(name, dt, err, bound_for(model.graph, dt)))
    return checks


def check_numerics(mod, phase: str, size: str = "small", seed: int = 0, dims=None) -> List[OutputCheck]:
    """Build, run on the CPU reference, compare every output with the model's
    numpy reference. Returns the per-output checks (see assert_numerics)."""
    dims = dims_of(mod, size) if dims is None else dims
    model = build_model(mod, phase, size, dims)
    feeds = make_feeds(mod, model, phase, dims, seed)
    got = run_cpu(model, feeds)
    want = mod.reference(phase, feeds, **dims)
    return compare_outputs(model, got, want, f"{mod.NAME}/{phase}/{size}")


def assert_numerics(checks: List[OutputCheck], label: str) -> None:
    bad = [c for c in checks if not c.ok]
    if bad:
        raise AssertionError(f"{label}: {len(bad)} of {len(checks)} outputs exceed their bound:\n  " + "\n  ".join(map(str, bad)))


# =============================================================================
# Fusion and engine selection through graph-opt
# =============================================================================


@dataclasses.dataclass
class GroupReport:
    groups: int  # graph.group ops whose ops were counted
    ops: int  # node ops (graph.scalar/graph.output not counted)
    engines: Dict[int, List[str]]  # group -> ranked engines
    ungrouped: List[str]  # op lines without a group or with no engine
    text: str  # graph-opt's output


# An op line inside a graph body: results, then the op name (custom form,
# where the dialect prefix is elided, or generic "graph.name").
_GRAPH_START = re.compile(r'^\s*"?graph\.graph"?\s*[@(]')
_OP_LINE = re.compile(r'^\s*(?:%[^=]*=\s*)?"?(?:graph\.)?([a-z_][a-z_0-9]*)"?[\s({]')
# A fused group's first line: `%r = group 3 engines [#graph.engine<cudnn,
# ...>, ...] (%arg = %x : ...) -> ... {` in the custom form, or
# `%r = "graph.group"(...) <{engines = [...], id = 3 : i64}> ({` in the
# generic one; its body ends at its `yield`.
_GROUP = re.compile(r"^\s*(?:%[^=]*=\s*)?(?:graph\.)?group (\d+)[\s(]")
_GENERIC_GROUP = re.compile(r'^\s*(?:%[^=]*=\s*)?"graph\.group".*\bid = (\d+)')
_ENGINE = re.compile(r"#graph\.engine<([a-z_]+)")


def parse_groups(text: str) -> GroupReport:
    ops, engines, ungrouped = 0, {}, []
    in_graph = False
    group = None  # (id, ranked engine names) of the group being read
    for line in text.splitlines():
        if _GRAPH_START.match(line):
            in_graph = True
            continue
        if not in_graph:
            continue
        g = _GROUP.match(line) or _GENERIC_GROUP.match(line)
        if g:
            group = (int(g.group(1)), _ENGINE.findall(line))
            continue
        m = _OP_LINE.match(line)
        if not m:
            continue
        if m.group(1) == "yield":  # the group's terminator ends it
            group = None
            continue
        if m.group(1) == "output":  # the terminator ends the body
            in_graph = False
            continue
        if m.group(1) == "scalar":
            continue
        ops += 1
        if group is None or not group[1]:
            ungrouped.append(line.strip()[:200])
            continue
        engines.setdefault(group[0], group[1])
    return GroupReport(len(engines), ops, engines, ungrouped, text)


def graph_opt_available(graph_opt: str = GRAPH_OPT) -> bool:
    return os.path.isfile(graph_opt) and os.access(graph_opt, os.X_OK)


def select_engines(text: str, label: str = "graph", graph_opt: str = GRAPH_OPT) -> GroupReport:
    """Run the GPU pipeline's graph passes (graph-prepare, the GPU-only
    rewrites, graph-fuse, graph-select-engines) with graph-opt on ``text``;
    raises SelectEnginesError with its diagnostics on failure."""
    cmd = [graph_opt, "--graph-prepare", "--graph-widen-norm-gradients", "--graph-split-moe-scatter", "--graph-split-moe-gather", "--graph-fuse", "--graph-select-engines", "-"]
    proc = subprocess.run(cmd, input=text, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SelectEnginesError(f"{label}: `{' '.join(cmd[1:])}` failed (exit {proc.returncode}):\n{proc.stderr.strip()}")
    return parse_groups(proc.stdout)


# =============================================================================
# Command line
# =============================================================================


def _describe_dims(dims) -> str:
    return " ".join(f"{k}={v}" for k, v in dims.items())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", default="small", help="small (CPU numerics + groups), check, or full (groups only)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("which", nargs="*", help="model or model:phase (default: all)")
    args = ap.parse_args(argv)
    models = load_models()
    wanted = args.which or list(models)
    failed = passed = 0
    for item in wanted:
        name, _, only = item.partition(":")
        if name not in models:
            print(f"FAIL {item}: no model {name!r} (have {sorted(models)})")
            failed += 1
            continue
        mod = models[name]
        for phase in phases(mod):
            if only and phase != only:
                continue
            label = f"{name}/{phase}/{args.size}"
            start = time.time()
            try:
                dims = dims_of(mod, args.size)
                model = build_model(mod, phase, args.size, dims)
                groups = "?"
                if graph_opt_available():
                    rep = select_engines(model.graph.to_mlir(), label)
                    groups = f"{rep.groups} groups / {rep.ops} ops"
                    if rep.ungrouped:
                        raise SelectEnginesError(f"{label}: ops without a group or engine:\n  " + "\n  ".join(rep.ungrouped))
                detail = groups
                if args.size != "full":
                    checks = check_numerics(mod, phase, args.size, args.seed, dims)
                    assert_numerics(checks, label)
                    worst = max(checks, key=lambda c: c.error / c.bound if c.bound else c.error)
                    detail += f"; worst {worst}"
                print(f"PASS {label} ({_describe_dims(dims)}): {detail} [{time.time() - start:.1f} s]")
                passed += 1
            except Exception as exc:  # noqa: BLE001 - report every model
                print(f"FAIL {label}: {type(exc).__name__}: {exc}")
                failed += 1
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    # Run as the module the models import (not as __main__), so that their
    # harness.Model is this Model.
    import harness

    sys.exit(harness.main())
