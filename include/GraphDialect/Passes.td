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
    of convolutions in f16, bf16 and fp8 types (every tensor of such a node,
    an f32 result included); for pointwise results, the
    stride order of the first operand of the same shape; row-major
    otherwise. Strides the user gave are never rewritten. The graph's
    signature is updated to match its block arguments and outputs.
  }];
}

#endif // GRAPH_PASSES_TD
