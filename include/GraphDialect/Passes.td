//===- Passes.td - Passes of the graph dialect -------------*- tablegen -*-===//

#ifndef GRAPH_PASSES_TD
#define GRAPH_PASSES_TD

include "mlir/Pass/PassBase.td"

def GraphAssignUids : Pass<"graph-assign-uids", "::mlir::ModuleOp"> {
  let summary = "Give every graph input, output and scalar a uid";
  let description = [{
    Assigns the smallest free positive uid to each graph input, each
    non-virtual output and each `graph.scalar` that has none, in program
    order (inputs, then scalars in the order they appear, then outputs), so
    the result is deterministic. uids the user gave are reserved and never
    changed or reused. An output value that is also a graph input (or
    appears twice among the outputs) shares that tensor's uid.
  }];
}

def GraphInferLayout : Pass<"graph-infer-layout", "::mlir::ModuleOp"> {
  let summary = "Decide the strides of every tensor that has none";
  let description = [{
    Gives a `#graph.strides` encoding to each tensor type whose strides are
    not decided: channels-last (NHWC / NDHWC) for the operands and results
    of convolutions and batch norms (training, inference, backward) in f16,
    bf16 and fp8 types (every tensor of such a node, an f32 result
    included), and for the result of every convolution (fprop Y, dgrad DX,
    wgrad DW), as the frontend infers them. A pointwise result takes the
    strides of its last operand of the same shape (packed in their order
    when virtual); a norm's Y (a backward norm's DX) its input's order; a
    concatenation its first input's order; a reduction that is a graph
    output is channels-last from rank 3 on, as the frontend infers it;
    row-major otherwise. Strides the user gave are never rewritten. The
    graph's signature is updated to match its block arguments and outputs.
  }];
}

def GraphFuse : Pass<"graph-fuse", "::mlir::ModuleOp"> {
  let summary = "Partition each graph into groups one engine runs at once";
  let description = [{
    Partitions the node ops of each graph into fused groups and outlines
    each into a `graph.group` region op (operands: the values it reads from
    outside; results: the values later groups read or the graph returns),
    numbered and placed in an order that is a valid schedule (a group only
    reads graph inputs, scalars, earlier groups or itself); the graph's
    scalars stay in the graph body, before the groups, and its inputs,
    outputs and uids are unchanged. A graph fused before is partitioned
    again from its ops in schedule order. Groups follow what cuDNN's fusion
    engines run as one plan:

    - a matmul or convolution (fprop, dgrad, wgrad) with its pointwise
      epilogue chain (bias, scale, batchnorm inference, activations,
      residual add) and an optional trailing reduction;
    - a standalone chain of pointwise ops, with an optional trailing
      reduction;
    - with `row-fusion` (the default), memory-bound chains: pointwise ops,
      reductions, layer/rms/instance/adaptive norms forward and backward and
      batchnorm inference, e.g. softmax (max, sub, exp, sum, div) or a
      residual add + rmsnorm + scale, as one group for the codegen engine;
    - every other op (batchnorm training, genstats, attention, structural
      ops...) alone.

    A pointwise op joins the group of its latest operand's producer (a
    binary op of a matmul's epilogue result and another matmul's result
    joins the second one's epilogue, like a SwiGLU's swish(g) * u), so
    every other operand comes from an input, a scalar, an earlier group or
    that same group and the partition never has a cycle; a chain stops at
    `max-group-ops` ops. A pointwise op that reads two matmuls' results
    directly (a sum of two gradients) does not join the second one's
    epilogue but opens a group of its own (it still joins a memory-bound
    group its latest operand comes from):
    cuDNN's runtime-fusion engine ran the second matmul with the first's
    result added far below a plain matmul's rate (the Llama backward's
    gate.dgrad + up.dgrad with its rmsnorm_backward, on an H100: 0.62 ms
    fused, 0.57 ms as two plain matmuls and a row-fused add and norm).
    Scalars (`graph.scalar`) belong to no group: each group that reads one
    takes it as an operand and passes it by value.

    A producer that an engine runs inside its reader's plan
    (`Engine::runsFusedInto`) moves to the front of the reader's group when
    nothing else reads it: cuDNN's Philox `rng` of an sdpa's dropout mask,
    and the identity casts of graph inputs that feed a mixed-precision
    matmul, the latter only while M, N and K are multiples of 8 or dynamic
    (decided again once the shapes are bound; at other sizes cuDNN's
    runtime-fusion engine misreads a cast operand, so the cast runs alone
    and the matmul reads its result).

    Three rules follow the partition. A matmul whose epilogue writes
    two or more results of the matmul's size that leave the group keeps
    the matmul alone and its epilogue becomes the next group (cuDNN's
    runtime-fusion engine ran such a group, the Llama down-projection dgrad
    with the SwiGLU backward, at a third of the matmul's rate). A pointwise
    op that reads only graph inputs and scalars and whose readers all sit
    in one other group of pointwise ops, which reads each of those inputs
    already, moves into that group before its first reader (a recomputed
    activation is then not written to memory and read back). A group of
    pointwise ops that read only graph inputs and scalars merges into the
    front of a later pointwise group that reads each of those inputs
    already (the Llama backward's swish(gate) * up, recomputed for the
    down projection's weight gradient, into the SwiGLU backward): the
    groups between that depend on it move after the merged group, the
    others keep their order; not when a group would then depend on a later
    one, nor when a moved group would pass a group that writes a graph
    output (it reads graph memory later than before, and a caller may bind
    an output over one of its inputs). After a move or a merge a second run
    may group differently (the moved ops are then seen after the matmul):
    both partitions are valid schedules.
  }];
  let options = [
    Option<"maxGroupOps", "max-group-ops", "unsigned", "16",
           "Most ops in one fused group">,
    Option<"rowFusion", "row-fusion", "bool", "true",
           "Let pointwise ops, reductions, norms (not batchnorm training) and "
           "batchnorm inference chain on in groups without a matmul or "
           "convolution, past a reduction or norm: memory-bound groups the "
           "generated kernels run in one pass over the rows (cuDNN declines "
           "them; the GPU executor splits a group no engine takes)">,
  ];
}

