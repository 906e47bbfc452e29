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
// The planner reads the group's graph ops (GroupOps: a func of them and the
// uid of each tensor value), through the ops' classes and attributes.
//
//===----------------------------------------------------------------------===//

#include "KernelGen.h"
#include "ScalarOps.h"

#include "GraphDialect/Engines/Codegen.h"

using namespace mlir;
using namespace mlir::graph;
using namespace mlir::graph::kernelgen;

/// The DType of element type `type` (F64 for one no kernel takes: the
/// planner declines it by dtype).
static DType dtypeOf(Type type) {
  if (type.isF32())
    return DType::F32;
  if (type.isF16())
    return DType::F16;
  if (type.isBF16())
    return DType::BF16;
  if (isa<Float8E4M3FNType>(type))
    return DType::F8E4M3FN;
  if (isa<Float8E5M2Type>(type))
    return DType::F8E5M2;
  if (isa<Float8E8M0FNUType>(type))
    return DType::F8E8M0FNU;
  if (isa<Float4E2M1FNType>(type))
    return DType::F4E2M1FN;
  if (type.isInteger(1))
    return DType::I1;
  if (type.isUnsignedInteger(8))
    return DType::U8;
  if (type.isInteger(8))
    return DType::I8;
  if (type.isInteger(32))
    return DType::I32;
  if (type.isInteger(64))
    return DType::I64;
  return DType::F64;
}

Planner::Planner(const GroupOps &group)
    : group(group), func(group.func), uids(group.uids),
      scratchOps(std::make_unique<Block>()) {
  for (Operation &op : func.getBody().front())
    if (!isa<ScalarOp, func::ReturnOp>(op))
      ops.push_back(&op);
  // What the group's tensor values are: dtype, dims and strides from the
  // type; graph inputs and outputs live in buffers, graph.scalar values are
  // by-value, the others only inside the group.
  llvm::DenseSet<Value> buffered(func.getArguments().begin(),
                                 func.getArguments().end());
  for (Operation &op : func.getBody().front())
    if (auto ret = dyn_cast<func::ReturnOp>(op))
      buffered.insert(ret.getOperands().begin(), ret.getOperands().end());
  for (Value v : group.tensors) {
    auto type = cast<RankedTensorType>(v.getType());
    rt::TensorSpec t;
    t.uid = uids.lookup(v);
    t.dtype = dtypeOf(type.getElementType());
    t.dims.assign(type.getShape().begin(), type.getShape().end());
    ArrayRef<int64_t> strides = getStrides(type);
    t.strides.assign(strides.begin(), strides.end());
    if (auto scalar = v.getDefiningOp<ScalarOp>()) {
      t.isByValue = true;
      if (auto value = dyn_cast<FloatAttr>(scalar.getValue()))
        t.byValue = value.getValueAsDouble();
      else if (auto value = dyn_cast<IntegerAttr>(scalar.getValue()))
        t.byValue = static_cast<double>(value.getInt());
    } else {
      t.isVirtual = !buffered.count(v);
    }
    tensorFacts.push_back(t);
    tensors[t.uid] = &tensorFacts.back();
  }
}

Planner::~Planner() {
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*scratchOps)))
    op.erase();
}

Value Planner::placeholder(int64_t uid, DType dtype, const Shape &dims) {
  for (BlockArgument arg : scratchOps->getArguments())
    if (uids.lookup(arg) == uid)
      return arg;
  Builder b(func.getContext());
  RankedTensorType type = RankedTensorType::get(dims, elementType(b, dtype));
  Value arg = scratchOps->addArgument(type, func.getLoc());
  uids[arg] = uid;
  return arg;
}

