//===- Passes.td - Conversion passes of the graph compiler -*- tablegen -*-===//

#ifndef GRAPH_CONVERSION_PASSES_TD
#define GRAPH_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def GraphLowerToExecutable
    : Pass<"graph-lower-to-executable", "::mlir::ModuleOp"> {
  let summary = "Replace each graph.graph by its exec.program (the AOT artifact)";
  let description = [{
    Runs after `graph-prepare`, `graph-fuse` and `graph-select-engines`.
    Lowers every `graph.graph` of the module to the runtime's cuDNN program
    (the same lowering `graph-run --device=gpu` uses) and replaces the graph
    by an `exec.program` of the same name: the inputs and outputs by uid
    with dtype, dims, strides and name, the buffers that cross groups, and
    one `exec.cudnn_group` per group in schedule order, each carrying the
    heuristics modes its plan is chosen with. The graph is replaced, not
    kept beside: the artifact is all `graph-run` needs.

    ```
    graph-opt model.mlir --graph-prepare --graph-fuse --graph-select-engines \
        --graph-lower-to-executable [--emit-bytecode] -o model.exec.mlir
    ```
  }];
  let dependentDialects = ["::mlir::exec::ExecDialect"];
  let options = [
    ListOption<"heuristics", "heuristics", "std::string",
               "cuDNN heuristics modes recorded for every group, in order "
               "(a, b, fallback; default: a,fallback)">,
  ];
}

#endif // GRAPH_CONVERSION_PASSES_TD