def GraphExpandGqaBackward
    : Pass<"graph-expand-gqa-backward", "::mlir::ModuleOp"> {
  let summary = "Run grouped-query attention backward as multi-head";
  let description = [{
    For engines whose attention backward needs as many key/value heads as
    query heads (cuDNN's composite backward, which runs causal and masked
    attention): an `sdpa_backward` whose `k` and `v` have `hk` heads for
    `hq = g * hk` query heads reads `k` and `v` repeated `g` times per head
    (query head `h` uses key/value head `h / g`, as in the forward), and
    its `dK` and `dV` become the sum of the `g` per-query-head gradients of
    each key/value head:

    ```
    k5 = reshape k : [b, hk, s, d] -> [b, hk, 1, s, d]
    kx = reshape (concatenate k5 x g on dim 2) -> [b, hq, s, d]
    dK = reshape (reduction add (reshape dKx -> [b, hk, g, s, d]) on dim 2)
    ```

    Not in the GPU pipeline: cuDNN's fused backward and the runtime's
    composite backward take GQA as is (dK/dV reduced per group without
    repeating K and V in memory). Kept for engines that need it.
  }];
}

def GraphWidenNormGradients
    : Pass<"graph-widen-norm-gradients", "::mlir::ModuleOp"> {
  let summary = "Backward norms write DX in their input's type";
  let description = [{
    A backward norm (layer, rms, instance, adaptive layer, batch) whose `DX`
    type differs from its `input`'s (an f32 activation with an f16 input
    gradient for the convolution before it) writes `DX` in the input's type,
    and a `pointwise identity` rounds it to the type the graph asked for.
    cuDNN's norm backward engines build such mixed graphs and compute NaN
    (measured on the H200 with cuDNN 9.19: f32 x and dy with an f16 dx);
    the rounding is the same one the original op's store would do. The GPU
    pipeline runs it; graphs the CPU reference runs keep the mixed types.
  }];
}

