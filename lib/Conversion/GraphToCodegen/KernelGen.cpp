//===- KernelGen.cpp - Vectorized kernels for memory-bound groups --------===//
//
// codegen_v2: a group description becomes a sequence of stages, each one
// gpu.func built directly from scf/arith/math/vector/gpu ops and lowered
// through MLIR's NVVM pipeline to sm_90 PTX:
//
//  - pointwise stages: every op over one iteration space; each thread owns
//    `items` runs of `vec` consecutive elements (16-byte vector loads and
//    stores where the layout allows, broadcast operands splat, strided
//    operands gathered);
//  - row stages: reductions over a suffix of the axes, norms forward and
//    backward, and the pointwise ops around them (softmax, residual add +
//    rmsnorm + scale). One block per row (a grid-stride loop over rows),
//    the row held in registers, warp shuffles and shared memory for the
//    block reduction; per-column sums of backward norms (DScale, DBias)
//    go through per-block partials and a finishing kernel;
//  - reduce stages: reductions over any other axes and genstats, one block
//    per output element.
//
// Views (transpose, slice, reshape) fold into the addressing of the tensor
// they read; concatenate copies each input into its region of the output.
// Values that cross stages and live only inside the group are materialized
// in scratch buffers the runtime allocates once per loaded group.
//
//===----------------------------------------------------------------------===//

#include "ByteFloat.h"
#include "GraphDialect/Conversion/GraphToCodegen.h"
#include "GraphDialect/Engines/Codegen.h"
#include "GraphDialect/Engines/Engine.h"
#include "ScalarOps.h"

#include "GraphDialect/Reference/QuantKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <set>

using namespace mlir;
using namespace mlir::graph;
namespace rt = ::graph::rt;
using ::graph::ref::DType;
using ::graph::ref::Shape;

namespace {

constexpr int64_t kRowWave = 132 * 2048; // resident threads on the H200
constexpr int64_t kSMs = 132;
/// Per-column row-stage inputs held in registers across rows, in lanes.
constexpr int64_t kHeldColumnLanes = 16;

int64_t numel(const Shape &s) {
  int64_t n = 1;
  for (int64_t d : s)
    n *= d;
  return n;
}

Shape rowMajorStrides(const Shape &dims) {
  Shape strides(dims.size(), 1);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * std::max<int64_t>(dims[i + 1], 1);
  return strides;
}

int64_t elementBytes(DType t) {
  if (t == DType::F32 || t == DType::I32)
    return 4;
  return t == DType::I1 || isByteFloat(t) ? 1 : 2;
}

/// i1 tensors are one byte per element, 0 or 1.
bool supportedType(DType t) {
  return t == DType::F32 || t == DType::F16 || t == DType::BF16 ||
         t == DType::I1 || t == DType::I32 || isByteFloat(t);
}

/// An addressable tensor: `dims` over a buffer `buffer` at element `base`.
struct View {
  int64_t buffer = 0; // uid of the buffer (negative: scratch)
  DType dtype = DType::F32;
  int64_t base = 0;
  Shape dims, strides;
};

/// Strides of `v` read over `space` (numpy broadcasting, trailing
/// alignment); broadcast dims read with stride 0.
Shape stridesOver(const View &v, const Shape &space) {
  Shape out(space.size(), 0);
  size_t lead = space.size() - v.dims.size();
  for (size_t j = 0; j < v.dims.size(); ++j)
    if (v.dims[j] != 1)
      out[lead + j] = v.strides[j];
  return out;
}

/// The innermost dim of `space` that is not 1 (runs of consecutive
/// elements move along it), or 0.
size_t innerDim(const Shape &space) {
  for (size_t d = space.size(); d > 0; --d)
    if (space[d - 1] != 1)
      return d - 1;
  return 0;
}

/// Whether runs of `vec` elements of a view with `strides` over `space`
/// start `vec`-aligned: every other moving dim's stride and the base are
/// multiples of `vec`.
bool runsAligned(const Shape &space, const Shape &strides, int64_t base,
                 int64_t vec) {
  size_t inner = innerDim(space);
  bool aligned = base % vec == 0;
  for (size_t d = 0; d < strides.size(); ++d)
    if (d != inner && space[d] != 1)
      aligned &= strides[d] % vec == 0;
  return aligned;
}

bool broadcastsTo(const Shape &in, const Shape &out) {
  if (in.size() > out.size())
    return false;
  size_t lead = out.size() - in.size();
  for (size_t j = 0; j < in.size(); ++j)
    if (in[j] != 1 && in[j] != out[lead + j])
      return false;
  return true;
}

enum class StageKind { Pointwise, Row, Reduce, Copy, Quantize };

struct Stage {
  StageKind kind = StageKind::Pointwise;
  Shape space;  // iteration space (row stages: the row-shaped tensor)
  size_t k = 0; // row stages: axes [k, rank) form one row
  std::vector<const rt::OpSpec *> ops;
  std::set<int64_t> produced;
  std::vector<int64_t> stores; // produced uids written to their view
};

/// Whether `uid` is the DScale or DBias of backward norm `op`.
bool isColumnSum(const rt::OpSpec &op, int64_t uid) {
  for (const char *port : {"DScale", "DBias"})
    if (auto it = op.outputs.find(port);
        it != op.outputs.end() && it->second == uid)
      return true;
  return false;
}

/// The value classes inside a row stage.
enum class Cls { Scalar, Row, Col, Full };

Cls join(Cls a, Cls b) {
  if (a == b)
    return a;
  if (a == Cls::Scalar)
    return b;
  if (b == Cls::Scalar)
    return a;
  return Cls::Full; // Row x Col, or anything with Full
}

struct Val {
  Cls cls = Cls::Scalar;
  SmallVector<Value> lanes; // 1 for Scalar/Row; items * vec for Col/Full
  /// Lane `i`; the one lane of a value that does not vary along it.
  Value lane(size_t i) const { return lanes.size() == 1 ? lanes[0] : lanes[i]; }
};

struct Knobs {
  int64_t threads = 256; // block size (row stages: the smallest one)
  int64_t items = 2;     // vector runs per thread in pointwise stages
  bool prefetch = false; // row stages: load the next row ahead
};

//===----------------------------------------------------------------------===//
// Planning: ops -> stages
//===----------------------------------------------------------------------===//

class Planner {
public:
  Planner(const rt::GraphSpec &spec) : spec(spec) {
    for (const rt::TensorSpec &t : spec.tensors)
      tensors[t.uid] = &t;
  }

  std::string plan();
  int64_t newScratch(DType dtype, const Shape &dims);
  /// The tensor a uid stands for: a view op's result reads its view.
  int64_t resolve(int64_t uid) const {
    auto it = alias.find(uid);
    return it == alias.end() ? uid : it->second;
  }
  /// The addressable view of `uid` (resolved).
  const View &viewOf(int64_t uid) const { return views.at(resolve(uid)); }

  const rt::GraphSpec &spec;
  std::map<int64_t, const rt::TensorSpec *> tensors;
  std::map<int64_t, View> views;    // addressable tensors by uid
  std::map<int64_t, int64_t> alias; // view op results -> their view uid
  std::vector<Stage> stages;
  std::vector<std::pair<int64_t, int64_t>> scratch; // buffer, bytes
  std::deque<rt::OpSpec> synthetic; // planner-made copies and sums (stable)
  std::map<int64_t, std::pair<DType, int64_t>> buffers; // uid -> type, span
  /// Backward norms with a per-row scale: the scratch view of dY * xhat.
  std::map<const rt::OpSpec *, int64_t> productOf;

private:
  const rt::TensorSpec &tensor(int64_t uid) const { return *tensors.at(uid); }
  /// Dims of `uid` (resolved): its view's (a view op's result) or its
  /// tensor's; null when the group has neither.
  const Shape *dimsOf(int64_t uid) const {
    if (auto v = views.find(uid); v != views.end())
      return &v->second.dims;
    if (auto t = tensors.find(uid); t != tensors.end())
      return &t->second->dims;
    return nullptr;
  }
  void close(size_t nextOp);
  void writeUnread(const rt::OpSpec &op);
  /// An op the planner adds for `like` (a copy of a view, a column sum):
  /// `kind`/`mode` reading `from` at `inPort`, writing `to`. Stable address.
  const rt::OpSpec &synthesize(const rt::OpSpec &like, const char *kind,
                               const char *mode, const char *inPort,
                               int64_t from, int64_t to) {
    rt::OpSpec op;
    op.kind = kind;
    op.mode = mode;
    op.name = like.name;
    op.inputs[inPort] = from;
    op.outputs["output"] = to;
    synthetic.push_back(op);
    return synthetic.back();
  }
  /// `op` (the `index`th op or a copy standing for it) as a stage of its
  /// own over `space`: the open stage closes before it, its own after it.
  void addAlone(const rt::OpSpec &op, StageKind kind, const Shape &space,
                size_t index);
  std::string addPointwiseLike(const rt::OpSpec &op, const Shape &out);
  std::string addRowOp(const rt::OpSpec &op, const Shape &space, size_t k);
  std::string needAddressable(int64_t uid, size_t index);

