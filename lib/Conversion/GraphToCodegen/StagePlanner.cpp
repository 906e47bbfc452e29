//===- StagePlanner.cpp - A group's ops as kernel stages ------------------===//
//
// The planner walks the group's ops in order and keeps one open stage:
// pointwise ops over the same space join it, reductions over trailing axes
// and norms turn a pointwise stage into a row stage (the ops around them
// join it when their values are per row, per column or row shaped), other
// reductions, quantize and copies run alone. A stage closes when an op
// cannot join it; the values it produced that later stages or the user read
// are stored then, the group's virtual ones into scratch buffers. Views
// (transpose, slice, reshape) become strided views of the tensor they read,
// so they cost no kernel unless the user reads them.
//
//===----------------------------------------------------------------------===//

#include "KernelGen.h"
#include "ScalarOps.h"

#include "GraphDialect/Engines/Codegen.h"

using namespace mlir;
using namespace mlir::graph;
using namespace mlir::graph::kernelgen;

bool kernelgen::isColumnSum(const rt::OpSpec &op, int64_t uid) {
  for (Port port : {Port::DScale, Port::DBias})
    if (auto it = op.outputs.find(port);
        it != op.outputs.end() && it->second == uid)
      return true;
  return false;
}

int64_t Planner::newScratch(DType dtype, const Shape &dims) {
  int64_t id = nextScratch--;
  int64_t elements = std::max<int64_t>(numel(dims), 1);
  scratch.emplace_back(id, elements * elementBytes(dtype));
  buffers[id] = {dtype, elements};
  return id;
}

/// Ends the open stage: values it produced that later ops (from `nextOp`
/// on) read, or the user reads, are written out.
void Planner::close(size_t nextOp) {
  if (!open)
    return;
  for (int64_t uid : open->produced) {
    bool later = false;
    for (size_t c : consumers[uid])
      later |= c >= nextOp;
    const rt::TensorSpec &t = tensor(uid);
    if (!t.isVirtual) {
      open->stores.push_back(uid);
      continue;
    }
    if (!later)
      continue;
    View v;
    v.dtype = t.dtype;
    v.dims = t.dims;
    v.strides = rowMajorStrides(t.dims);
    v.buffer = newScratch(t.dtype, t.dims);
    views[uid] = v;
    open->stores.push_back(uid);
  }
  stages.push_back(std::move(*open));
  open.reset();
}

void Planner::addAlone(const rt::OpSpec &op, StageKind kind, const Shape &space,
                       size_t index) {
  close(index);
  open = Stage{kind, space};
  open->ops.push_back(&op);
  for (auto &[port, uid] : op.outputs)
    open->produced.insert(uid);
  close(index + 1);
}

/// Outputs of `op`, the one op of the stage just closed, that nothing reads
/// go to scratch: its kernel writes every output.
void Planner::writeUnread(const rt::OpSpec &op) {
  if (stages.empty() || stages.back().stores.empty())
    return;
  for (auto &[port, uid] : op.outputs) {
    if (views.count(uid))
      continue;
    const rt::TensorSpec &t = tensor(uid);
    View v{newScratch(t.dtype, t.dims), t.dtype, 0, t.dims,
           rowMajorStrides(t.dims)};
    views[uid] = v;
    stages.back().stores.push_back(uid);
  }
}

std::string Planner::needAddressable(int64_t uid, size_t index) {
  uid = resolve(uid);
  if (open && open->produced.count(uid))
    close(index);
  if (views.count(uid) || (tensors.count(uid) && tensor(uid).isByValue))
    return "";
  return "uid " + std::to_string(uid) + " has no buffer to read";
}

std::string Planner::addPointwiseLike(const rt::OpSpec &op, const Shape &out) {
  if (open && open->kind == StageKind::Pointwise && open->space == out) {
  } else if (open && open->kind == StageKind::Row &&
             broadcastsTo(out, open->space)) {
    // Row stages take ops on the row space, per-row and per-column values.
    const Shape &d = open->space;
    size_t lead = d.size() - out.size();
    bool rowsAll1 = true, colsAll1 = true, exact = true;
    for (size_t i = 0; i < d.size(); ++i) {
      int64_t o = i >= lead ? out[i - lead] : 1;
      (i < open->k ? rowsAll1 : colsAll1) &= o == 1;
      exact &= o == d[i] || o == 1;
    }
    bool rowStat = colsAll1, col = rowsAll1;
    bool full = out.size() == d.size() && out == d;
    if (!(exact && (full || rowStat || col))) {
      close(&op - spec.ops.data());
      open = Stage{StageKind::Pointwise, out};
    }
  } else {
    close(&op - spec.ops.data());
    open = Stage{StageKind::Pointwise, out};
  }
  open->ops.push_back(&op);
  for (auto &[port, uid] : op.outputs)
    open->produced.insert(uid);
  return "";
}