def GraphSplitMoeScatter
    : Pass<"graph-split-moe-scatter", "::mlir::ModuleOp"> {
  let summary = "Run a scatter-mode MoE matmul as none mode and a row scatter";
  let description = [{
    A `moe_grouped_matmul` in `scatter` mode whose output has one row per
    token row (an MoE layer's down projection) and whose routing and
    offsets are i32 becomes the same matmul in `none` mode, writing the
    rows in expert order, and a `moe_scatter_rows` that puts each routed
    row `r` at `token_index[r] * top_k + token_ks[r]`, the rows the offsets
    give no expert (padding) unread and the output rows nothing lands on
    zero:

    ```
    rows = moe_grouped_matmul token, weight, offsets                   (none)
    out  = moe_scatter_rows rows, token_index, token_ks, offsets {top_k}
    ```

    `bounded` says the offsets end with the last expert's end (E + 1
    entries per E experts); otherwise the last expert runs to the last
    token row.

    cuDNN 9.19 offers no engine config for scatter mode on the H200 (none
    mode plans and runs; gather mode plans but faults, see
    graph-split-moe-gather); the generated kernels run the scatter. The GPU
    pipeline runs it; the CPU reference runs scatter mode as it is. The
    scatter op keeps the original's label, the matmul gets `<label>.rows`.
  }];
}

def GraphSplitMoeGather
    : Pass<"graph-split-moe-gather", "::mlir::ModuleOp"> {
  let summary = "Run a gather-mode MoE matmul as a row gather and none mode";
  let description = [{
    A `moe_grouped_matmul` in `gather` mode whose tokens are `[1, T, K]`
    (K static; f32, f16, bf16 or fp8 e4m3/e5m2, what the generated gather
    copies) and whose `token_index` is i32 becomes a `moe_gather_rows` that copies
    each routed row's source token (row `r` of the result is token
    `token_index[r]`) and the same matmul in `none` mode over those rows:

    ```
    rows = moe_gather_rows token, token_index
    out  = moe_grouped_matmul rows, weight, offsets                    (none)
    ```

    cuDNN 9.19's engine for gather mode plans on the H200 but faults at
    execution (CUDA error 700, an illegal address, measured with S = T and
    S = 2T rows, from 256 to 4096 tokens, with legal routing); none mode
    runs. The GPU pipeline runs this split; the CPU reference runs gather
    mode as it is. The matmul keeps the original's label, the gather gets
    `<label>.gather`.
  }];
}

def GraphSelectEngines : Pass<"graph-select-engines", "::mlir::ModuleOp"> {
  let summary = "Choose the engines that may run each fused group";
  let description = [{
    For each `graph.group` from `graph-fuse`, asks the engine registry
    (lib/Engines) which engines' group-level rules accept the group and
    records them, in rank order, as the group's typed `engines` list: one
    `#graph.engine<kind, plans = [...]>` per engine with the plans it
    proposes for the group. Groups are renumbered in schedule order. A group
    no engine accepts as a whole is split in its place into runs of
    consecutive ops, each the longest from its first op that some engine
    accepts, each ranked on its own; an op no engine accepts even alone is
    an error that lists every engine and why it declined. Run-time choices (cuDNN's
    heuristics, autotuning, a decline at plan build) happen in the runtime,
    which walks the same ranked list.
  }];
  let options = [
    ListOption<"engines", "engines", "std::string",
               "Engines to consider, in rank order (default: cudnn, codegen)">,
  ];
}

def GraphSpecializeShapes : Pass<"graph-specialize-shapes", "::mlir::ModuleOp"> {
  let summary = "Bind the dynamic dims of each graph to given input shapes";
  let description = [{
    Gives each graph input the dims of `shapes` (one `DIMS` entry per input,
    in argument order, e.g. `shapes=4x64,64x32`; `[]` for a rank-0 input):
    a `?` dim takes the given size, a fixed dim must equal it. Then every
    node result with a `?` dim takes the dims its op infers from the bound
    operands (InferTypeOpInterface), or for ops that declare their result
    type, the same dim of the first operand of the same rank; the graph's
    signature follows and the verifier runs, so a binding an op's rules
    reject is the op's own error. Strides of the tensors that were dynamic
    are dropped for graph-infer-layout to decide. The GPU path runs this at
    execute time with the shapes of the given buffers.
  }];
  let options = [
    ListOption<"shapes", "shapes", "std::string",
               "Dims of each input, in argument order (e.g. 4x64)">,
  ];
}

#endif // GRAPH_PASSES_TD