  std::optional<Stage> open;
  std::map<int64_t, std::vector<size_t>> consumers;
  int64_t nextScratch = -1;
  int64_t nextSynthetic = -1000000;
};

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
  return "";
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
    return (o->kind == "pointwise" && o->mode != "gen_index") ||
           o->kind == "batchnorm_inference";
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

/// Stats shape of a norm over `x`: the axes it normalizes become 1.
size_t normSuffix(const rt::OpSpec &op, const Shape &x, const Shape &scale,
                  std::string &error) {
  std::string kind = op.kind;
  if (auto pos = kind.find("_backward"); pos != std::string::npos)
    kind = kind.substr(0, pos);
  if (kind == "layernorm" || kind == "rmsnorm")
    return 1;
  if (kind == "instancenorm")
    return 2;
  if (kind == "adalayernorm") {
    size_t rank = x.size(), lead = rank - std::min(rank, scale.size());
    std::vector<bool> norm(rank, false);
    bool any = false;
    for (size_t i = 1; i < rank; ++i) {
      int64_t s = i >= lead ? scale[i - lead] : 1;
      norm[i] = s != 1;
      any |= norm[i];
    }
    if (!any)
      return 1;
    for (size_t i = 1; i < rank; ++i)
      norm[i] = norm[i] || x[i] == 1; // unit dims go either way
    size_t k = rank;
    while (k > 1 && norm[k - 1])
      --k;
    for (size_t i = 1; i < k; ++i)
      if (norm[i]) {
        error = "generated kernels normalize a suffix of the axes only";
        return 0;
      }
    return k;
  }
  error = "generated kernels have no " + op.kind + " yet";
  return 0;
}

std::string Planner::plan() {
  for (size_t i = 0; i < spec.ops.size(); ++i)
    for (auto &[port, uid] : spec.ops[i].inputs)
      consumers[uid].push_back(i);
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
  if (spec.ops.empty())
    return "the group has no ops";

  for (size_t i = 0; i < spec.ops.size(); ++i) {
    const rt::OpSpec &op = spec.ops[i];
    auto in = [&](const char *port) -> int64_t {
      auto it = op.inputs.find(port);
      return it == op.inputs.end() ? 0 : resolve(it->second);
    };
    auto out = [&](const char *port) -> int64_t {
      auto it = op.outputs.find(port);
      return it == op.outputs.end() ? 0 : it->second;
    };
    auto label = op.kind + (op.name.empty() ? "" : " \"" + op.name + "\"");
    // Every tensor the op names is one of the group's, and the ports an op
    // kind reads are there (specs also come through the C API).
    for (const auto *ports : {&op.inputs, &op.outputs})
      for (auto &[port, uid] : *ports)
        if (!tensors.count(uid))
          return label + ": " + port + " (uid " + std::to_string(uid) +
                 ") is not a tensor of the group";
    auto lacks = [&](std::initializer_list<const char *> ins,
                     std::initializer_list<const char *> outs) {
      for (const char *port : ins)
        if (!op.inputs.count(port))
          return label + ": has no " + port + " input";
      for (const char *port : outs)
        if (!op.outputs.count(port))
          return label + ": has no " + port + " output";
      return std::string();
    };
    // Ops that address their input's elements (views, rope, quantize and
    // dequantize, reduce stages) read it from a buffer.
    auto inMemory = [&](const char *port) {
      int64_t uid = in(port);
      if (std::string e = needAddressable(uid, i); !e.empty())
        return label + ": " + e;
      if (!views.count(uid))
        return label + ": generated kernels read " + port +
               " from memory, but uid " + std::to_string(uid) +
               " is a by-value scalar";
      return std::string();
    };
    // The codegen engine's per-op support list (lib/Engines/Codegen) decides
    // which ops have kernels; what follows plans the stages of those.
    CodegenOpInfo info;
    info.kind = op.kind;
    info.mode = op.mode;
    info.ragged = op.inputs.count("group_offset") != 0;
    if (op.inputs.count("input") && op.outputs.count("output")) {
      if (const Shape *dims = dimsOf(in("input")))
        info.inputRank = static_cast<int64_t>(dims->size());
      info.outputRank = static_cast<int64_t>(tensor(out("output")).dims.size());
    }
    if (std::string why = codegenDeclinesOp(info); !why.empty())
      return label + ": " + why;
    if (op.kind == "pointwise") {
      if (std::string e = lacks({}, {"output"}); !e.empty())
        return e;
      if (op.mode != "gen_index")
        for (unsigned a = 0, n = pointwiseArity(op.mode); a < n; ++a)
          if (!op.inputs.count("in" + std::to_string(a)))
            return label + ": pointwise " + op.mode + " has no in" +
                   std::to_string(a) + " input";
      if (op.mode == "gen_index" && open &&
          !(open->kind == StageKind::Pointwise &&
            open->space == tensor(out("output")).dims))
        close(i);
      if (std::string e = addPointwiseLike(op, tensor(out("output")).dims);
          !e.empty())
        return e;
      if (op.mode == "gen_index" && open->kind != StageKind::Pointwise)
        return label + ": gen_index runs in pointwise stages only";
      continue;
    }
    if (op.kind == "block_scale_quantize") {
      if (std::string e = lacks({"input"}, {"Y", "scale"}); !e.empty())
        return e;
      if (std::string e = inMemory("input"); !e.empty())
        return e;
      addAlone(op, StageKind::Quantize, *dimsOf(in("input")), i);
      writeUnread(op);
      continue;
    }
    bool rope = op.kind == "rope" || op.kind == "rope_backward";
    if (rope || op.kind == "block_scale_dequantize") {
      // Both read elements of their inputs other than the one they write
      // (rope's partner half, the block's descale): the inputs must be in
      // memory, and the op runs in a pointwise stage over its output.
      std::initializer_list<const char *> ports = {"input",
                                                   rope ? "freqs" : "descale"};
      if (std::string e = lacks(ports, {"output"}); !e.empty())
        return e;
      for (const char *port : ports)
        if (std::string e = inMemory(port); !e.empty())
          return e;
      const Shape &dims = tensor(out("output")).dims;
      if (!(open && open->kind == StageKind::Pointwise &&
            open->space == dims)) {
        close(i);
        open = Stage{StageKind::Pointwise, dims};
      }
      open->ops.push_back(&op);
      open->produced.insert(out("output"));
      continue;
    }
    if (op.kind == "batchnorm_inference") {
      if (std::string e =
              lacks({"input", "mean", "inv_variance", "scale", "bias"}, {"Y"});
          !e.empty())
        return e;
      addPointwiseLike(op, tensor(out("Y")).dims);
      continue;
    }
    if (op.kind == "transpose" || op.kind == "slice" || op.kind == "reshape") {
      if (std::string e = lacks({"input"}, {"output"}); !e.empty())
        return e;
      int64_t src = in("input");
      if (std::string e = inMemory("input"); !e.empty())
        return e;
      const View &from = views.at(src);
      const rt::TensorSpec &result = tensor(out("output"));
      View v = from;
      v.dims = result.dims;
      if (op.kind == "transpose") {
        auto perm = op.intAttrs.find("permutation");
        std::vector<int64_t> order;
        if (perm != op.intAttrs.end())
          order = perm->second;
        for (size_t d = order.size(); d < from.dims.size(); ++d)
          order.push_back(d); // trailing unit dims of norm groups
        if (order.size() != from.dims.size())
          return label + ": needs a permutation of rank " +
                 std::to_string(from.dims.size());
        v.strides.clear();
        for (int64_t p : order)
          v.strides.push_back(from.strides.at(p));
      } else if (op.kind == "slice") {
        auto starts = op.intAttrs.find("start");
        auto steps = op.intAttrs.find("step");
        for (size_t d = 0; d < from.dims.size(); ++d) {
          int64_t start =
              starts != op.intAttrs.end() && d < starts->second.size()
                  ? starts->second[d]
                  : 0;
          int64_t step = steps != op.intAttrs.end() && d < steps->second.size()
                             ? steps->second[d]
                             : 1;
          v.base += start * from.strides[d];
          v.strides[d] = from.strides[d] * step;
        }
      } else if (!::graph::ref::reshapeViewStrides(from.dims, from.strides,
                                          result.dims, v.strides)) {
        // No strides read the source as the new shape (a channels-last
        // tensor viewed as [N, G, C/G*H*W], say): gather it into a packed
        // scratch buffer first and view that.
        close(i);
        View packed = from;
        packed.strides = rowMajorStrides(from.dims);
        packed.base = 0;
        packed.buffer = newScratch(from.dtype, from.dims);
        int64_t packedId = nextSynthetic--;
        views[packedId] = packed;
        Stage gather{StageKind::Copy, from.dims};
        gather.ops.push_back(
            &synthesize(op, "pointwise", "identity", "in0", src, packedId));
        gather.stores.push_back(packedId);
        stages.push_back(gather);
        v = packed;
        v.dims = result.dims;
        v.strides = rowMajorStrides(result.dims);
      }
      int64_t id = nextSynthetic--;
      views[id] = v;
      if (result.isVirtual) {
        alias[out("output")] = id;
        continue;
      }
      // The user reads the view: copy it into the output.
      addAlone(
          synthesize(op, "pointwise", "identity", "in0", id, out("output")),
          StageKind::Copy, result.dims, i);
      continue;
    }
    if (op.kind == "concatenate") {
      if (std::string e = lacks({}, {"output"}); !e.empty())
        return e;
      const rt::TensorSpec &result = tensor(out("output"));
      auto axisIt = op.intAttrs.find("axis");
      if (axisIt == op.intAttrs.end() || axisIt->second.empty())
        return label + ": has no axis";
      int64_t axis = axisIt->second[0];
      if (axis < 0)
        axis += result.dims.size();
      close(i);
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
      int64_t offset = 0;
      for (size_t k = 0;; ++k) {
        auto port = op.inputs.find("inputs_" + std::to_string(k));
        if (port == op.inputs.end())
          break;
        int64_t src = resolve(port->second);
        if (std::string e = needAddressable(src, i); !e.empty())
          return label + ": " + e;
        const Shape &dims = tensor(port->second).dims;
        View region = whole;
        region.dims = dims;
        region.base += offset * whole.strides.at(axis);
        offset += dims.at(axis);
        int64_t id = nextSynthetic--;
        views[id] = region;
        Stage s{StageKind::Copy, dims};
        s.ops.push_back(
            &synthesize(op, "pointwise", "identity", "in0", src, id));
        s.stores.push_back(id);
        stages.push_back(s);
      }
      if (offset == 0)
        return label + ": has no inputs";
      continue;
    }
    if (op.kind == "reduction") {
      if (std::string e = lacks({"input"}, {"output"}); !e.empty())
        return e;
      // The input may be a view (its dims are the view's).
      const Shape &xDims = *dimsOf(in("input"));
      const rt::TensorSpec &y = tensor(out("output"));
      size_t k = y.dims.size();
      while (k > 0 && y.dims[k - 1] == 1)
        --k;
      bool suffix = true;
      for (size_t d = 0; d < k; ++d)
        suffix &= y.dims[d] == xDims[d];
      if (suffix) {
        addRowOp(op, xDims, k);
        continue;
      }
      if (std::string e = inMemory("input"); !e.empty())
        return e;
      addAlone(op, StageKind::Reduce, xDims, i);
      continue;
    }
    if (op.kind == "genstats") {
      if (std::string e = lacks({"input"}, {"SUM", "SQ_SUM"}); !e.empty())
        return e;
      if (std::string e = inMemory("input"); !e.empty())
        return e;
      addAlone(op, StageKind::Reduce, *dimsOf(in("input")), i);
      writeUnread(op);
      continue;
    }
    bool forward = op.kind == "layernorm" || op.kind == "rmsnorm" ||
                   op.kind == "instancenorm" || op.kind == "adalayernorm";
    bool backward = op.kind == "layernorm_backward" ||
                    op.kind == "rmsnorm_backward" ||
                    op.kind == "instancenorm_backward" ||
                    op.kind == "adalayernorm_backward";
    if (forward || backward) {
      bool centered = op.kind.rfind("rmsnorm", 0) != 0;
      if (std::string e =
              forward
                  ? lacks({"input", "scale", "epsilon"}, {"Y"})
                  : lacks({"grad", "input", "scale", "inv_variance"}, {"DX"});
          !e.empty())
        return e;
      if (backward && centered)
        if (std::string e = lacks({"mean"}, {}); !e.empty())
          return e;
      // The input may be a view (its dims are the view's).
      const Shape &xDims = *dimsOf(in("input"));
      const Shape &scaleDims = *dimsOf(in("scale"));
      std::string error;
      if (scaleDims.size() > xDims.size())
        return label + ": scale has rank " + std::to_string(scaleDims.size()) +
               ", more than the input's " + std::to_string(xDims.size());
      size_t k = normSuffix(op, xDims, scaleDims, error);
      if (!error.empty())
        return label + ": " + error;
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
            if (o->kind.find("_backward") != std::string::npos)
              close(i);
      }
      addRowOp(op, xDims, k);
      if (perRowScale) {
        auto dscale = op.outputs.find("DScale");
        auto dbias = op.outputs.find("DBias");
        Shape target =
            tensor(dscale != op.outputs.end() ? dscale->second : in("scale"))
                .dims;
        if (target.size() != xDims.size())
          return label + ": DScale must have the input's rank";
        // The product dY * xhat, in f32 scratch, is the stage's output.
        View product{0, DType::F32, 0, xDims, rowMajorStrides(xDims)};
        product.buffer = newScratch(DType::F32, xDims);
        int64_t id = nextSynthetic--;
        views[id] = product;
        productOf[&op] = id;
        open->stores.push_back(id);
        close(i + 1);
        std::vector<std::pair<int64_t, int64_t>> sums; // input, output
        if (dscale != op.outputs.end())
          sums.push_back({id, dscale->second});
        if (dbias != op.outputs.end())
          sums.push_back({in("grad"), dbias->second});
        for (auto [from, to] : sums) {
          if (!views.count(to))
            continue; // an unused intermediate: nothing reads it
          Stage st{StageKind::Reduce, xDims};
          st.ops.push_back(
              &synthesize(op, "reduction", "add", "input", from, to));
          st.produced.insert(to);
          st.stores.push_back(to);
          stages.push_back(st);
        }
      }
      continue;
    }
    // codegenDeclinesOp accepted an op no branch above plans.
    return label + ": the kernel generator has no stage plan for " + op.kind;
  }
  close(spec.ops.size());
  // Buffers that stages read through views must be known spans.
  return "";
}

//===----------------------------------------------------------------------===//
// Emission
//===----------------------------------------------------------------------===//

Type elementType(Builder &b, DType t) {
  switch (t) {
  case DType::F16:
    return b.getF16Type();
  case DType::BF16:
    return b.getBF16Type();
  case DType::I1:
  case DType::F8E4M3FN:
  case DType::F8E5M2:
  case DType::F8E8M0FNU:
  case DType::F4E2M1FN:
    return b.getI8Type();
  case DType::I32:
    return b.getI32Type();
  default:
    return b.getF32Type();
  }
}

struct ReduceKind {
  double identity;
  std::function<Value(OpBuilder &, Location, Value)> pre;
  std::function<Value(OpBuilder &, Location, Value, Value)> combine;
};

