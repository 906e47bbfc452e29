//===- LaunchGeometry.cpp - Vector widths, blocks and grids of stages -----===//
//
// How each stage's kernel is launched, from the plan's knobs and the
// device's limits (rt::DeviceLimits: the CUDA device's, or the H200's when
// kernels are generated without a GPU). Row stages launch one wave of the
// blocks the SMs hold at once and loop over the rows; backward norms that
// sum columns across rows bound their registers so that wave stays one.
//
//===----------------------------------------------------------------------===//

#include "KernelGen.h"

using namespace mlir;
using namespace mlir::graph;
using namespace mlir::graph::kernelgen;

namespace {
/// Row stages hold at most this many floats per thread per row-shaped input
/// (24 when the next row is loaded ahead), so the row stays in registers.
constexpr int64_t kRowFloatBudget = 48;
constexpr int64_t kPrefetchRowFloatBudget = 24;
/// A row of at most 32 lanes per input fits this many registers a thread.
constexpr int64_t kShortRowRegisters = 64;
/// Blocks per SM the column pass aims for (its row chunks fill them).
constexpr int64_t kColumnPassBlocksPerSM = 4;
} // namespace

View kernelgen::overSpace(const View &v, const Shape &space, size_t k) {
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

Cls kernelgen::classOf(const View &v, const Shape &space, size_t k) {
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

std::vector<int64_t> kernelgen::stageBuffers(const Planner &p, const Stage &s) {
  std::set<int64_t> seen;
  std::vector<int64_t> order;
  auto add = [&](int64_t uid) {
    auto it = p.views.find(uid);
    if (it == p.views.end())
      return;
    if (seen.insert(it->second.buffer).second)
      order.push_back(it->second.buffer);
  };
  for (Operation *op : s.ops)
    for (auto &[port, operand] : namedValues(op, /*isResult=*/false))
      add(p.resolve(p.uidOf(operand)));
  for (int64_t uid : s.stores)
    add(uid);
  return order;
}

int64_t kernelgen::runLength(const Planner &p, const Stage &s) {
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
  for (Operation *op : s.ops)
    for (auto &[port, operand] : namedValues(op, /*isResult=*/false))
      consider(p.uidOf(operand));
  for (int64_t uid : s.stores)
    consider(uid);
  int64_t vec = 16 / widest;
  int64_t extent = s.space.empty() ? 1 : s.space[inner];
  while (vec > 1 && extent % vec != 0)
    vec /= 2;
  return vec;
}

PointwiseLaunch kernelgen::planPointwiseLaunch(const Planner &p, const Stage &s,
                                               const Knobs &knobs) {
  PointwiseLaunch l;
  l.vec = runLength(p, s);
  l.block = knobs.threads;
  l.items = knobs.items;
  int64_t total = std::max<int64_t>(numel(s.space), 1);
  l.runs = total / l.vec;
  int64_t perBlock = l.block * l.items;
  l.grid = std::max<int64_t>((l.runs + perBlock - 1) / perBlock, 1);
  return l;
}

/// Row-shaped inputs of row stage `s` that are not computed in it.
static int64_t countFullInputs(const Planner &p, const Stage &s) {
  std::set<int64_t> seen;
  for (Operation *o : s.ops)
    for (auto &[port, operand] : namedValues(o, /*isResult=*/false)) {
      int64_t uid = p.resolve(p.uidOf(operand));
      if (!s.produced.count(uid) && p.views.count(uid) &&
          classOf(overSpace(p.views.at(uid), s.space, s.k), s.space, s.k) ==
              Cls::Full)
        seen.insert(uid);
    }
  return std::max<int64_t>(1, seen.size());
}

/// Backward norms of row stage `s` that sum columns: either in registers
/// across the rows (partials per block, `l.grid` bounded to one wave of the
/// blocks their registers allow) or, when those would not fit a block's
/// registers, by a separate column pass.
static void planColumnSums(Planner &p, const Stage &s,
                           const rt::DeviceLimits &limits, RowLaunch &l) {
  for (Operation *op : s.ops) {
    if (!isBackwardNorm(op) || p.productOf.count(op))
      continue;
    // An unused DScale or DBias (no view) is not summed.
    size_t outputs = p.liveColumnSum(op, Port::DScale).has_value() +
                     p.liveColumnSum(op, Port::DBias).has_value();
    if (outputs == 0)
      continue;
    int64_t registers =
        (l.fullInputs + static_cast<int64_t>(outputs)) * l.items * l.vec + 24;
    bool addressable = true;
    for (Port port : {Port::grad, Port::input, Port::mean, Port::inv_variance})
      if (std::optional<int64_t> uid = p.uidAt(op, port, /*isResult=*/false))
        addressable &= !s.produced.count(p.resolve(*uid)) &&
                       p.views.count(p.resolve(*uid));
    if (addressable && l.block * registers > limits.registersPerBlock) {
      l.columnPassOp = op;
      continue;
    }
    // Each block writes a row of partial sums per output: launch one wave,
    // the blocks the SMs hold at once (the partials then stay a few MiB).
    // The register bound is generous and handed to ptxas (minctasm), so the
    // wave is never a wave and a half.
    int64_t bound = registers * 5 / 4;
    l.resident = std::clamp<int64_t>(
        limits.registersPerMultiprocessor / (l.block * bound), 1,
        limits.maxThreadsPerMultiprocessor / l.block);
    l.grid = std::min(l.grid, limits.multiprocessors * l.resident);
    for (Port port : {Port::DScale, Port::DBias}) {
      std::optional<int64_t> uid = p.liveColumnSum(op, port);
      if (!uid)
        continue;
      int64_t partial = p.newScratch(DType::F32, {l.grid, l.cols});
      View pv{partial, DType::F32, 0, {l.grid, l.cols}, {l.cols, 1}};
      p.views[partial] = pv;
      l.columnSums.push_back({*uid, partial});
    }
  }
}

RowLaunch kernelgen::planRowLaunch(Planner &p, const Stage &s,
                                   const Knobs &knobs,
                                   const rt::DeviceLimits &limits) {
  RowLaunch l;
  const Shape &space = s.space;
  for (size_t d = 0; d < space.size(); ++d)
    (d < s.k ? l.rows : l.cols) *= space[d];
  l.vec = runLength(p, s);
  while (l.vec > 1 &&
         l.cols % l.vec) // rows of one element: the inner dim is a row dim
    l.vec /= 2;
  l.runs = l.cols / l.vec;
  // `threads` per block, or fewer for short rows; more for long rows so a
  // thread keeps at most 48 floats per row-shaped input (no spills).
  l.fullInputs = countFullInputs(p, s);
  int64_t maxBlock = limits.maxThreadsPerBlock;
  int64_t block = std::min<int64_t>(knobs.threads, (l.runs + 31) / 32 * 32);
  block = std::clamp<int64_t>(block, 32, maxBlock);
  auto itemsFor = [&](int64_t b) { return (l.runs + b - 1) / b; };
  int64_t budget = knobs.prefetch ? kPrefetchRowFloatBudget : kRowFloatBudget;
  while (block < maxBlock && itemsFor(block) * l.vec * l.fullInputs > budget)
    block *= 2;
  l.block = std::min<int64_t>(block, maxBlock);
  l.items = itemsFor(l.block);
  // One wave: the threads every SM holds at once.
  int64_t wave = limits.multiprocessors * limits.maxThreadsPerMultiprocessor;
  l.grid = std::min<int64_t>(l.rows, std::max<int64_t>(1, wave / l.block));
  l.grid = std::max<int64_t>(l.grid, 1);

  planColumnSums(p, s, limits, l);
  // A short row fits kShortRowRegisters registers: ask ptxas for that
  // bound, so an SM holds that many more blocks instead of fewer for the
  // sake of a few registers.
  if (l.columnSums.empty() && l.fullInputs * l.items * l.vec <= 32 &&
      l.block <= maxBlock)
    l.resident =
        limits.registersPerMultiprocessor / kShortRowRegisters / l.block;
  return l;
}

ColumnPassLaunch
kernelgen::planColumnPassLaunch(DType gradType, DType inputType,
                                const Shape &space, int64_t rows, int64_t cols,
                                const rt::DeviceLimits &limits) {
  ColumnPassLaunch l;
  int64_t narrow = std::min(elementBytes(gradType), elementBytes(inputType));
  l.vec = 16 / narrow;
  int64_t inner = space[innerDim(space)];
  while (l.vec > 1 && (inner % l.vec || cols % l.vec))
    l.vec /= 2;
  int64_t colsPerBlock = ColumnPassLaunch::kLanes * l.vec;
  l.colBlocks = (cols + colsPerBlock - 1) / colsPerBlock;
  // Row chunks (grid y) give every SM work.
  l.chunks = std::clamp<int64_t>(
      kColumnPassBlocksPerSM * limits.multiprocessors / l.colBlocks, 1, rows);
  l.rowsPerChunk = (rows + l.chunks - 1) / l.chunks;
  l.chunks = (rows + l.rowsPerChunk - 1) / l.rowsPerChunk;
  return l;
}
