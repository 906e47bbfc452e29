//===- CodegenPasses.td - Passes of the codegen engine -----*- tablegen -*-===//

#ifndef GRAPH_CODEGEN_PASSES_TD
#define GRAPH_CODEGEN_PASSES_TD

include "mlir/Pass/PassBase.td"

def GraphLowerToLinalg : Pass<"graph-lower-to-linalg", "::mlir::ModuleOp"> {
  let summary = "Replace each graph by one func of linalg on tensors per "
                "group the codegen engine can run";
  let description = [{
    Runs after `graph-prepare`, `graph-fuse` and `graph-select-engines`.
    The node ops of each `graph.group` are cloned into
    `func.func @<graph>_group<N>` as the group descriptions have them
    (`describeGroups`, lowerToCudnn's step, and `buildGroupOps`, as
    `graph-generate-kernels` builds them: its arguments the buffers the
    group reads, then the ones it writes, as destinations, in their stored
    types) and lowered by conversion patterns, one set per op family
    (`populatePointwiseToLinalgPatterns`,
    `populateReductionToLinalgPatterns`): every pointwise op a
    `linalg.generic` over its output's dims with broadcast inputs read
    through constant-0 indexing maps, every last-axis add/max/min reduction
    a `linalg.generic` with a trailing reduction iterator into a
    `linalg.fill`ed destination. Tensors are padded with leading unit dims
    to the group's rank (3 or more); bodies extend to f32, compute with
    arith/math and truncate to the stored type. A group with an op no
    pattern lowers (or a strided or non-f32/f16/bf16 buffer) is left to
    another engine with a remark naming the reason. The graph must be one
    the GPU path takes (verifyGpuLowerable's checks, then describeGroups');
    it is erased.
  }];
  let dependentDialects = [
    "::mlir::func::FuncDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect", "::mlir::bufferization::BufferizationDialect"
  ];
}

def GraphCodegenCollapseLoops
    : Pass<"graph-codegen-collapse-parallel-loops", "::mlir::func::FuncOp"> {
  let summary = "Collapse each outermost scf.parallel nest into one 1-D loop";
  let description = [{
    Every outermost multi-dimensional `scf.parallel` becomes a 1-D loop over
    the linearized iteration space (row-major, so consecutive iterations
    touch consecutive elements of the contiguous dim), ready to be tiled by
    the block size and mapped to blocks and threads.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def GraphGenerateKernels : Pass<"graph-generate-kernels", "::mlir::ModuleOp"> {
  let summary = "Replace each graph by the gpu kernels codegen_v2 generates "
                "for its groups";
  let description = [{
    Runs after `graph-prepare`, `graph-fuse` and `graph-select-engines`.
    Each group of a `graph.graph` that the direct kernel generator accepts
    becomes `gpu.module @<graph>_group<N>`: one `gpu.func` kernel per stage
    (pointwise stages with 16-byte vector loads and stores, row stages for
    reductions over trailing axes, norms and softmax with warp-shuffle and
    shared-memory block reductions, reduce stages for other axes), built
    from scf/arith/math/vector/memref/gpu ops on flat memrefs of the group's
    buffers. `plan` picks the knobs (a codegen_v2 name of the engine's plan
    list). Row kernels carry `nvvm.minctasm`, the blocks per SM their launch
    plans for, so ptxas keeps to that register count. Results rounded to
    bf16 or fp8 take one reciprocal for a divisor shared by the row (exact
    division below 2^-125) and `tanh.approx.f32` for tanh; f32 and f16
    results keep exact division and libdevice's tanh. The graph is erased.
    Groups whose kernels come out identical share one module (what
    `graph-dedup-kernels` does, unless `dedup=false`), so
    `graph-kernels-to-ptx` compiles each distinct kernel once.
    `graph-kernels-to-ptx` lowers the result to sm_90 PTX.
  }];
  let options = [
    Option<"plan", "plan", "std::string", "\"codegen_v2_t256_i2\"",
           "codegen_v2 plan name: codegen_v2_t<threads>_i<items>">,
    Option<"dedup", "dedup", "bool", "true",
           "Share one gpu.module among groups whose kernels are identical">
  ];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::vector::VectorDialect",
    "::mlir::NVVM::NVVMDialect", "::mlir::func::FuncDialect"
  ];
}

def GraphDedupKernels : Pass<"graph-dedup-kernels", "::mlir::ModuleOp"> {
  let summary = "Keep one gpu.module per distinct generated kernel module";
  let description = [{
    Groups of the same shapes and ops get the same kernels: a stack of
    1,000 identical blocks generates 1,000 gpu.modules of which a handful
    differ. Two `gpu.module`s are identical when they print the same with
    their symbol name set aside (their kernels, the launch geometry in
    `graph.launches`, their targets). The first of each kind is kept, every
    symbol reference to the others (`gpu.launch_func @m::@k` and any other
    `@m` or `@m::...` attribute) is re-pointed to it and they are erased,
    so the NVVM pipeline compiles each distinct kernel once. The kept
    module lists the groups that run it, in order, in `graph.groups`
    (set only when two or more share it):

    ```mlir
    gpu.module @g_group0 attributes {graph.groups = ["g_group0", "g_group3"],
                                     graph.launches = ["stage0 grid 4 block 256"]} {
      gpu.func @stage0(...) kernel { ... }
    }
    ```

    `graph-generate-kernels` runs the same step at its end.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

#endif // GRAPH_CODEGEN_PASSES_TD