std::string Planner::addRowOp(const rt::OpSpec &op, const Shape &space,
                              size_t k) {
  size_t index = &op - spec.ops.data();
  // Rope, dequantize and gen_index address by the linear index of a
  // pointwise stage: a stage with one of them does not become a row stage.
  auto rowable = [](const rt::OpSpec *o) {
    return (o->kind == OpKind::Pointwise && o->mode != "gen_index") ||
           o->kind == OpKind::BatchnormInference;
  };
  if (open && open->kind == StageKind::Pointwise && open->space == space &&
      llvm::all_of(open->ops, rowable)) {
    open->kind = StageKind::Row;
    open->k = k;
  } else if (!(open && open->kind == StageKind::Row && open->space == space &&
               open->k == k)) {
    close(index);
    open = Stage{StageKind::Row, space, k};
  }
  open->ops.push_back(&op);
  for (auto &[port, uid] : op.outputs)
    open->produced.insert(uid);
  return "";
}

static std::string dimsText(const Shape &dims) {
  std::string text;
  for (size_t i = 0; i < dims.size(); ++i)
    text += (i ? "x" : "") + std::to_string(dims[i]);
  return text.empty() ? "scalar" : text;
}

/// How many leading axes of `x` index a norm's rows (its statistics); the
/// axes after them are the normalized ones, one row per block. Layer, RMS
/// and adaptive layer norm normalize over the dims where scale is not 1
/// (cuDNN's rule; adaptive layer norm from dim 1 on): x [B, S, D] with
/// scale [1, 1, D] has rows of D (k = 2), with [1, S, D] rows of S * D
/// (k = 1). A set of normalized dims that is not a trailing run is declined
/// (`error`).
static size_t normSuffix(const rt::OpSpec &op, const Shape &x,
                         const Shape &scale, std::string &error) {
  if (op.kind.isOneOf({OpKind::Instancenorm, OpKind::InstancenormBackward}))
    return 2;
  bool layer = op.kind.isOneOf({OpKind::Layernorm, OpKind::LayernormBackward,
                                OpKind::Rmsnorm, OpKind::RmsnormBackward});
  if (!layer &&
      !op.kind.isOneOf({OpKind::AdaLayernorm, OpKind::AdaLayernormBackward})) {
    error = "generated kernels have no " + op.kind + " yet";
    return 0;
  }
  size_t rank = x.size(), lead = rank - std::min(rank, scale.size());
  std::vector<bool> norm(rank, false);
  bool any = false;
  for (size_t i = layer ? 0 : 1; i < rank; ++i) {
    int64_t s = i >= lead ? scale[i - lead] : 1;
    norm[i] = s != 1;
    any |= norm[i];
  }
  if (!any) // a scale of ones: all dims but 0, as the reference reads it
    return 1;
  for (size_t i = 1; i < rank; ++i)
    norm[i] = norm[i] || x[i] == 1; // unit dims go either way
  size_t k = rank;
  while (k > 0 && norm[k - 1])
    --k;
  if (std::find(norm.begin(), norm.begin() + k, true) == norm.begin() + k)
    return k;
  std::string dims;
  for (size_t i = 0; i < rank; ++i)
    if (norm[i] && x[i] != 1)
      dims += (dims.empty() ? "" : ", ") + std::to_string(i);
  error = "generated kernels normalize a trailing run of dims only, but "
          "scale " +
          dimsText(scale) + " normalizes dims {" + dims + "} of the input " +
          dimsText(x) + " but not dim " + std::to_string(k - 1) + " after them";
  return 0;
}

/// The op being planned and what its planning step asks about it.
struct Planner::OpContext {
  Planner &p;
  const rt::OpSpec &op;
  size_t index;
  std::string label; // the op's kind and name, for messages