ReduceKind reduceKind(const std::string &mode) {
  auto idPre = [](OpBuilder &, Location, Value x) { return x; };
  auto absPre = [](OpBuilder &b, Location l, Value x) -> Value {
    return math::AbsFOp::create(b, l, x);
  };
  auto add = [](OpBuilder &b, Location l, Value x, Value y) -> Value {
    return arith::AddFOp::create(b, l, x, y);
  };
  auto mul = [](OpBuilder &b, Location l, Value x, Value y) -> Value {
    return arith::MulFOp::create(b, l, x, y);
  };
  auto max = [](OpBuilder &b, Location l, Value x, Value y) -> Value {
    return arith::MaximumFOp::create(b, l, x, y);
  };
  auto min = [](OpBuilder &b, Location l, Value x, Value y) -> Value {
    return arith::MinimumFOp::create(b, l, x, y);
  };
  double inf = std::numeric_limits<double>::infinity();
  if (mode == "mul")
    return {1.0, idPre, mul};
  if (mode == "mul_no_zeros")
    return {1.0,
            [](OpBuilder &b, Location l, Value x) -> Value {
              Value zero =
                  arith::ConstantOp::create(b, l, b.getF32FloatAttr(0));
              Value one = arith::ConstantOp::create(b, l, b.getF32FloatAttr(1));
              Value isZero = arith::CmpFOp::create(
                  b, l, arith::CmpFPredicate::OEQ, x, zero);
              return arith::SelectOp::create(b, l, isZero, one, x);
            },
            mul};
  if (mode == "max")
    return {-inf, idPre, max};
  if (mode == "min")
    return {inf, idPre, min};
  if (mode == "amax")
    return {0.0, absPre, max};
  if (mode == "norm1")
    return {0.0, absPre, add};
  if (mode == "norm2")
    return {0.0,
            [](OpBuilder &b, Location l, Value x) -> Value {
              return arith::MulFOp::create(b, l, x, x);
            },
            add};
  return {0.0, idPre, add}; // add, avg
}

/// Builds one gpu.module with one kernel per stage launch.
class Emitter {
public:
  Emitter(MLIRContext *ctx, Planner &planner, Knobs knobs)
      : b(ctx), loc(UnknownLoc::get(ctx)), planner(planner), knobs(knobs) {
    ctx->getOrLoadDialect<NVVM::NVVMDialect>(); // inline PTX (tanh.approx)
  }

  std::string emit(ModuleOp module, rt::CodegenSpec &out);

private:
  struct Kernel {
    gpu::GPUFuncOp func;
    std::vector<int64_t> args; // buffer uids
    std::map<int64_t, Value> memrefs;
    rt::KernelLaunch launch;
    std::map<int64_t, int64_t> align; // buffer -> bytes its vectors need
  };

