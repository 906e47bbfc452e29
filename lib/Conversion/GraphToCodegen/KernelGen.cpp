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
// This file holds the entry points; KernelGen.h says where the planner, the
// launch geometry and each stage kind's emitter are.
//
//===----------------------------------------------------------------------===//

#include "KernelGen.h"

#include "GraphDialect/Conversion/GraphToCodegen.h"
#include "GraphDialect/Engines/Codegen.h"
#include "GraphDialect/Engines/Engine.h"

#include <cstdio>

using namespace mlir;
using namespace mlir::graph;
using namespace mlir::graph::kernelgen;

bool kernelgen::parsePlan(const std::string &name, Knobs &knobs) {
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

std::vector<std::string> mlir::graph::codegenPlanNames() {
  // The codegen engine's ranked plans (lib/Engines/Codegen).
  return getCodegenEngine().planNames();
}

std::string mlir::graph::codegenV2Declines(const rt::GraphSpec &spec) {
  Planner planner(spec);
  return planner.plan();
}

std::string mlir::graph::generateKernels(const rt::GraphSpec &spec,
                                         const std::string &plan,
                                         ModuleOp module, rt::CodegenSpec &out,
                                         const rt::DeviceLimits &limits) {
  Knobs knobs;
  if (!parsePlan(plan, knobs))
    return "unknown codegen plan '" + plan + "'";
  if (knobs.threads > limits.maxThreadsPerBlock)
    return plan + ": " + std::to_string(knobs.threads) +
           " threads per block, over the device's " +
           std::to_string(limits.maxThreadsPerBlock);
  Planner planner(spec);
  if (std::string why = planner.plan(); !why.empty())
    return why;
  out = rt::CodegenSpec();
  out.name = spec.name;
  out.engine = plan;
  Emitter emitter(module.getContext(), planner, knobs, limits);
  if (std::string why = emitter.emit(module, out); !why.empty())
    return why;
  for (auto &[buffer, bytes] : planner.scratch)
    out.scratch.push_back({buffer, bytes});
  if (out.launches.empty())
    return "the group lowered to no kernel";
  return "";
}