Operation *Planner::synthesize(Operation *like, bool reduction, int64_t from,
                               int64_t to) {
  // Planner-made tensors (views, scratch regions) get placeholders; the
  // group's own keep their values.
  auto valueFor = [&](int64_t uid) -> Value {
    for (Value v : group.tensors)
      if (uids.lookup(v) == uid)
        return v;
    const View &v = views.count(uid) ? views.at(uid) : viewOf(uid);
    return placeholder(uid, v.dtype, v.dims);
  };
  Value in = valueFor(from), out = valueFor(to);
  OpBuilder b(func.getContext());
  b.setInsertionPointToEnd(scratchOps.get());
  Location loc = like->getLoc();
  SmallVector<NamedAttribute> attrs;
  StringRef label = getNodeLabel(like);
  if (!label.empty())
    attrs.push_back(b.getNamedAttr("name", b.getStringAttr(label)));
  Operation *op;
  if (reduction) {
    attrs.push_back(b.getNamedAttr(
        "mode", ReductionModeAttr::get(b.getContext(), ReductionMode::add)));
    op = ReductionOp::create(b, loc, TypeRange{out.getType()}, ValueRange{in},
                             attrs);
  } else {
    attrs.push_back(b.getNamedAttr(
        "mode",
        PointwiseModeAttr::get(b.getContext(), PointwiseMode::identity)));
    op = PointwiseOp::create(b, loc, TypeRange{out.getType()}, ValueRange{in},
                             attrs);
  }
  uids[op->getResult(0)] = to;
  return op;
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

void Planner::addAlone(Operation *op, StageKind kind, const Shape &space,
                       size_t index) {
  close(index);
  open = Stage{kind, space};
  open->ops.push_back(op);
  for (Value result : op->getResults())
    open->produced.insert(uidOf(result));
  close(index + 1);
}

/// Outputs of `op`, the one op of the stage just closed, that nothing reads
/// go to scratch: its kernel writes every output.
void Planner::writeUnread(Operation *op) {
  if (stages.empty() || stages.back().stores.empty())
    return;
  for (auto &[port, result] : namedValues(op, /*isResult=*/true)) {
    int64_t uid = uidOf(result);
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

std::string Planner::addPointwiseLike(Operation *op, const Shape &out) {
  size_t index = llvm::find(ops, op) - ops.begin();
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
    // A backward norm's DScale/DBias is summed over every row after the
    // row loop: an op reading it runs in a later stage.
    bool readsColumnSum = llvm::any_of(op->getOperands(), [&](Value v) {
      int64_t uid = resolve(uidOf(v));
      return llvm::any_of(open->ops, [&](Operation *o) {
        return isBackwardNorm(o) && isColumnSum(o, uid);
      });
    });
    if (readsColumnSum || !(exact && (full || rowStat || col))) {
      close(index);
      open = Stage{StageKind::Pointwise, out};
    }
  } else {
    close(index);
    open = Stage{StageKind::Pointwise, out};
  }
  open->ops.push_back(op);
  for (Value result : op->getResults())
    open->produced.insert(uidOf(result));
  return "";
}

/// The elements of one row of a row stage over `space` (axes [k, rank)).
static int64_t rowElements(const Shape &space, size_t k) {
  int64_t n = 1;
  for (size_t d = k; d < space.size(); ++d)
    n *= space[d];
  return n;
}

/// A row stage holds a row in the registers of one block's threads (at
/// most 1024 threads of 64 floats per row-shaped value): longer rows reduce
/// in reduce stages (reductions) or are declined (norms).
static constexpr int64_t kMaxRowElements = 1 << 16;

std::string Planner::addRowOp(Operation *op, const Shape &space, size_t k) {
  if (int64_t n = rowElements(space, k); n > kMaxRowElements)
    return labelOf(op) + ": rows of " + std::to_string(n) +
           " elements are longer than a generated row kernel holds (" +
           std::to_string(kMaxRowElements) + ")";
  size_t index = llvm::find(ops, op) - ops.begin();
  // Rope, dequantize, paged loads and gen_index address by the linear
  // index of a pointwise stage: a stage with one of them does not become a
  // row stage.
  auto rowable = [](Operation *o) {
    if (auto pointwise = dyn_cast<PointwiseOp>(o))
      return pointwise.getMode() != PointwiseMode::gen_index;
    return isa<BatchnormInferenceOp>(o);
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
  open->ops.push_back(op);
  for (Value result : op->getResults())
    open->produced.insert(uidOf(result));
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
static size_t normSuffix(Operation *op, const Shape &x, const Shape &scale,
                         std::string &error) {
  if (isa<InstancenormOp, InstancenormBackwardOp>(op))
    return 2;
  bool layer =
      isa<LayernormOp, LayernormBackwardOp, RmsnormOp, RmsnormBackwardOp>(op);
  if (!layer && !isa<AdaLayernormOp, AdaLayernormBackwardOp>(op)) {
    error = "generated kernels have no " + op->getName().stripDialect().str() +
            " yet";
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
  Operation *op;
  size_t index;
  std::string label; // the op's kind and name, for messages

  /// The (resolved) uid of operand `v`, 0 when there is none.
  int64_t in(Value v) const { return v ? p.resolve(p.uidOf(v)) : 0; }
  /// The uid of result `v`, 0 when there is none.
  int64_t out(Value v) const { return p.uidOf(v); }
  /// The tensor result `v` is.
  const rt::TensorSpec &tensor(Value v) const { return p.tensor(out(v)); }
  /// Ops that address their input's elements (views, rope, quantize and
  /// dequantize, reduce stages) read it from a buffer: why operand `v`
  /// (named `port`) is not in one, or "".
  std::string inMemory(Value v, Port port) {
    int64_t uid = in(v);
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
  for (const rt::TensorSpec &t : tensorFacts) {
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
  for (size_t i = 0; i < ops.size(); ++i)
    for (auto &[port, operand] : namedValues(ops[i], /*isResult=*/false))
      consumers[uidOf(operand)].push_back(i);
  if (std::string e = addTensorViews(); !e.empty())
    return e;
  if (ops.empty())
    return "the group has no ops";

  for (size_t i = 0; i < ops.size(); ++i) {
    Operation *op = ops[i];
    OpContext c{*this, op, i, labelOf(op)};
    // The codegen engine's per-op support list (lib/Engines/Codegen) decides
    // which ops have kernels; what follows plans the stages of those.
    CodegenOpInfo info;
    std::string kind = op->getName().stripDialect().str(), mode = modeOf(op);
    info.kind = kind;
    info.mode = mode;
    if (auto reduction = dyn_cast<ReductionOp>(op))
      info.ragged = static_cast<bool>(reduction.getGroupOffset());
    else if (auto quantize = dyn_cast<BlockScaleQuantizeOp>(op))
      info.ragged = static_cast<bool>(quantize.getGroupOffset());
    Value input = namedValue(op, Port::input, /*isResult=*/false);
    Value output = namedValue(op, Port::output, /*isResult=*/true);
    if (input && output) {
      if (const Shape *dims = dimsOf(c.in(input)))
        info.inputRank = static_cast<int64_t>(dims->size());
      info.outputRank = static_cast<int64_t>(c.tensor(output).dims.size());
    }
    if (std::string why = codegenDeclinesOp(info); !why.empty())
      return c.label + ": " + why;
    std::string error;
    if (isa<PointwiseOp>(op))
      error = planPointwise(c);
    else if (isa<BlockScaleQuantizeOp>(op))
      error = planQuantize(c);
    else if (isa<MoeScatterRowsOp>(op))
      error = planScatterRows(c);
    else if (isa<RopeOp, RopeBackwardOp, BlockScaleDequantizeOp,
                 PagedCacheLoadOp, MoeGatherRowsOp>(op))
      error = planGatheringPointwise(c);
    else if (isa<BatchnormInferenceOp>(op))
      error = planBatchnormInference(c);
    else if (isa<TransposeOp, SliceOp, ReshapeOp>(op))
      error = planView(c);
    else if (isa<ConcatenateOp>(op))
      error = planConcatenate(c);
    else if (isa<ReductionOp>(op))
      error = planReduction(c);
    else if (isa<GenstatsOp>(op))
      error = planGenstats(c);
    else if (isa<LayernormOp, RmsnormOp, InstancenormOp, AdaLayernormOp>(op))
      error = planNorm(c, /*forward=*/true);
    else if (isa<LayernormBackwardOp, RmsnormBackwardOp, InstancenormBackwardOp,
                 AdaLayernormBackwardOp>(op))
      error = planNorm(c, /*forward=*/false);
    else // codegenDeclinesOp accepted an op no step above plans.
      return c.label + ": the kernel generator has no stage plan for " + kind;
    if (!error.empty())
      return error;
  }
  close(ops.size());
  return "";
}

std::string Planner::planPointwise(OpContext &c) {
  auto op = cast<PointwiseOp>(c.op);
  PointwiseMode mode = op.getMode();
  std::string modeName = stringifyPointwiseMode(mode).str();
  unsigned given = op.getInputs().size();
  if (mode != PointwiseMode::gen_index && given < pointwiseArity(modeName))
    return c.label + ": pointwise " + modeName + " has no in" +
           std::to_string(given) + " input";
  const Shape &dims = c.tensor(op.getOutput()).dims;
  if (mode == PointwiseMode::gen_index && open &&
      !(open->kind == StageKind::Pointwise && open->space == dims))
    close(c.index);
  if (std::string e = addPointwiseLike(op, dims); !e.empty())
    return e;
  if (mode == PointwiseMode::gen_index && open->kind != StageKind::Pointwise)
    return c.label + ": gen_index runs in pointwise stages only";
  return "";
}

std::string Planner::planQuantize(OpContext &c) {
  auto op = cast<BlockScaleQuantizeOp>(c.op);
  if (std::string e = c.inMemory(op.getInput(), Port::input); !e.empty())
    return e;
  addAlone(op, StageKind::Quantize, *dimsOf(c.in(op.getInput())), c.index);
  writeUnread(op);
  return "";
}

std::string Planner::planScatterRows(OpContext &c) {
  // Rows land where the routing says: every operand is read from memory,
  // and the output is written by this op's own kernel only.
  auto op = cast<MoeScatterRowsOp>(c.op);
  for (auto [value, port] :
       {std::pair<Value, Port>{op.getInput(), Port::input},
        {op.getTokenIndex(), Port::token_index},
        {op.getTokenKs(), Port::token_ks},
        {op.getFirstTokenOffset(), Port::first_token_offset}})
    if (std::string e = c.inMemory(value, port); !e.empty())
      return e;
  addAlone(op, StageKind::Scatter, *dimsOf(c.in(op.getInput())), c.index);
  writeUnread(op);
  return "";
}

std::string Planner::planGatheringPointwise(OpContext &c) {
  // Each reads elements of its inputs other than the one it writes (rope's
  // partner half, the block's descale, the page a position lies in, the
  // routed token row): the inputs must be in memory, and the op runs in a
  // pointwise stage over its output.
  for (auto [i, operand] : llvm::enumerate(c.op->getOperands())) {
    Port port = Port::input;
    if (isa<RopeOp, RopeBackwardOp>(c.op))
      port = i == 0 ? Port::input : Port::freqs;
    else if (isa<BlockScaleDequantizeOp>(c.op))
      port = i == 0 ? Port::input : Port::descale;
    else if (isa<MoeGatherRowsOp>(c.op))
      port = i == 0 ? Port::input : Port::token_index;
    else if (auto load = dyn_cast<PagedCacheLoadOp>(c.op))
      port = operand == load.getContainer()   ? Port::container
             : operand == load.getPageTable() ? Port::page_table
                                              : Port::seq_len;
    if (std::string e = c.inMemory(operand, port); !e.empty())
      return e;
  }
  const Shape &dims = c.tensor(c.op->getResult(0)).dims;
  if (!(open && open->kind == StageKind::Pointwise && open->space == dims)) {
    close(c.index);
    open = Stage{StageKind::Pointwise, dims};
  }
  open->ops.push_back(c.op);
  open->produced.insert(c.out(c.op->getResult(0)));
  return "";
}

std::string Planner::planBatchnormInference(OpContext &c) {
  auto op = cast<BatchnormInferenceOp>(c.op);
  addPointwiseLike(op, c.tensor(op.getY()).dims);
  return "";
}

std::string Planner::planView(OpContext &c) {
  Operation *op = c.op;
  Value input = op->getOperand(0), output = op->getResult(0);
  int64_t src = c.in(input);
  if (std::string e = c.inMemory(input, Port::input); !e.empty())
    return e;
  const View &from = views.at(src);
  const rt::TensorSpec &result = c.tensor(output);
  View v = from;
  v.dims = result.dims;
  if (auto transpose = dyn_cast<TransposeOp>(op)) {
    std::vector<int64_t> order(transpose.getPermutation().begin(),
                               transpose.getPermutation().end());
    for (size_t d = order.size(); d < from.dims.size(); ++d)
      order.push_back(d); // trailing unit dims of norm groups
    if (order.size() != from.dims.size())
      return c.label + ": needs a permutation of rank " +
             std::to_string(from.dims.size());
    v.strides.clear();
    for (int64_t p : order)
      v.strides.push_back(from.strides.at(p));
  } else if (auto slice = dyn_cast<SliceOp>(op)) {
    ArrayRef<int64_t> starts = slice.getStart();
    std::optional<ArrayRef<int64_t>> steps = slice.getStep();
    for (size_t d = 0; d < from.dims.size(); ++d) {
      int64_t start = d < starts.size() ? starts[d] : 0;
      int64_t step = steps && d < steps->size() ? (*steps)[d] : 1;
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
    gather.ops.push_back(synthesize(op, /*reduction=*/false, src, packedId));
    gather.stores.push_back(packedId);
    stages.push_back(gather);
    v = packed;
    v.dims = result.dims;
    v.strides = rowMajorStrides(result.dims);
  }
  int64_t id = nextSynthetic--;
  views[id] = v;
  if (result.isVirtual) {
    alias[c.out(output)] = id;
    return "";
  }
  // The user reads the view: copy it into the output.
  addAlone(synthesize(op, /*reduction=*/false, id, c.out(output)),
           StageKind::Copy, result.dims, c.index);
  return "";
}

std::string Planner::planConcatenate(OpContext &c) {
  auto op = cast<ConcatenateOp>(c.op);
  const rt::TensorSpec &result = c.tensor(op.getOutput());
  int64_t axis = static_cast<int64_t>(op.getAxis());
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
  for (Value input : op.getInputs()) {
    int64_t src = c.in(input);
    if (std::string e = needAddressable(src, c.index); !e.empty())
      return c.label + ": " + e;
    const Shape &dims = tensor(uidOf(input)).dims;
    View region = whole;
    region.dims = dims;
    region.base += offset * whole.strides.at(axis);
    offset += dims.at(axis);
    int64_t id = nextSynthetic--;
    views[id] = region;
    Stage s{StageKind::Copy, dims};
    s.ops.push_back(synthesize(op, /*reduction=*/false, src, id));
    s.stores.push_back(id);
    stages.push_back(s);
  }
  if (offset == 0)
    return c.label + ": has no inputs";
  return "";
}

std::string Planner::planReduction(OpContext &c) {
  auto op = cast<ReductionOp>(c.op);
  // The input may be a view (its dims are the view's).
  const Shape &xDims = *dimsOf(c.in(op.getInput()));
  const rt::TensorSpec &y = c.tensor(op.getOutput());
  size_t k = y.dims.size();
  while (k > 0 && y.dims[k - 1] == 1)
    --k;
  bool suffix = true;
  for (size_t d = 0; d < k; ++d)
    suffix &= y.dims[d] == xDims[d];
  if (suffix && rowElements(xDims, k) <= kMaxRowElements)
    return addRowOp(op, xDims, k);
  if (std::string e = c.inMemory(op.getInput(), Port::input); !e.empty())
    return e;
  addAlone(op, StageKind::Reduce, xDims, c.index);
  return "";
}

std::string Planner::planGenstats(OpContext &c) {
  auto op = cast<GenstatsOp>(c.op);
  if (std::string e = c.inMemory(op.getInput(), Port::input); !e.empty())
    return e;
  addAlone(op, StageKind::Reduce, *dimsOf(c.in(op.getInput())), c.index);
  writeUnread(op);
  return "";
}

std::string Planner::planNorm(OpContext &c, bool forward) {
  Operation *op = c.op;
  bool backward = !forward;
  bool centered = !isa<RmsnormOp, RmsnormBackwardOp>(op);
  auto operand = [&](Port port) {
    return namedValue(op, port, /*isResult=*/false);
  };
  if (backward && centered && !operand(Port::mean))
    return c.label + ": has no mean input";
  // The input may be a view (its dims are the view's).
  const Shape &xDims = *dimsOf(c.in(operand(Port::input)));
  const Shape &scaleDims = *dimsOf(c.in(operand(Port::scale)));
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
      for (Operation *o : open->ops)
        if (isBackwardNorm(o))
          close(c.index);
  }
  if (std::string e = addRowOp(op, xDims, k); !e.empty())
    return e;
  if (!perRowScale)
    return "";
  Value dscale = namedValue(op, Port::DScale, /*isResult=*/true);
  Value dbias = namedValue(op, Port::DBias, /*isResult=*/true);
  Shape target =
      tensor(dscale ? c.out(dscale) : c.in(operand(Port::scale))).dims;
  if (target.size() != xDims.size())
    return c.label + ": DScale must have the input's rank";
  // The product dY * xhat, in f32 scratch, is the stage's output.
  View product{0, DType::F32, 0, xDims, rowMajorStrides(xDims)};
  product.buffer = newScratch(DType::F32, xDims);
  int64_t id = nextSynthetic--;
  views[id] = product;
  productOf[op] = id;
  open->stores.push_back(id);
  close(c.index + 1);
  std::vector<std::pair<int64_t, int64_t>> sums; // input, output
  if (dscale)
    sums.push_back({id, c.out(dscale)});
  if (dbias)
    sums.push_back({c.in(operand(Port::grad)), c.out(dbias)});
  for (auto [from, to] : sums) {
    if (!views.count(to))
      continue; // an unused intermediate: nothing reads it
    Stage st{StageKind::Reduce, xDims};
    st.ops.push_back(synthesize(op, /*reduction=*/true, from, to));
    st.produced.insert(to);
    st.stores.push_back(to);
    stages.push_back(st);
  }
  return "";
}