  // Constants and index math.
  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value f32(double v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  /// 0, opaque to LLVM: loads addressed from it stay in the row loop
  /// instead of being hoisted and held in registers across rows.
  Value rowInvariantZero() {
    Value zero = NVVM::InlinePtxOp::create(b, loc, TypeRange{b.getI32Type()},
                                           ValueRange{}, ValueRange{},
                                           "mov.b32 $0, 0;", Value())
                     .getResult(0);
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), zero);
  }
  Value addi(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value muli(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value addf(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value subf(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mulf(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value divf(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value ult(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
  }
  /// `v` as f32; `t` says what an i8 holds (i1 or a one-byte float).
  Value toF32(Value v, DType t = DType::F32) {
    if (v.getType().isF32())
      return v;
    if (v.getType().isInteger(8) && isByteFloat(t))
      return decodeByteFloat(b, loc, v, t);
    if (v.getType().isInteger(8)) { // an i1 tensor's byte: true is != 0
      Value zero = arith::ConstantOp::create(b, loc, b.getI8IntegerAttr(0));
      Value set =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
      return arith::SelectOp::create(b, loc, set, f32(1.0), f32(0.0));
    }
    if (v.getType().isInteger(32))
      return arith::SIToFPOp::create(b, loc, b.getF32Type(), v);
    return arith::ExtFOp::create(b, loc, b.getF32Type(), v);
  }
  Value fromF32(Value v, DType t) {
    Type type = elementType(b, t);
    if (type.isF32())
      return v;
    if (isByteFloat(t))
      return encodeByteFloat(b, loc, v, t);
    if (t == DType::I1) { // NaN counts as true, as in the reference
      Value set =
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v, f32(0.0));
      return arith::ExtUIOp::create(b, loc, b.getI8Type(), set);
    }
    if (t == DType::I32) { // nearest even, saturating, NaN -> 0 (cvt.rni)
      Value r = math::RoundEvenOp::create(b, loc, v);
      return arith::FPToSIOp::create(b, loc, b.getI32Type(), r);
    }
    return arith::TruncFOp::create(b, loc, type, v);
  }
  /// Rounds an f32 value to what a tensor of dtype `t` holds.
  Value roundTo(Value v, DType t) {
    return t == DType::F32 ? v : toF32(fromF32(v, t), t);
  }

  /// A kernel with `sharedFloats` f32 of workgroup memory (0: none).
  Kernel begin(const std::string &name, const std::vector<int64_t> &buffers,
               int64_t block, int64_t sharedFloats);
  std::string finish(Kernel &k, rt::CodegenSpec &out);

  /// Element offset of linear index `e` of `space` in view `v`.
  Value offsetOf(const View &v, const Shape &space, Value e);
  /// `vec` consecutive elements (a run inside the innermost dim) of view
  /// `v` at linear index `e` of `space`, as f32 lanes.
  SmallVector<Value> loadRun(Kernel &k, const View &v, const Shape &space,
                             Value e, int64_t vec);
  void storeRun(Kernel &k, const View &v, const Shape &space, Value e,
                ArrayRef<Value> lanes);
  /// A guarded region: `body` runs when `cond` holds (no guard when null).
  void guarded(Value cond, function_ref<void()> body);
  /// Like guarded, but yields f32 lanes (zeros when `cond` is false).
  SmallVector<Value> guardedLoad(Value cond, size_t count,
                                 function_ref<SmallVector<Value>()> body);
  Value blockReduce(Value v, const ReduceKind &kind, Value tid, Value smem,
                    int64_t block);

  std::string emitPointwise(const Stage &s, size_t index, rt::CodegenSpec &out);
  std::string emitRow(const Stage &s, size_t index, rt::CodegenSpec &out);
  std::string emitReduce(const Stage &s, size_t index, rt::CodegenSpec &out);
  /// DScale/DBias of backward norm `op` summed over the rows from its
  /// inputs (32 columns per block, 8 warps over the rows).
  std::string emitColumnPass(const rt::OpSpec &op, const Stage &s, size_t index,
                             rt::CodegenSpec &out);
  /// Sums `partRows` rows of f32 partials [partRows, cols] per column into
  /// `target` (read over `space`).
  std::string emitColumnFinish(int64_t partial, int64_t partRows, int64_t cols,
                               const View &target, const Shape &space,
                               const std::string &name, rt::CodegenSpec &out);

  /// Sets `op`'s output in `vals` to `vec` elements from linear index `e0`,
  /// element(e, i) each, rounded to the output's dtype.
  void emitElements(const rt::OpSpec &op, Value e0, int64_t vec,
                    std::map<int64_t, Val> &vals,
                    function_ref<Value(Value e, int64_t i)> element) {
    int64_t outUid = op.outputs.at("output");
    DType outType = planner.tensors.at(outUid)->dtype;
    Val result{Cls::Full, {}};
    for (int64_t i = 0; i < vec; ++i) {
      Value e = i ? addi(e0, idx(i)) : e0;
      result.lanes.push_back(roundTo(element(e, i), outType));
    }
    vals[outUid] = result;
  }
  /// Block-scale dequantize of the run at `e`: input * descale of its block.
  std::string emitDequantize(Kernel &k, const rt::OpSpec &op,
                             const Shape &space, Value e, int64_t vec,
                             std::map<int64_t, Val> &vals);
  /// Block-scale quantize: a thread per block (amax, scale, narrow stores).
  std::string emitQuantize(const Stage &s, size_t index, rt::CodegenSpec &out);
  /// Rotary embedding (forward or backward) of the run at `e`.
  std::string emitRope(Kernel &k, const rt::OpSpec &op, const Shape &space,
                       Value e, int64_t vec, std::map<int64_t, Val> &vals);
  /// Computes pointwise op `op` lane by lane.
  std::string computePointwise(const rt::OpSpec &op,
                               std::map<int64_t, Val> &vals,
                               const std::function<Val(int64_t)> &get,
                               const std::function<Value(size_t)> &linear);

  OpBuilder b;
  Location loc;
  Planner &planner;
  Knobs knobs;
  ModuleOp module;
  gpu::GPUModuleOp gpuModule;
  int kernelCount = 0;
};

Emitter::Kernel Emitter::begin(const std::string &name,
                               const std::vector<int64_t> &buffers,
                               int64_t block, int64_t sharedFloats) {
  Kernel k;
  k.args = buffers;
  SmallVector<Type> types;
  for (int64_t uid : buffers) {
    auto [dtype, span] = planner.buffers.at(uid);
    types.push_back(
        MemRefType::get({std::max<int64_t>(span, 1)}, elementType(b, dtype)));
  }
  b.setInsertionPointToEnd(gpuModule.getBody());
  SmallVector<Type> workgroup;
  if (sharedFloats)
    workgroup.push_back(MemRefType::get(
        {sharedFloats}, b.getF32Type(), MemRefLayoutAttrInterface(),
        gpu::AddressSpaceAttr::get(b.getContext(),
                                   gpu::AddressSpace::Workgroup)));
  k.func = gpu::GPUFuncOp::create(b, loc, name, b.getFunctionType(types, {}),
                                  workgroup);
  k.func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  k.func.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({static_cast<int32_t>(block), 1, 1}));
  for (size_t i = 0; i < buffers.size(); ++i)
    k.memrefs[buffers[i]] = k.func.getArgument(i);
  b.setInsertionPointToStart(&k.func.getBody().front());
  k.launch.entry = name;
  k.launch.block = {static_cast<unsigned>(block), 1, 1};
  k.launch.argUids = buffers;
  return k;
}

std::string Emitter::finish(Kernel &k, rt::CodegenSpec &out) {
  gpu::ReturnOp::create(b, loc);
  for (int64_t uid : k.args) {
    auto it = k.align.find(uid);
    k.launch.argAlign.push_back(it == k.align.end() ? 0 : it->second);
  }
  out.launches.push_back(k.launch);
  return "";
}

Value Emitter::offsetOf(const View &v, const Shape &space, Value e) {
  Shape strides = stridesOver(v, space);
  if (strides == rowMajorStrides(space)) {
    bool dense = true; // broadcast-free and row-major
    for (size_t d = 0; d < space.size(); ++d)
      dense &= space[d] == 1 || strides[d] != 0;
    if (dense)
      return v.base ? addi(e, idx(v.base)) : e;
  }
  Value offset = idx(v.base);
  Value rest = e;
  // Outer dims the view does not move along need no coordinates.
  int64_t outer = 0;
  while (outer < static_cast<int64_t>(space.size()) && strides[outer] == 0)
    ++outer;
  for (int64_t d = static_cast<int64_t>(space.size()) - 1; d >= outer; --d) {
    if (space[d] == 1)
      continue;
    bool outermost = true;
    for (int64_t j = d - 1; j >= 0; --j)
      outermost &= space[j] == 1;
    Value coord =
        outermost
            ? rest
            : arith::RemUIOp::create(b, loc, rest, idx(space[d])).getResult();
    if (strides[d] != 0)
      offset = addi(offset, muli(coord, idx(strides[d])));
    if (!outermost)
      rest = arith::DivUIOp::create(b, loc, rest, idx(space[d]));
  }
  return offset;
}

SmallVector<Value> Emitter::loadRun(Kernel &k, const View &v,
                                    const Shape &space, Value e, int64_t vec) {
  Value memref = k.memrefs.at(v.buffer);
  Shape strides = stridesOver(v, space);
  int64_t inner = space.empty() ? 0 : strides[innerDim(space)];
  Value base = offsetOf(v, space, e);
  SmallVector<Value> lanes;
  if (vec == 1 || inner == 0) {
    Value x = toF32(memref::LoadOp::create(b, loc, memref, ValueRange{base}),
                    v.dtype);
    lanes.assign(vec, x);
    return lanes;
  }
  bool aligned = inner == 1 && runsAligned(space, strides, v.base, vec);
  if (aligned) {
    int64_t bytes = vec * elementBytes(v.dtype);
    auto type = VectorType::get({vec}, elementType(b, v.dtype));
    Value loaded = vector::LoadOp::create(
        b, loc, type, memref, ValueRange{base}, false, llvm::MaybeAlign(bytes));
    k.align[v.buffer] = std::max(k.align[v.buffer], bytes);
    for (int64_t i = 0; i < vec; ++i)
      lanes.push_back(
          toF32(vector::ExtractOp::create(b, loc, loaded, i), v.dtype));
    return lanes;
  }
  for (int64_t i = 0; i < vec; ++i) {
    Value at = i ? addi(base, idx(i * inner)) : base;
    lanes.push_back(
        toF32(memref::LoadOp::create(b, loc, memref, ValueRange{at}), v.dtype));
  }
  return lanes;
}

void Emitter::storeRun(Kernel &k, const View &v, const Shape &space, Value e,
                       ArrayRef<Value> lanes) {
  Value memref = k.memrefs.at(v.buffer);
  Shape strides = stridesOver(v, space);
  int64_t vec = lanes.size();
  int64_t inner = space.empty() ? 1 : strides[innerDim(space)];
  Value base = offsetOf(v, space, e);
  bool aligned =
      vec > 1 && inner == 1 && runsAligned(space, strides, v.base, vec);
  if (aligned) {
    SmallVector<Value> narrow;
    for (Value x : lanes)
      narrow.push_back(fromF32(x, v.dtype));
    auto type = VectorType::get({vec}, elementType(b, v.dtype));
    Value packed = vector::FromElementsOp::create(b, loc, type, narrow);
    int64_t bytes = vec * elementBytes(v.dtype);
    vector::StoreOp::create(b, loc, packed, memref, ValueRange{base}, false,
                            llvm::MaybeAlign(bytes));
    k.align[v.buffer] = std::max(k.align[v.buffer], bytes);
    return;
  }
  for (int64_t i = 0; i < vec; ++i) {
    Value at = i ? addi(base, idx(i * inner)) : base;
    memref::StoreOp::create(b, loc, fromF32(lanes[i], v.dtype), memref,
                            ValueRange{at});
  }
}

void Emitter::guarded(Value cond, function_ref<void()> body) {
  if (!cond) {
    body();
    return;
  }
  auto ifOp = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  body();
}

SmallVector<Value>
Emitter::guardedLoad(Value cond, size_t count,
                     function_ref<SmallVector<Value>()> body) {
  if (!cond)
    return body();
  SmallVector<Type> types(count, b.getF32Type());
  auto ifOp = scf::IfOp::create(b, loc, types, cond, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    scf::YieldOp::create(b, loc, body());
    b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    SmallVector<Value> zeros(count, f32(0.0));
    scf::YieldOp::create(b, loc, zeros);
  }
  return SmallVector<Value>(ifOp.getResults());
}

Value Emitter::blockReduce(Value v, const ReduceKind &kind, Value tid,
                           Value smem, int64_t block) {
  int width = static_cast<int>(std::min<int64_t>(block, 32));
  for (int offset = width / 2; offset >= 1; offset /= 2) {
    Value other =
        gpu::ShuffleOp::create(b, loc, v, offset, width, gpu::ShuffleMode::XOR)
            .getShuffleResult();
    v = kind.combine(b, loc, v, other);
  }
  if (block <= 32)
    return v;
  int64_t warps = (block + 31) / 32;
  Value lane = arith::RemUIOp::create(b, loc, tid, idx(32));
  Value warp = arith::DivUIOp::create(b, loc, tid, idx(32));
  Value first =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, idx(0));
  guarded(first,
          [&] { memref::StoreOp::create(b, loc, v, smem, ValueRange{warp}); });
  gpu::BarrierOp::create(b, loc);
  Value r = memref::LoadOp::create(b, loc, smem, ValueRange{idx(0)});
  for (int64_t w = 1; w < warps; ++w)
    r = kind.combine(b, loc, r,
                     memref::LoadOp::create(b, loc, smem, ValueRange{idx(w)}));
  // The next reduction reuses the shared slots.
  gpu::BarrierOp::create(b, loc);
  return r;
}

std::string
Emitter::computePointwise(const rt::OpSpec &op, std::map<int64_t, Val> &vals,
                          const std::function<Val(int64_t)> &get,
                          const std::function<Value(size_t)> &linear) {
  std::vector<Val> args;
  if (op.kind == "batchnorm_inference") {
    for (const char *port :
         {"input", "mean", "inv_variance", "scale", "bias"}) {
      auto it = op.inputs.find(port);
      if (it == op.inputs.end())
        return "batchnorm_inference lacks " + std::string(port);
      args.push_back(get(it->second));
    }
  } else {
    unsigned arity = op.mode == "gen_index" ? 0 : pointwiseArity(op.mode);
    for (unsigned i = 0; i < arity; ++i) {
      auto it = op.inputs.find("in" + std::to_string(i));
      if (it == op.inputs.end())
        return "pointwise " + op.mode + " lacks in" + std::to_string(i);
      args.push_back(get(it->second));
    }
  }
  auto outIt = op.outputs.begin();
  int64_t outUid = outIt->second;
  DType outType = planner.tensors.count(outUid)
                      ? planner.tensors.at(outUid)->dtype
                      : planner.views.at(outUid).dtype;
  Val result;
  result.cls = Cls::Scalar;
  size_t lanes = 1;
  for (const Val &a : args) {
    result.cls = join(result.cls, a.cls);
    lanes = std::max(lanes, a.lanes.size());
  }
  if (op.mode == "gen_index") {
    result.cls = Cls::Full;
    lanes = 0;
  }
  if (op.mode == "gen_index") {
    const Shape &dims = planner.tensors.at(outUid)->dims;
    auto axisIt = op.intAttrs.find("axis");
    int64_t axis = axisIt == op.intAttrs.end() || axisIt->second.empty()
                       ? 0
                       : axisIt->second[0];
    if (axis < 0)
      axis += dims.size();
    Shape rm = rowMajorStrides(dims);
    for (size_t i = 0;; ++i) {
      Value e = linear(i);
      if (!e)
        break;
      Value c = arith::DivUIOp::create(b, loc, e, idx(rm.at(axis)));
      c = arith::RemUIOp::create(b, loc, c, idx(dims.at(axis)));
      Value asInt = arith::IndexCastOp::create(b, loc, b.getI64Type(), c);
      Value f = arith::UIToFPOp::create(b, loc, b.getF32Type(), asInt);
      result.lanes.push_back(roundTo(f, outType));
    }
    vals[outUid] = result;
    return "";
  }
  // Results rounded to bf16 (8 significant bits) or fp8 cannot tell an
  // error of a few f32 ulps from an exact one; there, a divisor shared by
  // every lane becomes one reciprocal and tanh becomes the hardware's
  // tanh.approx.f32 (relative error < 2^-10.9, an eighth of a bf16 ulp).
  bool coarse = outType == DType::BF16 || outType == DType::F8E4M3FN ||
                outType == DType::F8E5M2;
  if (coarse && op.kind == "pointwise" && op.mode == "div" && lanes > 1 &&
      args.size() == 2 && args[1].lanes.size() == 1) {
    // Below 2^-125 the reciprocal would overflow: divide there.
    Value y = args[1].lanes[0];
    Value normal = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UGE,
                                         math::AbsFOp::create(b, loc, y),
                                         f32(std::ldexp(1.0, -125)));
    SmallVector<Type> types(lanes, b.getF32Type());
    auto branch = scf::IfOp::create(b, loc, types, normal, true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(branch.thenBlock());
      Value r = divf(f32(1.0), y);
      SmallVector<Value> q;
      for (size_t i = 0; i < lanes; ++i)
        q.push_back(mulf(args[0].lane(i), r));
      scf::YieldOp::create(b, loc, q);
      b.setInsertionPointToStart(branch.elseBlock());
      q.clear();
      for (size_t i = 0; i < lanes; ++i)
        q.push_back(divf(args[0].lane(i), y));
      scf::YieldOp::create(b, loc, q);
    }
    for (Value q : branch.getResults())
      result.lanes.push_back(roundTo(q, outType));
    vals[outUid] = result;
    return "";
  }
  for (size_t i = 0; i < lanes; ++i) {
    SmallVector<Value> scalars;
    for (const Val &a : args)
      scalars.push_back(a.lane(i));
    Value r;
    if (coarse && op.kind == "pointwise" && op.mode == "tanh") {
      r = NVVM::InlinePtxOp::create(b, loc, TypeRange{b.getF32Type()},
                                    ValueRange{scalars[0]}, ValueRange{},
                                    "tanh.approx.f32 $0, $1;", Value())
              .getResult(0);
    } else if (op.kind == "batchnorm_inference") {
      r = mulf(mulf(subf(scalars[0], scalars[1]), scalars[2]), scalars[3]);
      r = addf(r, scalars[4]);
    } else {
      r = mlir::graph::emitPointwise(b, loc, op, scalars);
    }
    if (!r)
      return "pointwise " + op.mode + " has no generated lowering";
    result.lanes.push_back(roundTo(r, outType));
  }
  vals[outUid] = result;
  return "";
}

/// Buffers a stage touches, in a fixed order.
std::vector<int64_t> stageBuffers(const Planner &p, const Stage &s) {
  std::set<int64_t> seen;
  std::vector<int64_t> order;
  auto add = [&](int64_t uid) {
    auto it = p.views.find(uid);
    if (it == p.views.end())
      return;
    if (seen.insert(it->second.buffer).second)
      order.push_back(it->second.buffer);
  };
  for (const rt::OpSpec *op : s.ops)
    for (auto &[port, uid] : op->inputs)
      add(p.resolve(uid));
  for (int64_t uid : s.stores)
    add(uid);
  return order;
}

/// The largest run length that keeps every vector access within 16 bytes
/// (16-byte vectors of the widest tensor read or written along the
/// innermost dim; per-row or broadcast tensors do not count) and divides
/// the innermost dim of `space`.
int64_t runLength(const Planner &p, const Stage &s) {
  size_t inner = innerDim(s.space);
  int64_t widest = 1;
  auto consider = [&](int64_t uid) {
    auto it = p.views.find(p.resolve(uid));
    if (it == p.views.end() || s.space.empty() ||
        !broadcastsTo(it->second.dims, s.space))
      return;
    if (stridesOver(it->second, s.space)[inner] != 0)
      widest = std::max(widest, elementBytes(it->second.dtype));
  };
  for (const rt::OpSpec *op : s.ops)
    for (auto &[port, uid] : op->inputs)
      consider(uid);
  for (int64_t uid : s.stores)
    consider(uid);
  int64_t vec = 16 / widest;
  int64_t extent = s.space.empty() ? 1 : s.space[inner];
  while (vec > 1 && extent % vec != 0)
    vec /= 2;
  return vec;
}

std::string Emitter::emitPointwise(const Stage &s, size_t index,
                                   rt::CodegenSpec &out) {
  std::vector<int64_t> buffers = stageBuffers(planner, s);
  int64_t vec = runLength(planner, s);
  int64_t block = knobs.threads, items = knobs.items;
  int64_t total = std::max<int64_t>(numel(s.space), 1);
  int64_t runs = total / vec;
  int64_t perBlock = block * items;
  int64_t grid = (runs + perBlock - 1) / perBlock;
  Kernel k = begin("stage" + std::to_string(index), buffers, block, 0);
  k.launch.grid = {static_cast<unsigned>(std::max<int64_t>(grid, 1)), 1, 1};
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  bool ragged = runs % perBlock != 0;
  std::vector<Value> starts, valid;
  for (int64_t u = 0; u < items; ++u) {
    Value run = addi(muli(bid, idx(perBlock)), addi(idx(u * block), tid));
    starts.push_back(muli(run, idx(vec)));
    valid.push_back(ragged ? ult(run, idx(runs)) : Value());
  }
  // Loads of every item first (more bytes in flight), then compute, then
  // stores.
  std::vector<std::map<int64_t, Val>> vals(items);
  std::string error;
  for (int64_t u = 0; u < items; ++u) {
    auto get = [&](int64_t uid) -> Val {
      uid = planner.resolve(uid);
      auto it = vals[u].find(uid);
      if (it != vals[u].end())
        return it->second;
      Val v;
      auto t = planner.tensors.find(uid);
      if (t != planner.tensors.end() && t->second->isByValue) {
        v.lanes.push_back(f32(t->second->byValue));
      } else {
        v.cls = Cls::Full;
        const View &view = planner.views.at(uid);
        v.lanes = guardedLoad(valid[u], vec, [&] {
          return loadRun(k, view, s.space, starts[u], vec);
        });
      }
      vals[u][uid] = v;
      return v;
    };
    for (const rt::OpSpec *op : s.ops)
      for (auto &[port, uid] : op->inputs) {
        if (op->kind.rfind("rope", 0) == 0 ||
            op->kind == "block_scale_dequantize")
          continue;
        if (!s.produced.count(planner.resolve(uid)))
          get(uid);
      }
    for (const rt::OpSpec *op : s.ops) {
      if (op->kind == "rope" || op->kind == "rope_backward") {
        if (std::string e = emitRope(k, *op, s.space, starts[u], vec, vals[u]);
            !e.empty())
          return e;
        continue;
      }
      if (op->kind == "block_scale_dequantize") {
        if (std::string e =
                emitDequantize(k, *op, s.space, starts[u], vec, vals[u]);
            !e.empty())
          return e;
        continue;
      }
      auto linear = [&](size_t i) -> Value {
        return i < static_cast<size_t>(vec) ? addi(starts[u], idx(i)) : Value();
      };
      if (std::string e = computePointwise(*op, vals[u], get, linear);
          !e.empty())
        return e;
    }
  }
  for (int64_t u = 0; u < items; ++u)
    guarded(valid[u], [&] {
      for (int64_t uid : s.stores) {
        Val v = vals[u].at(uid);
        SmallVector<Value> lanes;
        for (int64_t i = 0; i < vec; ++i)
          lanes.push_back(v.lane(i));
        storeRun(k, planner.views.at(uid), s.space, starts[u], lanes);
      }
    });
  return finish(k, out);
}

std::string Emitter::emitDequantize(Kernel &k, const rt::OpSpec &op,
                                    const Shape &space, Value e0, int64_t vec,
                                    std::map<int64_t, Val> &vals) {
  const View &x = planner.viewOf(op.inputs.at("input"));
  const View &d = planner.viewOf(op.inputs.at("descale"));
  if (d.dims.size() != space.size())
    return "block_scale_dequantize: descale rank " +
           std::to_string(d.dims.size()) + " differs from the input rank " +
           std::to_string(space.size());
  Shape block(space.size(), 1);
  auto bs = op.intAttrs.find("block_size");
  if (bs == op.intAttrs.end() || bs->second.empty() ||
      bs->second.size() > space.size())
    return "block_scale_dequantize: needs 1 to rank block sizes";
  for (size_t i = 0; i < bs->second.size(); ++i)
    block[space.size() - bs->second.size() + i] = bs->second[i];
  auto neg = op.intAttrs.find("is_negative_scale");
  double sign =
      neg != op.intAttrs.end() && !neg->second.empty() && neg->second[0] ? -1.0
                                                                         : 1.0;
  SmallVector<Value> xs = loadRun(k, x, space, e0, vec);
  emitElements(op, e0, vec, vals, [&](Value e, int64_t i) {
    // descale offset: each coordinate divided by its block size.
    Value offset = idx(d.base), rest = e;
    for (int64_t dim = static_cast<int64_t>(space.size()) - 1; dim >= 0;
         --dim) {
      if (space[dim] == 1)
        continue;
      Value c = arith::RemUIOp::create(b, loc, rest, idx(space[dim]));
      rest = arith::DivUIOp::create(b, loc, rest, idx(space[dim]));
      if (d.dims[dim] != 1)
        offset = addi(offset,
                      muli(arith::DivUIOp::create(b, loc, c, idx(block[dim])),
                           idx(d.strides[dim])));
    }
    Value scale = toF32(memref::LoadOp::create(b, loc, k.memrefs.at(d.buffer),
                                               ValueRange{offset}),
                        d.dtype);
    return mulf(mulf(xs[i], f32(sign)), scale);
  });
  return "";
}

std::string Emitter::emitQuantize(const Stage &s, size_t index,
                                  rt::CodegenSpec &out) {
  const rt::OpSpec &op = *s.ops.front();
  const View &x = planner.viewOf(op.inputs.at("input"));
  const View &y = planner.viewOf(op.outputs.at("Y"));
  const View &sc = planner.viewOf(op.outputs.at("scale"));
  const Shape &space = x.dims;
  int64_t rank = space.size();
  int64_t axis = -1;
  if (auto it = op.intAttrs.find("axis");
      it != op.intAttrs.end() && !it->second.empty())
    axis = it->second[0];
  if (axis < 0)
    axis += rank;
  auto bsIt = op.intAttrs.find("block_size");
  int64_t blockSize =
      bsIt == op.intAttrs.end() || bsIt->second.empty() ? 32 : bsIt->second[0];
  if (axis < 0 || axis >= rank || blockSize <= 0)
    return "block_scale_quantize: axis or block_size out of range";
  if (!isByteFloat(y.dtype) || y.dtype == DType::F8E8M0FNU)
    return "block_scale_quantize: Y must be fp8 e4m3/e5m2 or fp4 e2m1";
  int64_t n = space[axis], blocks = (n + blockSize - 1) / blockSize;
  Shape sspace = space;
  sspace[axis] = blocks;
  if (sc.dims != sspace)
    return "block_scale_quantize: scale dims differ from the input's with "
           "the axis divided by block_size";
  // Element views over [blocks space..., blockSize]: a block's elements are
  // the last (contiguous when the axis is) dim.
  Shape space2 = sspace;
  space2.push_back(blockSize);
  auto elementView = [&](View v) {
    View out = v;
    out.dims = space2;
    out.strides = v.strides;
    out.strides[axis] = v.strides[axis] * blockSize;
    out.strides.push_back(v.strides[axis]);
    return out;
  };
  View x2 = elementView(x), y2 = elementView(y);
  bool ragged = n % blockSize != 0;
  int64_t vec = 16 / std::max(elementBytes(x.dtype), elementBytes(y.dtype));
  while (vec > 1 && (blockSize % vec || ragged))
    vec /= 2;
  int64_t total = numel(sspace), threads = 256;
  std::vector<int64_t> buffers;
  for (int64_t buffer : {x.buffer, y.buffer, sc.buffer})
    if (!llvm::is_contained(buffers, buffer))
      buffers.push_back(buffer);
  Kernel k = begin("stage" + std::to_string(index), buffers, threads, 0);
  k.launch.grid = {static_cast<unsigned>((total + threads - 1) / threads), 1,
                   1};
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value t = addi(muli(bid, idx(threads)), tid);
  double maxVal = ::graph::ref::maxFiniteValue(y.dtype);
  int emax = y.dtype == DType::F8E4M3FN ? 8 : y.dtype == DType::F8E5M2 ? 15 : 2;
  guarded(ult(t, idx(total)), [&] {
    // The block's valid length along the axis.
    int64_t after = 1;
    for (int64_t d = axis + 1; d < rank; ++d)
      after *= sspace[d];
    Value blk = arith::RemUIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, t, idx(after)), idx(blocks));
    Value count = idx(blockSize);
    if (ragged)
      count = arith::MinUIOp::create(
          b, loc, idx(blockSize),
          arith::SubIOp::create(b, loc, idx(n), muli(blk, idx(blockSize))));
    Value base = muli(t, idx(blockSize));
    SmallVector<Value> xs;
    SmallVector<Value> valid;
    for (int64_t r = 0; r < blockSize; r += vec) {
      Value ok = ragged ? ult(idx(r), count) : Value();
      SmallVector<Value> run = guardedLoad(ok, vec, [&] {
        return loadRun(k, x2, space2, addi(base, idx(r)), vec);
      });
      xs.append(run.begin(), run.end());
      for (int64_t l = 0; l < vec; ++l)
        valid.push_back(ok);
    }
    Value amax = f32(0.0);
    for (Value v : xs) {
      Value a = math::AbsFOp::create(b, loc, v);
      Value isNan =
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, a, a);
      a = arith::SelectOp::create(b, loc, isNan, f32(0.0), a);
      amax = arith::MaximumFOp::create(b, loc, amax, a);
    }
    Value scale;
    if (sc.dtype == DType::F8E8M0FNU) {
      // OCP: 2^(floor(log2 amax) - emax), clamped to [2^-127, 2^127].
      F32Bits fb{b, loc};
      Value bits = fb.bitsOf(amax);
      Value field = arith::ShRUIOp::create(b, loc, bits, fb.i32c(23));
      Value lz = math::CountLeadingZerosOp::create(b, loc, bits);
      Value subLog = arith::SubIOp::create(
          b, loc, arith::SubIOp::create(b, loc, fb.i32c(31), lz), fb.i32c(149));
      Value log2 = arith::SelectOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, field,
                                fb.i32c(0)),
          subLog, arith::SubIOp::create(b, loc, field, fb.i32c(127)));
      Value e = arith::SubIOp::create(b, loc, log2, fb.i32c(emax));
      e = arith::MaxSIOp::create(b, loc, e, fb.i32c(-127));
      e = arith::MinSIOp::create(b, loc, e, fb.i32c(127));
      Value tiny = fb.floatOf(fb.i32c(0x00400000)); // 2^-127
      Value isTiny = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, e,
                                           fb.i32c(-127));
      scale = arith::SelectOp::create(
          b, loc, isTiny, tiny,
          fb.pow2(arith::MaxSIOp::create(b, loc, e, fb.i32c(-126))));
      Value isZero = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                           amax, f32(0.0));
      Value isInf =
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, amax,
                                f32(std::numeric_limits<double>::infinity()));
      scale = arith::SelectOp::create(b, loc, isZero, tiny, scale);
      scale =
          arith::SelectOp::create(b, loc, isInf, fb.pow2(fb.i32c(127)), scale);
    } else {
      double scaleMax = ::graph::ref::maxFiniteValue(sc.dtype);
      Value raw = divf(amax, f32(maxVal));
      raw = arith::MinimumFOp::create(b, loc, raw, f32(scaleMax));
      scale = roundTo(raw, sc.dtype);
    }
    Value isZero = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                         scale, f32(0.0));
    SmallVector<Value> ys;
    for (Value v : xs) {
      Value q = arith::SelectOp::create(b, loc, isZero, v, divf(v, scale));
      q = arith::MinimumFOp::create(b, loc, q, f32(maxVal));
      q = arith::MaximumFOp::create(b, loc, q, f32(-maxVal));
      ys.push_back(q);
    }
    for (int64_t r = 0; r < blockSize; r += vec)
      guarded(valid[r], [&] {
        storeRun(k, y2, space2, addi(base, idx(r)),
                 ArrayRef<Value>(ys).slice(r, vec));
      });
    memref::StoreOp::create(b, loc, fromF32(scale, sc.dtype),
                            k.memrefs.at(sc.buffer),
                            ValueRange{offsetOf(sc, sspace, t)});
  });
  return finish(k, out);
}

