//===- GroupOps.td - Fused groups as region ops ------------*- tablegen -*-===//
//
// graph-fuse outlines each fused group into a graph.group;
// graph-select-engines ranks the engines that run it.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPH_GROUP_OPS_TD
#define GRAPH_GROUP_OPS_TD

def Graph_GroupOp : Op<Graph_Dialect, "group", [
    HasParent<"GraphOp">, IsolatedFromAbove, RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"YieldOp">,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getDefaultDialect"]>]> {
  let summary = "One fused group: the ops one engine runs as one unit";
  let description = [{
    A fused group of a `graph.graph`, as `graph-fuse` forms it: the node ops
    one engine runs as one launch or one cuDNN plan, in program order, in a
    single-block region isolated from above. The operands are the values the
    group reads from outside (graph inputs, pass-by-value scalars, other
    groups' results), bound to the block arguments in order; the results are
    the values the group computes for later groups or as graph outputs,
    listed by the `graph.yield` terminator. Values used only inside the group
    are virtual: no engine stores them.

    `id` names the group (`<graph>/group<id>` in plan reports); ids are
    distinct and increase in schedule order. `engines`, written by
    `graph-select-engines`, is the ranked list of engines that accept the
    whole group, each with the plans it proposes (`#graph.engine`); an
    engine is listed once.

    The verifier checks that the block arguments match the operands, that
    the yielded values match the results, that the group holds at least one
    node op, and the rules on `id` and `engines` above. Consumers that
    follow the data flow across groups (the lowering to cuDNN group
    descriptions, the CPU reference) see a block argument as the operand it
    is bound to and a result as the value yielded for it.

    ```mlir
    %y, %s = graph.group 0 engines [#graph.engine<cudnn, plans = ["heuristics"]>]
        (%a = %x : tensor<8x64xf16>, %b = %w : tensor<64x32xf16>)
        -> (tensor<8x32xf16>, tensor<8x1xf32>) {
      %mm = graph.matmul %a, %b : (tensor<8x64xf16>, tensor<64x32xf16>) -> tensor<8x32xf32>
      %g = graph.pointwise gelu(%mm) : (tensor<8x32xf32>) -> tensor<8x32xf16>
      %r = graph.reduction add %g : (tensor<8x32xf16>) -> tensor<8x1xf32>
      graph.yield %g, %r : tensor<8x32xf16>, tensor<8x1xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$id,
                       OptionalAttr<Graph_EngineArrayAttr>:$engines);
  let results = (outs Variadic<AnyRankedTensor>:$outputs);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "::mlir::TypeRange":$resultTypes,
                                 "::mlir::ValueRange":$inputs,
                                 "int64_t":$id)>];
  let extraClassDeclaration = [{
    /// The group's node ops in program order (the terminator excluded).
    auto getNodes() { return getBody().front().without_terminator(); }
    /// The graph.yield that lists the group's results.
    YieldOp getYieldOp();
    /// The engine names of `engines` in rank order (empty before
    /// graph-select-engines).
    ::llvm::SmallVector<::llvm::StringRef> getEngineNames();
  }];
}

def Graph_YieldOp : Op<Graph_Dialect, "yield", [
    Pure, HasParent<"GroupOp">, ReturnLike, Terminator]> {
  let summary = "Lists the values a fused group computes for its users";
  let description = [{
    Terminates a `graph.group`. Its operands become the group's results, in
    order, and are computed by the group's ops.

    ```mlir
    graph.yield %g, %r : tensor<8x32xf16>, tensor<8x1xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$values);
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, {}); }]>];
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
  let hasVerifier = 1;
}

#endif // GRAPH_GROUP_OPS_TD