  /// The (resolved) uid at input `port`, 0 when there is none.
  int64_t in(Port port) const {
    auto it = op.inputs.find(port);
    return it == op.inputs.end() ? 0 : p.resolve(it->second);
  }
  /// The uid at output `port`, 0 when there is none.
  int64_t out(Port port) const {
    auto it = op.outputs.find(port);
    return it == op.outputs.end() ? 0 : it->second;
  }
  /// Why the op lacks one of the ports its kind needs, or "".
  std::string lacks(std::initializer_list<Port> ins,
                    std::initializer_list<Port> outs) const {
    for (Port port : ins)
      if (!op.inputs.count(port))
        return label + ": has no " + portName(port) + " input";
    for (Port port : outs)
      if (!op.outputs.count(port))
        return label + ": has no " + portName(port) + " output";
    return std::string();
  }
  /// Ops that address their input's elements (views, rope, quantize and
  /// dequantize, reduce stages) read it from a buffer: why `port` is not in
  /// one, or "".
  std::string inMemory(Port port) {
    int64_t uid = in(port);
    if (std::string e = p.needAddressable(uid, index); !e.empty())
      return label + ": " + e;
    if (!p.views.count(uid))
      return label + ": generated kernels read " + portName(port) +
             " from memory, but uid " + std::to_string(uid) +
             " is a by-value scalar";
    return std::string();
  }
};

std::string Planner::addTensorViews() {
  for (const rt::TensorSpec &t : spec.tensors) {
    if (!supportedType(t.dtype))
      return "generated kernels take f32, f16, bf16, fp8, fp4 (one per byte), "
             "i1 and i32 tensors only (uid " +
             std::to_string(t.uid) + ")";
    if (t.isVirtual || t.isByValue)
      continue;
    View v{t.uid, t.dtype, 0, t.dims, t.strides};
    if (v.strides.size() != v.dims.size())
      v.strides = rowMajorStrides(t.dims);
    views[t.uid] = v;
    int64_t span = 1;
    for (size_t i = 0; i < t.dims.size(); ++i)
      span += (t.dims[i] - 1) * v.strides[i];
    buffers[t.uid] = {t.dtype, span};
  }
  return "";
}

std::string Planner::plan() {
  for (size_t i = 0; i < spec.ops.size(); ++i)
    for (auto &[port, uid] : spec.ops[i].inputs)
      consumers[uid].push_back(i);
  if (std::string e = addTensorViews(); !e.empty())
    return e;
  if (spec.ops.empty())
    return "the group has no ops";

  for (size_t i = 0; i < spec.ops.size(); ++i) {
    const rt::OpSpec &op = spec.ops[i];
    OpContext c{*this, op, i,
                op.kind + (op.name.empty() ? "" : " \"" + op.name + "\"")};
    // Every tensor the op names is one of the group's, and the ports an op
    // kind reads are there (specs also come through the C API).
    for (const auto *ports : {&op.inputs, &op.outputs})
      for (auto &[port, uid] : *ports)
        if (!tensors.count(uid))
          return c.label + ": " + port + " (uid " + std::to_string(uid) +
                 ") is not a tensor of the group";
    // The codegen engine's per-op support list (lib/Engines/Codegen) decides
    // which ops have kernels; what follows plans the stages of those.
    CodegenOpInfo info;
    info.kind = op.kind.name();
    info.mode = op.mode;
    info.ragged = op.inputs.count(Port::group_offset) != 0;
    if (op.inputs.count(Port::input) && op.outputs.count(Port::output)) {
      if (const Shape *dims = dimsOf(c.in(Port::input)))
        info.inputRank = static_cast<int64_t>(dims->size());
      info.outputRank =
          static_cast<int64_t>(tensor(c.out(Port::output)).dims.size());
    }
    if (std::string why = codegenDeclinesOp(info); !why.empty())
      return c.label + ": " + why;
    const SpecOpKind &kind = op.kind;
    std::string error;
    if (kind == OpKind::Pointwise)
      error = planPointwise(c);
    else if (kind == OpKind::BlockScaleQuantize)
      error = planQuantize(c);
    else if (isRope(kind) || kind == OpKind::BlockScaleDequantize)
      error = planRopeOrDequantize(c);
    else if (kind == OpKind::BatchnormInference)
      error = planBatchnormInference(c);
    else if (kind.isOneOf({OpKind::Transpose, OpKind::Slice, OpKind::Reshape}))
      error = planView(c);
    else if (kind == OpKind::Concatenate)
      error = planConcatenate(c);
    else if (kind == OpKind::Reduction)
      error = planReduction(c);
    else if (kind == OpKind::Genstats)
      error = planGenstats(c);
    else if (kind.isOneOf({OpKind::Layernorm, OpKind::Rmsnorm,
                           OpKind::Instancenorm, OpKind::AdaLayernorm}))
      error = planNorm(c, /*forward=*/true);
    else if (kind.isOneOf({OpKind::LayernormBackward, OpKind::RmsnormBackward,
                           OpKind::InstancenormBackward,
                           OpKind::AdaLayernormBackward}))
      error = planNorm(c, /*forward=*/false);
    else // codegenDeclinesOp accepted an op no step above plans.
      return c.label + ": the kernel generator has no stage plan for " + kind;
    if (!error.empty())
      return error;
  }
  close(spec.ops.size());
  return "";
}