std::string Emitter::emitRope(Kernel &k, const rt::OpSpec &op,
                              const Shape &space, Value e0, int64_t vec,
                              std::map<int64_t, Val> &vals) {
  const View &x = planner.viewOf(op.inputs.at("input"));
  const View &f = planner.viewOf(op.inputs.at("freqs"));
  if (space.empty() || f.dims.empty())
    return op.kind + ": needs an input and freqs of rank >= 1";
  int64_t head = space.back();
  auto dimIt = op.intAttrs.find("rope_dim");
  int64_t d = dimIt == op.intAttrs.end() || dimIt->second.empty() ||
                      dimIt->second[0] == 0
                  ? head
                  : dimIt->second[0];
  int64_t half = d / 2, freqLast = f.dims.back();
  if (d % 2 || d > head || (freqLast != d && freqLast != half))
    return op.kind + ": rope_dim " + std::to_string(d) +
           " and freqs last dim " + std::to_string(freqLast) +
           " do not fit a last dim of " + std::to_string(head);
  double scale = pointwiseAttr(op, "output_scale", 1.0);
  bool backward = op.kind == "rope_backward";
  Shape fspace = space;
  fspace.back() = freqLast;
  auto load = [&](const View &v, const Shape &sp, Value at) {
    return toF32(memref::LoadOp::create(b, loc, k.memrefs.at(v.buffer),
                                        ValueRange{offsetOf(v, sp, at)}),
                 v.dtype);
  };
  auto lt = [&](Value a, int64_t c) { return ult(a, idx(c)); };
  emitElements(op, e0, vec, vals, [&](Value e, int64_t) {
    Value j = arith::RemUIOp::create(b, loc, e, idx(head));
    Value row = arith::DivUIOp::create(b, loc, e, idx(head));
    Value first = lt(j, half), inRope = lt(j, d);
    Value lo = arith::SelectOp::create(
        b, loc, first, j, arith::SubIOp::create(b, loc, j, idx(half)));
    lo = arith::SelectOp::create(b, loc, inRope, lo, idx(0));
    Value rowBase = muli(row, idx(head));
    Value xlo = load(x, space, addi(rowBase, lo));
    Value xhi = load(x, space, addi(rowBase, addi(lo, idx(half))));
    Value fBase = muli(row, idx(freqLast));
    Value a0 = load(f, fspace, addi(fBase, lo));
    Value a1 =
        freqLast == d ? load(f, fspace, addi(fBase, addi(lo, idx(half)))) : a0;
    Value c0 = math::CosOp::create(b, loc, a0),
          s0 = math::SinOp::create(b, loc, a0);
    Value c1 = math::CosOp::create(b, loc, a1),
          s1 = math::SinOp::create(b, loc, a1);
    Value lower = backward ? addf(mulf(xlo, c0), mulf(xhi, s1))
                           : subf(mulf(xlo, c0), mulf(xhi, s0));
    Value upper = backward ? subf(mulf(xhi, c1), mulf(xlo, s0))
                           : addf(mulf(xhi, c1), mulf(xlo, s1));
    Value rotated = arith::SelectOp::create(b, loc, first, lower, upper);
    Value r =
        arith::SelectOp::create(b, loc, inRope, rotated, load(x, space, e));
    return mulf(f32(scale), r);
  });
  return "";
}

