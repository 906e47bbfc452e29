//===- GraphAttrs.td - Attributes of the graph dialect -----*- tablegen -*-===//

#ifndef GRAPH_ATTRS_TD
#define GRAPH_ATTRS_TD

include "GraphDialect/GraphDialect.td"
include "GraphDialect/GraphEnums.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/TensorEncoding.td"

class Graph_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Graph_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Graph_StridesAttr : Graph_Attr<"Strides", "strides",
    [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "Memory strides of a tensor, in elements";
  let description = [{
    The tensor encoding that fixes a tensor's memory layout: one stride per
    dimension, in elements, outermost first. Strides are positive and no two
    elements may share an address (dimensions of extent 1 are exempt).

    ```mlir
    tensor<8x64x56x56xf16, #graph.strides<[200704, 1, 3584, 64]>>  // NHWC
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$strides);
  let assemblyFormat = "`<` `[` $strides `]` `>`";
}

def Graph_PointwiseModeAttr : EnumAttr<Graph_Dialect, Graph_PointwiseMode, "pointwise_mode"> {
  let assemblyFormat = "$value";
}
def Graph_NormPhaseAttr : EnumAttr<Graph_Dialect, Graph_NormPhase, "phase"> {
  let assemblyFormat = "$value";
}
def Graph_ReductionModeAttr : EnumAttr<Graph_Dialect, Graph_ReductionMode, "reduction_mode"> {
  let assemblyFormat = "$value";
}
def Graph_ConvModeAttr : EnumAttr<Graph_Dialect, Graph_ConvMode, "conv_mode"> {
  let assemblyFormat = "`<` $value `>`";
}
def Graph_DiagonalAlignmentAttr : EnumAttr<Graph_Dialect, Graph_DiagonalAlignment, "diagonal_alignment"> {
  let assemblyFormat = "`<` $value `>`";
}
def Graph_MoeModeAttr : EnumAttr<Graph_Dialect, Graph_MoeMode, "moe_mode"> {
  let assemblyFormat = "`<` $value `>`";
}

def Graph_EngineAttr : Graph_Attr<"Engine", "engine"> {
  let summary = "An engine that runs a fused group, with the plans it proposes";
  let description = [{
    One entry of a `graph.group`'s ranked engine list, written by
    `graph-select-engines` from the engine registry: the engine
    (`cudnn`, `codegen` or `reference`) and the plans it proposes for the
    group, in rank order (`heuristics` for cuDNN, whose heuristics pick the
    engine configs at plan time; one name per generated-kernel plan for
    codegen). Plan names are non-empty.

    ```mlir
    #graph.engine<cudnn, plans = ["heuristics"]>
    #graph.engine<codegen, plans = ["codegen_v2_t256_i2", "codegen_v1"]>
    ```
  }];
  let parameters = (ins EnumParameter<Graph_EngineKind>:$kind,
                        "::mlir::ArrayAttr":$plans);
  let assemblyFormat = "`<` $kind `,` `plans` `=` $plans `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The engine's registry name (`cudnn`, `codegen`, `reference`).
    ::llvm::StringRef getName() const { return stringifyEngineKind(getKind()); }
  }];
}

def Graph_EngineArrayAttr
    : TypedArrayAttrBase<Graph_EngineAttr, "ranked engines of a fused group">;

#endif // GRAPH_ATTRS_TD