std::string Planner::planPointwise(OpContext &c) {
  const rt::OpSpec &op = c.op;
  if (std::string e = c.lacks({}, {Port::output}); !e.empty())
    return e;
  if (op.mode != "gen_index")
    for (unsigned a = 0, n = pointwiseArity(op.mode); a < n; ++a)
      if (!op.inputs.count(pointwiseInput(a)))
        return c.label + ": pointwise " + op.mode + " has no in" +
               std::to_string(a) + " input";
  if (op.mode == "gen_index" && open &&
      !(open->kind == StageKind::Pointwise &&
        open->space == tensor(c.out(Port::output)).dims))
    close(c.index);
  if (std::string e = addPointwiseLike(op, tensor(c.out(Port::output)).dims);
      !e.empty())
    return e;
  if (op.mode == "gen_index" && open->kind != StageKind::Pointwise)
    return c.label + ": gen_index runs in pointwise stages only";
  return "";
}

std::string Planner::planQuantize(OpContext &c) {
  if (std::string e = c.lacks({Port::input}, {Port::Y, Port::scale});
      !e.empty())
    return e;
  if (std::string e = c.inMemory(Port::input); !e.empty())
    return e;
  addAlone(c.op, StageKind::Quantize, *dimsOf(c.in(Port::input)), c.index);
  writeUnread(c.op);
  return "";
}

std::string Planner::planRopeOrDequantize(OpContext &c) {
  // Both read elements of their inputs other than the one they write
  // (rope's partner half, the block's descale): the inputs must be in
  // memory, and the op runs in a pointwise stage over its output.
  bool rope = isRope(c.op.kind);
  std::initializer_list<Port> ports = {Port::input,
                                       rope ? Port::freqs : Port::descale};
  if (std::string e = c.lacks(ports, {Port::output}); !e.empty())
    return e;
  for (Port port : ports)
    if (std::string e = c.inMemory(port); !e.empty())
      return e;
  const Shape &dims = tensor(c.out(Port::output)).dims;
  if (!(open && open->kind == StageKind::Pointwise && open->space == dims)) {
    close(c.index);
    open = Stage{StageKind::Pointwise, dims};
  }
  open->ops.push_back(&c.op);
  open->produced.insert(c.out(Port::output));
  return "";
}

std::string Planner::planBatchnormInference(OpContext &c) {
  if (std::string e = c.lacks({Port::input, Port::mean, Port::inv_variance,
                               Port::scale, Port::bias},
                              {Port::Y});
      !e.empty())
    return e;
  addPointwiseLike(c.op, tensor(c.out(Port::Y)).dims);
  return "";
}