std::string Emitter::emitReduce(const Stage &s, size_t index,
                                rt::CodegenSpec &out) {
  const rt::OpSpec &op = *s.ops.front();
  const View &x = planner.viewOf(op.inputs.at("input"));
  // (output uid, reduction kind, post-op)
  struct Part {
    int64_t uid;
    std::string mode;
    bool square;
  };
  std::vector<Part> parts;
  if (op.kind == "genstats") {
    parts.push_back({op.outputs.at("SUM"), "add", false});
    parts.push_back({op.outputs.at("SQ_SUM"), "add", true});
  } else {
    parts.push_back({op.outputs.at("output"), op.mode, false});
  }
  const Shape &space = x.dims;
  const Shape &outDims = planner.views.at(parts[0].uid).dims;
  if (outDims.size() != space.size())
    return op.kind + ": generated kernels reduce to the same rank";
  Shape keptDims, reducedDims;
  std::vector<size_t> keptAxes, reducedAxes;
  for (size_t d = 0; d < space.size(); ++d) {
    if (outDims[d] == space[d]) {
      keptAxes.push_back(d);
      keptDims.push_back(space[d]);
    } else if (outDims[d] == 1) {
      reducedAxes.push_back(d);
      reducedDims.push_back(space[d]);
    } else {
      return op.kind + ": output dim " + std::to_string(d) +
             " is neither kept nor reduced";
    }
  }
  int64_t outputs = numel(keptDims), reduced = numel(reducedDims);
  int64_t block = 256;
  std::vector<int64_t> buffers = stageBuffers(planner, s);
  Kernel k = begin("stage" + std::to_string(index), buffers, block, 32);
  k.launch.grid = {static_cast<unsigned>(std::max<int64_t>(outputs, 1)), 1, 1};
  Value smem = k.func.getWorkgroupAttributions()[0];
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  // The kept part of the input's offset, from the block's output index.
  Shape kept(space.size(), 1), red(space.size(), 1);
  for (size_t d : keptAxes)
    kept[d] = space[d];
  for (size_t d : reducedAxes)
    red[d] = space[d];
  View keptView = x, redView = x;
  keptView.dims = kept;
  redView.dims = red;
  redView.base = 0;
  for (size_t d = 0; d < space.size(); ++d) {
    if (kept[d] == 1)
      keptView.strides[d] = 0;
    if (red[d] == 1)
      redView.strides[d] = 0;
  }
  Value keptOffset = offsetOf(keptView, kept, bid);
  std::vector<ReduceKind> kinds;
  SmallVector<Value> inits;
  for (const Part &p : parts) {
    kinds.push_back(reduceKind(p.mode));
    inits.push_back(f32(kinds.back().identity));
  }
  auto loop = scf::ForOp::create(b, loc, tid, idx(reduced), idx(block), inits);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value m = loop.getInductionVar();
    Value offset = addi(keptOffset, offsetOf(redView, red, m));
    Value v = toF32(memref::LoadOp::create(b, loc, k.memrefs.at(x.buffer),
                                           ValueRange{offset}),
                    x.dtype);
    SmallVector<Value> next;
    for (size_t i = 0; i < parts.size(); ++i) {
      Value in = parts[i].square ? mulf(v, v) : v;
      next.push_back(kinds[i].combine(b, loc, loop.getRegionIterArgs()[i],
                                      kinds[i].pre(b, loc, in)));
    }
    scf::YieldOp::create(b, loc, next);
  }
  for (size_t i = 0; i < parts.size(); ++i) {
    Value r = blockReduce(loop.getResult(i), kinds[i], tid, smem, block);
    if (parts[i].mode == "avg")
      r = divf(r, f32(static_cast<double>(reduced)));
    if (parts[i].mode == "norm2")
      r = math::SqrtOp::create(b, loc, r);
    Value first =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, idx(0));
    const View &ov = planner.views.at(parts[i].uid);
    guarded(first, [&] {
      // The block's output index walks the kept dims in row-major order.
      View keptOut = ov;
      Shape keptOnly;
      Shape keptStrides;
      for (size_t d : keptAxes) {
        keptOnly.push_back(ov.dims[d]);
        keptStrides.push_back(ov.strides[d]);
      }
      keptOut.dims = keptOnly;
      keptOut.strides = keptStrides;
      Value o =
          keptOnly.empty() ? idx(ov.base) : offsetOf(keptOut, keptOnly, bid);
      memref::StoreOp::create(b, loc, fromF32(r, ov.dtype),
                              k.memrefs.at(ov.buffer), ValueRange{o});
    });
  }
  return finish(k, out);
}

/// `v` as a view that broadcasts over `space`: per-row statistics given in
/// another shape with one element per row (e.g. [R] for [R, N]) are read
/// as the row-major [rows..., 1...] they hold.
View overSpace(const View &v, const Shape &space, size_t k) {
  if (broadcastsTo(v.dims, space))
    return v;
  Shape stat = space;
  for (size_t d = k; d < stat.size(); ++d)
    stat[d] = 1;
  View out = v;
  if (numel(v.dims) == numel(stat) && v.strides == rowMajorStrides(v.dims)) {
    out.dims = stat;
    out.strides = rowMajorStrides(stat);
  }
  return out;
}

Cls classOf(const View &v, const Shape &space, size_t k) {
  size_t lead = space.size() - v.dims.size();
  bool rowsAll1 = true, colsAll1 = true;
  for (size_t d = 0; d < space.size(); ++d) {
    int64_t o = d >= lead ? v.dims[d - lead] : 1;
    (d < k ? rowsAll1 : colsAll1) &= o == 1;
  }
  if (rowsAll1 && colsAll1)
    return Cls::Scalar;
  if (colsAll1)
    return Cls::Row;
  if (rowsAll1)
    return Cls::Col;
  return Cls::Full;
}

