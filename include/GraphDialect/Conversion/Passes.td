//===- Passes.td - Conversion passes of the graph compiler -*- tablegen -*-===//

#ifndef GRAPH_CONVERSION_PASSES_TD
#define GRAPH_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def GraphLowerToExecutable
    : Pass<"graph-lower-to-executable", "::mlir::ModuleOp"> {
  let summary = "Replace each graph.graph by its exec.program (the AOT artifact)";
  let description = [{
    Runs after `graph-prepare`, `graph-fuse` and `graph-select-engines`.
    Lowers every `graph.graph` of the module to the runtime's program (the
    same lowering `graph-run --device=gpu` uses) and replaces the graph by
    an `exec.program` of the same name: the inputs and outputs by uid with
    dtype, dims, strides and name, the buffers that cross groups, and one
    step per group in schedule order. A group becomes an
    `exec.kernel_group` when `kernels` says so: the codegen engine's plans
    for it (the `#graph.engine<codegen, plans = [...]>` entry
    `graph-select-engines` wrote) are compiled here, in rank order, and the
    first that compiles is embedded: its kernel images (PTX text, or sm_90
    cubin with `cubin=true`), launch geometry and pointer arguments. Every
    other group becomes an `exec.cudnn_group` holding the group's graph ops
    (its inputs as the body's arguments, the tensors it writes yielded) and
    the heuristics modes its plan is chosen with. The graph is replaced, not kept beside: the
    artifact is all `graph-run` needs.

    `kernels`: `auto` (the default) embeds kernels for the groups whose
    first-ranked engine is codegen (those cuDNN's rules decline, or with
    `--graph-select-engines=engines=codegen`); `prefer` for every group the
    codegen engine accepts; `never` for none (codegen then compiles at load
    time, on the GPU, for groups cuDNN's plans do not build). A group whose
    kernels do not compile stays a cuDNN group when cuDNN is on its engine
    list (with a warning) and is an error otherwise. Launch geometry
    assumes the H200's limits (132 SMs), as kernels generated without a GPU
    do.

    ```
    graph-opt model.mlir --graph-prepare --graph-fuse --graph-select-engines \
        --graph-lower-to-executable[="kernels=prefer cubin=true"] \
        [--emit-bytecode] -o model.exec.mlir
    ```
  }];
  // func: the codegen_v2 groups' graph ops are built in a func.
  let dependentDialects = ["::mlir::exec::ExecDialect",
                           "::mlir::func::FuncDialect"];
  let options = [
    ListOption<"heuristics", "heuristics", "std::string",
               "cuDNN heuristics modes recorded for every group, in order "
               "(a, b, fallback; default: a,fallback)">,
    Option<"kernels", "kernels", "std::string", "\"auto\"",
           "which groups get generated kernels embedded: auto (codegen "
           "ranked first), prefer (codegen accepts the group) or never">,
    Option<"cubin", "cubin", "bool", "false",
           "embed kernels as sm_90 cubin assembled by ptxas (CUDA_ROOT's "
           "toolkit) instead of PTX text">,
  ];
}

#endif // GRAPH_CONVERSION_PASSES_TD