std::string Planner::planView(OpContext &c) {
  const rt::OpSpec &op = c.op;
  if (std::string e = c.lacks({Port::input}, {Port::output}); !e.empty())
    return e;
  int64_t src = c.in(Port::input);
  if (std::string e = c.inMemory(Port::input); !e.empty())
    return e;
  const View &from = views.at(src);
  const rt::TensorSpec &result = tensor(c.out(Port::output));
  View v = from;
  v.dims = result.dims;
  if (op.kind == OpKind::Transpose) {
    auto perm = op.intAttrs.find("permutation");
    std::vector<int64_t> order;
    if (perm != op.intAttrs.end())
      order = perm->second;
    for (size_t d = order.size(); d < from.dims.size(); ++d)
      order.push_back(d); // trailing unit dims of norm groups
    if (order.size() != from.dims.size())
      return c.label + ": needs a permutation of rank " +
             std::to_string(from.dims.size());
    v.strides.clear();
    for (int64_t p : order)
      v.strides.push_back(from.strides.at(p));
  } else if (op.kind == OpKind::Slice) {
    auto starts = op.intAttrs.find("start");
    auto steps = op.intAttrs.find("step");
    for (size_t d = 0; d < from.dims.size(); ++d) {
      int64_t start = starts != op.intAttrs.end() && d < starts->second.size()
                          ? starts->second[d]
                          : 0;
      int64_t step = steps != op.intAttrs.end() && d < steps->second.size()
                         ? steps->second[d]
                         : 1;
      v.base += start * from.strides[d];
      v.strides[d] = from.strides[d] * step;
    }
  } else if (!::graph::reshapeViewStrides(from.dims, from.strides, result.dims,
                                          v.strides)) {
    // No strides read the source as the new shape (a channels-last
    // tensor viewed as [N, G, C/G*H*W], say): gather it into a packed
    // scratch buffer first and view that.
    close(c.index);
    View packed = from;
    packed.strides = rowMajorStrides(from.dims);
    packed.base = 0;
    packed.buffer = newScratch(from.dtype, from.dims);
    int64_t packedId = nextSynthetic--;
    views[packedId] = packed;
    Stage gather{StageKind::Copy, from.dims};
    gather.ops.push_back(&synthesize(op, OpKind::Pointwise, "identity",
                                     Port::in0, src, packedId));
    gather.stores.push_back(packedId);
    stages.push_back(gather);
    v = packed;
    v.dims = result.dims;
    v.strides = rowMajorStrides(result.dims);
  }
  int64_t id = nextSynthetic--;
  views[id] = v;
  if (result.isVirtual) {
    alias[c.out(Port::output)] = id;
    return "";
  }
  // The user reads the view: copy it into the output.
  addAlone(synthesize(op, OpKind::Pointwise, "identity", Port::in0, id,
                      c.out(Port::output)),
           StageKind::Copy, result.dims, c.index);
  return "";
}

std::string Planner::planConcatenate(OpContext &c) {
  const rt::OpSpec &op = c.op;
  if (std::string e = c.lacks({}, {Port::output}); !e.empty())
    return e;
  const rt::TensorSpec &result = tensor(c.out(Port::output));
  auto axisIt = op.intAttrs.find("axis");
  if (axisIt == op.intAttrs.end() || axisIt->second.empty())
    return c.label + ": has no axis";
  int64_t axis = axisIt->second[0];
  if (axis < 0)
    axis += result.dims.size();
  close(c.index);
  View whole;
  if (result.isVirtual) {
    whole.dtype = result.dtype;
    whole.dims = result.dims;
    whole.strides = rowMajorStrides(result.dims);
    whole.buffer = newScratch(result.dtype, result.dims);
    views[result.uid] = whole;
  } else {
    whole = views.at(result.uid);
  }
  // Each input is copied into its region of the output.
  int64_t offset = 0;
  for (size_t k = 0;; ++k) {
    auto port = op.inputs.find(variadicElement(Port::inputs, k));
    if (port == op.inputs.end())
      break;
    int64_t src = resolve(port->second);
    if (std::string e = needAddressable(src, c.index); !e.empty())
      return c.label + ": " + e;
    const Shape &dims = tensor(port->second).dims;
    View region = whole;
    region.dims = dims;
    region.base += offset * whole.strides.at(axis);
    offset += dims.at(axis);
    int64_t id = nextSynthetic--;
    views[id] = region;
    Stage s{StageKind::Copy, dims};
    s.ops.push_back(
        &synthesize(op, OpKind::Pointwise, "identity", Port::in0, src, id));
    s.stores.push_back(id);
    stages.push_back(s);
  }
  if (offset == 0)
    return c.label + ": has no inputs";
  return "";
}