std::string Emitter::emitRow(const Stage &s, size_t index,
                             rt::CodegenSpec &out) {
  const Shape &space = s.space;
  int64_t rows = 1, cols = 1;
  for (size_t d = 0; d < space.size(); ++d)
    (d < s.k ? rows : cols) *= space[d];
  std::vector<int64_t> buffers = stageBuffers(planner, s);
  int64_t vec = runLength(planner, s);
  while (vec > 1 &&
         cols % vec) // rows of one element: the inner dim is a row dim
    vec /= 2;
  int64_t runs = cols / vec; // vector runs per row
  // `threads` per block, or fewer for short rows; more for long rows so a
  // thread keeps at most 48 floats per row-shaped input (no spills).
  int64_t fullInputs = 1;
  {
    std::set<int64_t> seen;
    for (const rt::OpSpec *op : s.ops)
      for (auto &[port, raw] : op->inputs) {
        int64_t uid = planner.resolve(raw);
        if (!s.produced.count(uid) && planner.views.count(uid) &&
            classOf(overSpace(planner.views.at(uid), space, s.k), space, s.k) ==
                Cls::Full)
          seen.insert(uid);
      }
    fullInputs = std::max<int64_t>(1, seen.size());
  }
  int64_t block = std::min<int64_t>(knobs.threads, (runs + 31) / 32 * 32);
  block = std::clamp<int64_t>(block, 32, 1024);
  auto itemsFor = [&](int64_t b) { return (runs + b - 1) / b; };
  int64_t budget = knobs.prefetch ? 24 : 48;
  while (block < 1024 && itemsFor(block) * vec * fullInputs > budget)
    block *= 2;
  block = std::min<int64_t>(block, 1024);
  int64_t items = itemsFor(block);
  int64_t grid =
      std::min<int64_t>(rows, std::max<int64_t>(1, kRowWave / block));
  grid = std::max<int64_t>(grid, 1);

  auto resolve = [&](int64_t uid) { return planner.resolve(uid); };
  // Backward norms: per-column sums (DScale, DBias) through partials.
  struct ColSum {
    int64_t uid;     // DScale or DBias
    int64_t partial; // scratch [grid, cols] f32
  };
  std::vector<ColSum> colSums;
  // Column sums kept in registers across rows cost lanes per output; when
  // those and the row inputs would not fit the register file at this block
  // size, a separate kernel sums the columns from the inputs instead (one
  // more read of grad and input, no spills).
  const rt::OpSpec *columnPassOp = nullptr;
  int64_t resident = 0; // blocks per SM the row kernel asks ptxas for
  for (const rt::OpSpec *op : s.ops) {
    if (op->kind.find("_backward") == std::string::npos ||
        planner.productOf.count(op))
      continue;
    size_t outputs = op->outputs.count("DScale") + op->outputs.count("DBias");
    int64_t registers =
        (fullInputs + static_cast<int64_t>(outputs)) * items * vec + 24;
    bool addressable = true;
    for (const char *port : {"grad", "input", "mean", "inv_variance"})
      if (auto it = op->inputs.find(port); it != op->inputs.end())
        addressable &= !s.produced.count(resolve(it->second)) &&
                       planner.views.count(resolve(it->second));
    if (addressable && block * registers > 65536) {
      columnPassOp = op;
      continue;
    }
    // Each block writes a row of partial sums per output: launch one wave,
    // the blocks the SMs hold at once (the partials then stay a few MiB).
    // The register bound is generous and handed to ptxas (minctasm), so the
    // wave is never a wave and a half.
    int64_t bound = registers * 5 / 4;
    resident = std::clamp<int64_t>(65536 / (block * bound), 1, 2048 / block);
    grid = std::min(grid, kSMs * resident);
    for (const char *port : {"DScale", "DBias"}) {
      auto it = op->outputs.find(port);
      if (it == op->outputs.end())
        continue;
      int64_t partial = planner.newScratch(DType::F32, {grid, cols});
      View pv{partial, DType::F32, 0, {grid, cols}, {cols, 1}};
      planner.views[partial] = pv;
      colSums.push_back({it->second, partial});
    }
  }
  for (const ColSum &c : colSums)
    buffers.push_back(c.partial);

  Kernel k = begin("stage" + std::to_string(index), buffers, block, 32);
  k.launch.grid = {static_cast<unsigned>(grid), 1, 1};
  // A row of at most 32 lanes per input fits 64 registers: ask ptxas for
  // that bound, so an SM holds 2048 / block blocks instead of half as many
  // for the sake of a few registers.
  if (colSums.empty() && fullInputs * items * vec <= 32 && block <= 1024)
    resident = 1024 / block;
  if (resident)
    k.func->setAttr("nvvm.minctasm",
                    b.getI32IntegerAttr(static_cast<int32_t>(resident)));
  Value smem = k.func.getWorkgroupAttributions()[0];
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  std::vector<Value> colStart, valid;
  for (int64_t it = 0; it < items; ++it) {
    colStart.push_back(muli(addi(idx(it * block), tid), idx(vec)));
    valid.push_back((it + 1) * block * vec <= cols
                        ? Value()
                        : ult(colStart.back(), idx(cols)));
  }
  auto viewOf = [&](int64_t uid) {
    return overSpace(planner.views.at(uid), space, s.k);
  };
  // Per-column inputs do not change from row to row: short ones are loaded
  // once and held in registers; longer ones (a norm's scale and bias over
  // 4096 columns would hold 64 registers per thread and halve the blocks an
  // SM runs) are reloaded per row, from L1/L2.
  std::map<int64_t, Val> colInputs;
  std::vector<int64_t> colUids;
  for (const rt::OpSpec *op : s.ops)
    for (auto &[port, raw] : op->inputs) {
      int64_t uid = resolve(raw);
      if (!llvm::is_contained(colUids, uid) && !s.produced.count(uid) &&
          planner.views.count(uid) &&
          classOf(viewOf(uid), space, s.k) == Cls::Col)
        colUids.push_back(uid);
    }
  bool holdColumns =
      static_cast<int64_t>(colUids.size()) * items * vec <= kHeldColumnLanes;
  if (!holdColumns)
    colUids.clear();
  for (int64_t uid : colUids) {
    View v = viewOf(uid);
    Val val;
    val.cls = Cls::Col;
    for (int64_t it = 0; it < items; ++it) {
      SmallVector<Value> lanes = guardedLoad(valid[it], vec, [&] {
        return loadRun(k, v, space, colStart[it], vec);
      });
      val.lanes.append(lanes.begin(), lanes.end());
    }
    colInputs[uid] = val;
  }

  size_t lanesPerRow = items * vec;
  // Row-shaped inputs are software-pipelined: the loads of a block's next
  // row are issued before this row's reductions and stores, so a row's
  // memory latency hides behind the previous row's work.
  std::vector<int64_t> prefetched;
  for (const rt::OpSpec *op : s.ops)
    for (auto &[port, raw] : op->inputs) {
      int64_t uid = resolve(raw);
      if (s.produced.count(uid) || !planner.views.count(uid) ||
          llvm::is_contained(prefetched, uid) ||
          (planner.tensors.count(uid) && planner.tensors.at(uid)->isByValue))
        continue;
      if (knobs.prefetch && classOf(viewOf(uid), space, s.k) == Cls::Full)
        prefetched.push_back(uid);
    }
  auto loadRow = [&](int64_t uid, Value rowIndex, Value cond) {
    View view = viewOf(uid);
    Value base = muli(rowIndex, idx(cols));
    SmallVector<Value> lanes;
    for (int64_t i = 0; i < items; ++i) {
      Value ok = valid[i];
      if (cond)
        ok = ok ? arith::AndIOp::create(b, loc, ok, cond).getResult() : cond;
      SmallVector<Value> run = guardedLoad(ok, vec, [&] {
        return loadRun(k, view, space, addi(base, colStart[i]), vec);
      });
      lanes.append(run.begin(), run.end());
    }
    return lanes;
  };
  SmallVector<Value> inits(colSums.size() * lanesPerRow, f32(0.0));
  size_t accCount = inits.size();
  for (int64_t uid : prefetched) {
    SmallVector<Value> first = loadRow(uid, bid, Value());
    inits.append(first.begin(), first.end());
  }
  auto loop = scf::ForOp::create(b, loc, bid, idx(rows), idx(grid), inits);
  // Without iteration arguments the builder adds a terminator; ours ends
  // the body instead.
  if (inits.empty())
    loop.getBody()->getTerminator()->erase();
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value row = loop.getInductionVar();
    Value rowBase = muli(row, idx(cols));
    std::map<int64_t, Val> vals = colInputs;
    SmallVector<Value> nextRow;
    {
      ValueRange carried = loop.getRegionIterArgs();
      Value next = addi(row, idx(grid));
      Value hasNext = ult(next, idx(rows));
      for (size_t p = 0; p < prefetched.size(); ++p) {
        Val v{Cls::Full, {}};
        for (size_t i = 0; i < lanesPerRow; ++i)
          v.lanes.push_back(carried[accCount + p * lanesPerRow + i]);
        vals[prefetched[p]] = v;
        SmallVector<Value> lanes = loadRow(prefetched[p], next, hasNext);
        nextRow.append(lanes.begin(), lanes.end());
      }
    }
    auto get = [&](int64_t raw) -> Val {
      int64_t uid = resolve(raw);
      auto it = vals.find(uid);
      if (it != vals.end())
        return it->second;
      Val v;
      auto t = planner.tensors.find(uid);
      if (t != planner.tensors.end() && t->second->isByValue) {
        v.lanes.push_back(f32(t->second->byValue));
      } else {
        View view = viewOf(uid);
        v.cls = classOf(view, space, s.k);
        Value runBase = v.cls == Cls::Col ? rowInvariantZero() : rowBase;
        if (v.cls == Cls::Scalar || v.cls == Cls::Row) {
          Value at =
              offsetOf(view, space, v.cls == Cls::Row ? rowBase : idx(0));
          v.lanes.push_back(
              toF32(memref::LoadOp::create(b, loc, k.memrefs.at(view.buffer),
                                           ValueRange{at}),
                    view.dtype));
        } else {
          for (int64_t i = 0; i < items; ++i) {
            SmallVector<Value> lanes = guardedLoad(valid[i], vec, [&] {
              return loadRun(k, view, space, addi(runBase, colStart[i]), vec);
            });
            v.lanes.append(lanes.begin(), lanes.end());
          }
        }
      }
      vals[uid] = v;
      return v;
    };
    auto validLane = [&](size_t i) { return valid[i / vec]; };
    /// Sum (or another reduction) over the row of per-lane values.
    auto rowReduce = [&](const ReduceKind &kind,
                         function_ref<Value(size_t)> value) {
      Value acc = f32(kind.identity);
      for (size_t i = 0; i < lanesPerRow; ++i) {
        Value v = kind.pre(b, loc, value(i));
        if (Value ok = validLane(i))
          v = arith::SelectOp::create(b, loc, ok, v, f32(kind.identity));
        acc = kind.combine(b, loc, acc, v);
      }
      return blockReduce(acc, kind, tid, smem, block);
    };
    auto dtypeOf = [&](int64_t uid) { return planner.tensors.at(uid)->dtype; };
    ReduceKind sum = reduceKind("add");
    SmallVector<Value> accs(loop.getRegionIterArgs().take_front(accCount));
    double n = static_cast<double>(cols);

    for (const rt::OpSpec *op : s.ops) {
      const std::string &kind = op->kind;
      if (kind == "pointwise" || kind == "batchnorm_inference") {
        if (std::string e = computePointwise(*op, vals, get,
                                             [](size_t) { return Value(); });
            !e.empty())
          return e;
        continue;
      }
      if (kind == "reduction") {
        Val x = get(op->inputs.at("input"));
        if (x.lanes.size() != lanesPerRow)
          return "reduction: generated kernels reduce values that vary along "
                 "the row";
        ReduceKind rk = reduceKind(op->mode);
        Value r = rowReduce(rk, [&](size_t i) { return x.lanes[i]; });
        if (op->mode == "avg")
          r = divf(r, f32(n));
        if (op->mode == "norm2")
          r = math::SqrtOp::create(b, loc, r);
        int64_t o = op->outputs.at("output");
        vals[o] = Val{Cls::Row, {roundTo(r, dtypeOf(o))}};
        continue;
      }
      bool backward = kind.find("_backward") != std::string::npos;
      bool centered = kind.rfind("rmsnorm", 0) != 0;
      if (!backward) {
        Val x = get(op->inputs.at("input"));
        Val eps = get(op->inputs.at("epsilon"));
        if (x.lanes.size() != lanesPerRow)
          return kind + ": the input must vary along the row";
        Value mean = f32(0.0);
        if (centered)
          mean = divf(rowReduce(sum, [&](size_t i) { return x.lanes[i]; }),
                      f32(n));
        SmallVector<Value> centeredX;
        for (size_t i = 0; i < lanesPerRow; ++i)
          centeredX.push_back(centered ? subf(x.lanes[i], mean) : x.lanes[i]);
        Value var = divf(rowReduce(sum,
                                   [&](size_t i) {
                                     return mulf(centeredX[i], centeredX[i]);
                                   }),
                         f32(n));
        Value inv = divf(f32(1.0),
                         math::SqrtOp::create(b, loc, addf(var, eps.lane(0))));
        // Loaded after the reductions: not live across them.
        Val scale = get(op->inputs.at("scale"));
        std::optional<Val> bias;
        if (op->inputs.count("bias"))
          bias = get(op->inputs.at("bias"));
        int64_t yUid = op->outputs.at("Y");
        Val y{Cls::Full, {}};
        for (size_t i = 0; i < lanesPerRow; ++i) {
          Value v = mulf(mulf(centeredX[i], inv), scale.lane(i));
          if (bias)
            v = addf(v, bias->lane(i));
          y.lanes.push_back(roundTo(v, dtypeOf(yUid)));
        }
        vals[yUid] = y;
        if (auto it = op->outputs.find("mean"); it != op->outputs.end())
          vals[it->second] =
              Val{Cls::Row, {roundTo(mean, dtypeOf(it->second))}};
        if (auto it = op->outputs.find("inv_var"); it != op->outputs.end())
          vals[it->second] = Val{Cls::Row, {roundTo(inv, dtypeOf(it->second))}};
        continue;
      }
      Val scale = get(op->inputs.at("scale"));
      Val dy = get(op->inputs.at("grad"));
      Val x = get(op->inputs.at("input"));
      Val inv = get(op->inputs.at("inv_variance"));
      Value mean = f32(0.0);
      if (centered)
        mean = get(op->inputs.at("mean")).lane(0);
      Value invV = inv.lane(0);
      SmallVector<Value> xhat, g;
      for (size_t i = 0; i < lanesPerRow; ++i) {
        xhat.push_back(mulf(subf(x.lane(i), mean), invV));
        g.push_back(mulf(dy.lane(i), scale.lane(i)));
      }
      Value sumG =
          centered ? rowReduce(sum, [&](size_t i) { return g[i]; }) : f32(0.0);
      Value sumGX =
          rowReduce(sum, [&](size_t i) { return mulf(g[i], xhat[i]); });
      Value meanG = divf(sumG, f32(n)), meanGX = divf(sumGX, f32(n));
      int64_t dxUid = op->outputs.at("DX");
      Val dx{Cls::Full, {}};
      for (size_t i = 0; i < lanesPerRow; ++i) {
        Value v = subf(g[i], mulf(xhat[i], meanGX));
        if (centered)
          v = subf(v, meanG);
        dx.lanes.push_back(roundTo(mulf(invV, v), dtypeOf(dxUid)));
      }
      vals[dxUid] = dx;
      if (auto product = planner.productOf.find(op);
          product != planner.productOf.end()) {
        Val p{Cls::Full, {}};
        for (size_t i = 0; i < lanesPerRow; ++i)
          p.lanes.push_back(mulf(dy.lane(i), xhat[i]));
        vals[product->second] = p;
      }
      for (size_t c = 0; c < colSums.size(); ++c) {
        bool isScale = op->outputs.count("DScale") &&
                       op->outputs.at("DScale") == colSums[c].uid;
        bool isBias = op->outputs.count("DBias") &&
                      op->outputs.at("DBias") == colSums[c].uid;
        if (!isScale && !isBias)
          continue;
        for (size_t i = 0; i < lanesPerRow; ++i) {
          Value term = isScale ? mulf(dy.lane(i), xhat[i]) : dy.lane(i);
          if (Value ok = validLane(i))
            term = arith::SelectOp::create(b, loc, ok, term, f32(0.0));
          Value &acc = accs[c * lanesPerRow + i];
          acc = addf(acc, term);
        }
      }
    }
    // Stores of this row.
    Value first =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, idx(0));
    for (int64_t uid : s.stores) {
      if (llvm::any_of(colSums, [&](const ColSum &c) { return c.uid == uid; }))
        continue; // written by the finishing kernel
      if (columnPassOp && isColumnSum(*columnPassOp, uid))
        continue; // written by the column pass
      if (llvm::any_of(planner.productOf, [&](auto &entry) {
            return isColumnSum(*entry.first, uid);
          }))
        continue; // summed by the reduce stages that follow
      auto found = vals.find(uid);
      if (found == vals.end())
        return "uid " + std::to_string(uid) + " is not computed by the stage";
      const Val &v = found->second;
      View view = viewOf(uid);
      if (v.cls == Cls::Row || v.cls == Cls::Scalar) {
        Value cond = first;
        if (v.cls == Cls::Scalar)
          cond = arith::AndIOp::create(
              b, loc, cond,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, row,
                                    idx(0)));
        guarded(cond, [&] {
          Value at =
              offsetOf(view, space, v.cls == Cls::Row ? rowBase : idx(0));
          memref::StoreOp::create(b, loc, fromF32(v.lanes[0], view.dtype),
                                  k.memrefs.at(view.buffer), ValueRange{at});
        });
        continue;
      }
      for (int64_t i = 0; i < items; ++i) {
        Value cond = valid[i];
        Value e = addi(rowBase, colStart[i]);
        if (v.cls == Cls::Col) {
          Value isFirst = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::eq, row, idx(0));
          cond = cond ? arith::AndIOp::create(b, loc, cond, isFirst).getResult()
                      : isFirst;
          e = colStart[i];
        }
        guarded(cond, [&] {
          SmallVector<Value> lanes(v.lanes.begin() + i * vec,
                                   v.lanes.begin() + (i + 1) * vec);
          storeRun(k, view, space, e, lanes);
        });
      }
    }
    SmallVector<Value> yielded = accs;
    yielded.append(nextRow.begin(), nextRow.end());
    scf::YieldOp::create(b, loc, yielded);
  }
  // Partial column sums of this block.
  for (size_t c = 0; c < colSums.size(); ++c) {
    const View &pv = planner.views.at(colSums[c].partial);
    for (int64_t i = 0; i < items; ++i)
      guarded(valid[i], [&] {
        SmallVector<Value> lanes;
        for (int64_t l = 0; l < vec; ++l)
          lanes.push_back(loop.getResult(c * lanesPerRow + i * vec + l));
        storeRun(k, pv, pv.dims, addi(muli(bid, idx(cols)), colStart[i]),
                 lanes);
      });
  }
  if (std::string e = finish(k, out); !e.empty())
    return e;

  for (size_t c = 0; c < colSums.size(); ++c)
    if (std::string e = emitColumnFinish(
            colSums[c].partial, grid, cols,
            overSpace(planner.views.at(colSums[c].uid), space, s.k), space,
            "stage" + std::to_string(index) + "_colsum" + std::to_string(c),
            out);
        !e.empty())
      return e;
  if (columnPassOp)
    return emitColumnPass(*columnPassOp, s, index, out);
  return "";
}

