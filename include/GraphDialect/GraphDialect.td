//===- GraphDialect.td - The graph dialect -----------------*- tablegen -*-===//

#ifndef GRAPH_DIALECT_TD
#define GRAPH_DIALECT_TD

include "mlir/IR/OpBase.td"

def Graph_Dialect : Dialect {
  let name = "graph";
  let cppNamespace = "::mlir::graph";
  let summary = "Deep-learning operation graphs as the cuDNN frontend builds them";
  let description = [{
    The `graph` dialect models the operation graphs that deep-learning
    frameworks hand to cuDNN: a `graph.graph` container whose arguments are
    the graph inputs and whose terminator lists the non-virtual outputs, and
    one op per node type of the cuDNN frontend graph API (matmul, pointwise,
    convolutions, norms, reductions, attention, quantization, MoE and the
    linear-attention family).

    Tensors are builtin ranked tensors. Their memory strides ride on a
    `#graph.strides<[...]>` encoding; a tensor without one has strides that
    are not decided yet (`graph-infer-layout` decides them). Graph inputs and
    outputs carry a `graph.uid` (`>= 0`) unique in the graph and an optional
    `graph.name` label; a pass-by-value scalar is a `graph.scalar` op. An
    input marked `graph.by_value` (a one-element tensor, the frontend's
    `is_pass_by_value` input) is a scalar whose value the caller supplies at
    each execute: cuDNN reads it on the host instead of from device memory.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasCanonicalizer = 0;
  let extraClassDeclaration = [{
    /// Discardable attribute names of graph inputs and outputs.
    static constexpr ::llvm::StringLiteral kUidAttrName = "graph.uid";
    static constexpr ::llvm::StringLiteral kNameAttrName = "graph.name";
    static constexpr ::llvm::StringLiteral kByValueAttrName = "graph.by_value";

  private:
    void registerAttributes();
  public:
  }];
}

#endif // GRAPH_DIALECT_TD
