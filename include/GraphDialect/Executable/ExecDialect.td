//===- ExecDialect.td - The executable (AOT artifact) dialect -*- tablegen -*-===//

#ifndef EXEC_DIALECT_TD
#define EXEC_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Exec_Dialect : Dialect {
  let name = "exec";
  let cppNamespace = "::mlir::exec";
  let summary = "The compiled program: device buffers and an ordered schedule";
  let description = [{
    The lowest level of the compiler and its ahead-of-time artifact. An
    `exec.program` names the graph's inputs and outputs (by uid, with dtype,
    dims and strides), the internal device buffers that cross groups, and
    the schedule: its body runs in order. Each step is an engine invocation:
    `exec.cudnn_group` is one cuDNN operation graph: the group's
    graph-dialect ops themselves in its body (typed: op kinds, modes, ports
    and attributes are the ops'), its device tensors as `#exec.tensor`
    attributes, plus the heuristics modes or the engine and knobs to build
    its plan with; `exec.kernel_group` is one group the codegen engine
    compiled ahead of time: its kernel images (`exec.kernel_module`, PTX or
    cubin) and its launches (`exec.kernel_launch`, with their grid, block
    and pointer arguments by uid).

    `graph-run` and the C API load an `exec.program` (text or MLIR
    bytecode) into the runtime's `GraphSpec`s and `CodegenSpec`s without
    running the compiler's passes: a cuDNN group's spec is built from its
    ops by the function that builds it for a live graph.
  }];
  let dependentDialects = ["::mlir::graph::GraphDialect"];
  let useDefaultAttributePrinterParser = 1;
}

class Exec_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Exec_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

class Exec_Op<string mnemonic, list<Trait> traits = []>
    : Op<Exec_Dialect, mnemonic, traits>;

#endif // EXEC_DIALECT_TD