std::string Emitter::emitColumnFinish(int64_t partial, int64_t partRows,
                                      int64_t cols, const View &target,
                                      const Shape &space,
                                      const std::string &name,
                                      rt::CodegenSpec &out) {
  // A block sums 32 columns over the partial rows: 8 warps each take every
  // 8th row (coalesced runs of 32), then fold through shared memory.
  constexpr int64_t kColsPerBlock = 32, kSlices = 8;
  const View &pv = planner.views.at(partial);
  Kernel f = begin(name, {partial, target.buffer}, kColsPerBlock * kSlices,
                   kColsPerBlock * kSlices);
  f.launch.grid = {
      static_cast<unsigned>((cols + kColsPerBlock - 1) / kColsPerBlock), 1, 1};
  Value smem = f.func.getWorkgroupAttributions()[0];
  Value t = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value blk = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value lane = arith::RemUIOp::create(b, loc, t, idx(kColsPerBlock));
  Value slice = arith::DivUIOp::create(b, loc, t, idx(kColsPerBlock));
  Value col = addi(muli(blk, idx(kColsPerBlock)), lane);
  Value inside = ult(col, idx(cols));
  // Columns past the end sum nothing (a zero-trip loop).
  Value end = arith::SelectOp::create(b, loc, inside, idx(partRows), idx(0));
  auto sumLoop = scf::ForOp::create(b, loc, slice, end, idx(kSlices),
                                    ValueRange{f32(0.0)});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(sumLoop.getBody());
    Value at = addi(muli(sumLoop.getInductionVar(), idx(cols)), col);
    Value v =
        memref::LoadOp::create(b, loc, f.memrefs.at(pv.buffer), ValueRange{at});
    scf::YieldOp::create(b, loc,
                         ValueRange{addf(sumLoop.getRegionIterArgs()[0], v)});
  }
  memref::StoreOp::create(b, loc, sumLoop.getResult(0), smem, ValueRange{t});
  gpu::BarrierOp::create(b, loc);
  Value firstSlice =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, slice, idx(0));
  guarded(arith::AndIOp::create(b, loc, firstSlice, inside), [&] {
    Value total = memref::LoadOp::create(b, loc, smem, ValueRange{lane});
    for (int64_t k = 1; k < kSlices; ++k)
      total = addf(total, memref::LoadOp::create(
                              b, loc, smem,
                              ValueRange{addi(lane, idx(k * kColsPerBlock))}));
    Value at = offsetOf(target, space, col);
    memref::StoreOp::create(b, loc, fromF32(total, target.dtype),
                            f.memrefs.at(target.buffer), ValueRange{at});
  });
  return finish(f, out);
}

std::string Emitter::emitColumnPass(const rt::OpSpec &op, const Stage &s,
                                    size_t index, rt::CodegenSpec &out) {
  const Shape &space = s.space;
  int64_t rows = 1, cols = 1;
  for (size_t d = 0; d < space.size(); ++d)
    (d < s.k ? rows : cols) *= space[d];
  auto viewOf = [&](const char *port) {
    return overSpace(planner.viewOf(op.inputs.at(port)), space, s.k);
  };
  bool centered = op.kind.rfind("rmsnorm", 0) != 0;
  View dy = viewOf("grad"), x = viewOf("input"), inv = viewOf("inv_variance");
  std::optional<View> mean;
  if (centered)
    mean = viewOf("mean");
  std::vector<std::pair<int64_t, bool>> targets; // uid, is DScale
  if (auto it = op.outputs.find("DScale"); it != op.outputs.end())
    targets.push_back({it->second, true});
  if (auto it = op.outputs.find("DBias"); it != op.outputs.end())
    targets.push_back({it->second, false});
  int64_t sums = targets.size();
  // Each thread sums `vec` adjacent columns (16-byte loads) over every 8th
  // row of its block's row chunk; 32 lanes x 8 slices per block. Row chunks
  // (grid y) give every SM work; their partial sums go through scratch and
  // one finishing kernel per output.
  constexpr int64_t kLanes = 32, kSlices = 8;
  std::vector<int64_t> stageBufs;
  for (const View *v : {&dy, &x})
    stageBufs.push_back(v->buffer);
  int64_t narrow = std::min(elementBytes(dy.dtype), elementBytes(x.dtype));
  int64_t vec = 16 / narrow;
  int64_t inner = space[innerDim(space)];
  while (vec > 1 && (inner % vec || cols % vec))
    vec /= 2;
  int64_t colsPerBlock = kLanes * vec;
  int64_t colBlocks = (cols + colsPerBlock - 1) / colsPerBlock;
  int64_t chunks = std::clamp<int64_t>(528 / colBlocks, 1, rows);
  int64_t rowsPerChunk = (rows + chunks - 1) / chunks;
  chunks = (rows + rowsPerChunk - 1) / rowsPerChunk;
  std::vector<int64_t> partials;
  std::vector<View> targetViews;
  for (auto &[uid, isScale] : targets) {
    targetViews.push_back(overSpace(planner.views.at(uid), space, s.k));
    if (chunks > 1) {
      int64_t partial = planner.newScratch(DType::F32, {chunks, cols});
      planner.views[partial] =
          View{partial, DType::F32, 0, {chunks, cols}, {cols, 1}};
      partials.push_back(partial);
    }
  }
  std::vector<int64_t> buffers;
  auto addBuffer = [&](int64_t buffer) {
    if (!llvm::is_contained(buffers, buffer))
      buffers.push_back(buffer);
  };
  for (const View *v : {&dy, &x, &inv})
    addBuffer(v->buffer);
  if (mean)
    addBuffer(mean->buffer);
  for (size_t j = 0; j < targets.size(); ++j)
    addBuffer(chunks > 1 ? partials[j] : targetViews[j].buffer);
  Kernel k = begin("stage" + std::to_string(index) + "_columns", buffers,
                   kLanes * kSlices, kLanes * kSlices * vec * sums);
  k.launch.grid = {static_cast<unsigned>(colBlocks),
                   static_cast<unsigned>(chunks), 1};
  Value smem = k.func.getWorkgroupAttributions()[0];
  Value t = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value blk = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value chunk = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
  Value lane = arith::RemUIOp::create(b, loc, t, idx(kLanes));
  Value slice = arith::DivUIOp::create(b, loc, t, idx(kLanes));
  Value col0 = muli(addi(muli(blk, idx(kLanes)), lane), idx(vec));
  Value inside = ult(col0, idx(cols));
  Value first = addi(muli(chunk, idx(rowsPerChunk)), slice);
  Value last = arith::MinUIOp::create(
      b, loc, muli(addi(chunk, idx(1)), idx(rowsPerChunk)), idx(rows));
  last = arith::SelectOp::create(b, loc, inside, last, idx(0));
  SmallVector<Value> inits(sums * vec, f32(0.0));
  auto loop = scf::ForOp::create(b, loc, first, last, idx(kSlices), inits);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value r = loop.getInductionVar();
    Value rowE = muli(r, idx(cols));
    Value e = addi(rowE, col0);
    auto scalar = [&](const View &v) {
      return toF32(memref::LoadOp::create(b, loc, k.memrefs.at(v.buffer),
                                          ValueRange{offsetOf(v, space, rowE)}),
                   v.dtype);
    };
    SmallVector<Value> g = loadRun(k, dy, space, e, vec);
    SmallVector<Value> xv = loadRun(k, x, space, e, vec);
    Value m = mean ? scalar(*mean) : f32(0.0);
    Value iv = scalar(inv);
    SmallVector<Value> next;
    for (int64_t j = 0; j < sums; ++j)
      for (int64_t l = 0; l < vec; ++l) {
        Value term =
            targets[j].second ? mulf(g[l], mulf(subf(xv[l], m), iv)) : g[l];
        next.push_back(addf(loop.getRegionIterArgs()[j * vec + l], term));
      }
    scf::YieldOp::create(b, loc, next);
  }
  // Shared layout: [sum][slice][lane][vec]; slice 0 folds the slices.
  int64_t perSum = kLanes * kSlices * vec;
  for (int64_t j = 0; j < sums; ++j)
    for (int64_t l = 0; l < vec; ++l)
      memref::StoreOp::create(
          b, loc, loop.getResult(j * vec + l), smem,
          ValueRange{addi(muli(t, idx(vec)), idx(j * perSum + l))});
  gpu::BarrierOp::create(b, loc);
  Value firstSlice =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, slice, idx(0));
  guarded(arith::AndIOp::create(b, loc, firstSlice, inside), [&] {
    for (int64_t j = 0; j < sums; ++j)
      for (int64_t l = 0; l < vec; ++l) {
        Value total;
        for (int64_t q = 0; q < kSlices; ++q) {
          Value at = addi(muli(lane, idx(vec)),
                          idx(j * perSum + q * kLanes * vec + l));
          Value v = memref::LoadOp::create(b, loc, smem, ValueRange{at});
          total = total ? addf(total, v) : v;
        }
        Value col = addi(col0, idx(l));
        if (chunks > 1) {
          const View &pv = planner.views.at(partials[j]);
          memref::StoreOp::create(
              b, loc, total, k.memrefs.at(pv.buffer),
              ValueRange{addi(muli(chunk, idx(cols)), col)});
        } else {
          const View &tv = targetViews[j];
          memref::StoreOp::create(b, loc, fromF32(total, tv.dtype),
                                  k.memrefs.at(tv.buffer),
                                  ValueRange{offsetOf(tv, space, col)});
        }
      }
  });
  if (std::string e = finish(k, out); !e.empty())
    return e;
  if (chunks > 1)
    for (size_t j = 0; j < targets.size(); ++j)
      if (std::string e =
              emitColumnFinish(partials[j], chunks, cols, targetViews[j], space,
                               "stage" + std::to_string(index) +
                                   "_columns_sum" + std::to_string(j),
                               out);
          !e.empty())
        return e;
  return "";
}

std::string Emitter::emit(ModuleOp m, rt::CodegenSpec &out) {
  module = m;
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  b.getUnitAttr());
  b.setInsertionPointToEnd(module.getBody());
  gpuModule = gpu::GPUModuleOp::create(b, loc, "kernels");
  for (size_t i = 0; i < planner.stages.size(); ++i) {
    const Stage &s = planner.stages[i];
    std::string error;
    if (s.stores.empty())
      continue;
    switch (s.kind) {
    case StageKind::Pointwise:
    case StageKind::Copy:
      error = emitPointwise(s, i, out);
      break;
    case StageKind::Row:
      error = emitRow(s, i, out);
      break;
    case StageKind::Reduce:
      error = emitReduce(s, i, out);
      break;
    case StageKind::Quantize:
      error = emitQuantize(s, i, out);
      break;
    }
    if (!error.empty())
      return error;
  }
  return "";
}

} // namespace

std::vector<std::string> mlir::graph::codegenPlanNames() {
  // The codegen engine's ranked plans (lib/Engines/Codegen).
  return getCodegenEngine().planNames();
}

static bool parsePlan(const std::string &name, Knobs &knobs) {
  long t = 0, i = 0;
  int used = 0;
  if (std::sscanf(name.c_str(), "codegen_v2_t%ld_i%ld%n", &t, &i, &used) != 2 ||
      t < 32 || t > 1024 || t % 32 || i < 1 || i > 16)
    return false;
  std::string rest = name.substr(used);
  if (!rest.empty() && rest != "_p")
    return false;
  knobs.threads = t;
  knobs.items = i;
  knobs.prefetch = rest == "_p";
  return true;
}

std::string mlir::graph::codegenV2Declines(const rt::GraphSpec &spec) {
  Planner planner(spec);
  return planner.plan();
}

std::string mlir::graph::generateKernels(const rt::GraphSpec &spec,
                                         const std::string &plan,
                                         ModuleOp module,
                                         rt::CodegenSpec &out) {
  Knobs knobs;
  if (!parsePlan(plan, knobs))
    return "unknown codegen plan '" + plan + "'";
  Planner planner(spec);
  if (std::string why = planner.plan(); !why.empty())
    return why;
  out = rt::CodegenSpec();
  out.name = spec.name;
  out.engine = plan;
  Emitter emitter(module.getContext(), planner, knobs);
  if (std::string why = emitter.emit(module, out); !why.empty())
    return why;
  for (auto &[buffer, bytes] : planner.scratch)
    out.scratch.push_back({buffer, bytes});
  if (out.launches.empty())
    return "the group lowered to no kernel";
  return "";
}