std::string Planner::planReduction(OpContext &c) {
  if (std::string e = c.lacks({Port::input}, {Port::output}); !e.empty())
    return e;
  // The input may be a view (its dims are the view's).
  const Shape &xDims = *dimsOf(c.in(Port::input));
  const rt::TensorSpec &y = tensor(c.out(Port::output));
  size_t k = y.dims.size();
  while (k > 0 && y.dims[k - 1] == 1)
    --k;
  bool suffix = true;
  for (size_t d = 0; d < k; ++d)
    suffix &= y.dims[d] == xDims[d];
  if (suffix) {
    addRowOp(c.op, xDims, k);
    return "";
  }
  if (std::string e = c.inMemory(Port::input); !e.empty())
    return e;
  addAlone(c.op, StageKind::Reduce, xDims, c.index);
  return "";
}

std::string Planner::planGenstats(OpContext &c) {
  if (std::string e = c.lacks({Port::input}, {Port::SUM, Port::SQ_SUM});
      !e.empty())
    return e;
  if (std::string e = c.inMemory(Port::input); !e.empty())
    return e;
  addAlone(c.op, StageKind::Reduce, *dimsOf(c.in(Port::input)), c.index);
  writeUnread(c.op);
  return "";
}

std::string Planner::planNorm(OpContext &c, bool forward) {
  const rt::OpSpec &op = c.op;
  bool backward = !forward;
  bool centered = !isRmsnorm(op.kind);
  if (std::string e =
          forward
              ? c.lacks({Port::input, Port::scale, Port::epsilon}, {Port::Y})
              : c.lacks(
                    {Port::grad, Port::input, Port::scale, Port::inv_variance},
                    {Port::DX});
      !e.empty())
    return e;
  if (backward && centered)
    if (std::string e = c.lacks({Port::mean}, {}); !e.empty())
      return e;
  // The input may be a view (its dims are the view's).
  const Shape &xDims = *dimsOf(c.in(Port::input));
  const Shape &scaleDims = *dimsOf(c.in(Port::scale));
  std::string error;
  if (scaleDims.size() > xDims.size())
    return c.label + ": scale has rank " + std::to_string(scaleDims.size()) +
           ", more than the input's " + std::to_string(xDims.size());
  size_t k = normSuffix(op, xDims, scaleDims, error);
  if (!error.empty())
    return c.label + ": " + error;
  bool perRowScale = false;
  if (backward) {
    // DScale/DBias are per-column sums over the rows when scale is the
    // same for every row; otherwise (instance norm's per-channel scale,
    // adaptive layer norm's per-sample one) dY * xhat is written out and
    // reduce stages sum it, and dY, over the dims scale broadcasts.
    size_t lead = xDims.size() - scaleDims.size();
    for (size_t d = lead; d < k && d < xDims.size(); ++d)
      perRowScale |= scaleDims[d - lead] != 1;
    if (open && open->kind == StageKind::Row)
      for (const rt::OpSpec *o : open->ops)
        if (isBackward(o->kind))
          close(c.index);
  }
  addRowOp(op, xDims, k);
  if (!perRowScale)
    return "";
  auto dscale = op.outputs.find(Port::DScale);
  auto dbias = op.outputs.find(Port::DBias);
  Shape target =
      tensor(dscale != op.outputs.end() ? dscale->second : c.in(Port::scale))
          .dims;
  if (target.size() != xDims.size())
    return c.label + ": DScale must have the input's rank";
  // The product dY * xhat, in f32 scratch, is the stage's output.
  View product{0, DType::F32, 0, xDims, rowMajorStrides(xDims)};
  product.buffer = newScratch(DType::F32, xDims);
  int64_t id = nextSynthetic--;
  views[id] = product;
  productOf[&op] = id;
  open->stores.push_back(id);
  close(c.index + 1);
  std::vector<std::pair<int64_t, int64_t>> sums; // input, output
  if (dscale != op.outputs.end())
    sums.push_back({id, dscale->second});
  if (dbias != op.outputs.end())
    sums.push_back({c.in(Port::grad), dbias->second});
  for (auto [from, to] : sums) {
    if (!views.count(to))
      continue; // an unused intermediate: nothing reads it
    Stage st{StageKind::Reduce, xDims};
    st.ops.push_back(
        &synthesize(op, OpKind::Reduction, "add", Port::input, from, to));
    st.produced.insert(to);
    st.stores.push_back(to);
    stages.push_back(st);
  }
  return "";
}
