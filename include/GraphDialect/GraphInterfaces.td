//===- GraphInterfaces.td - Interfaces of the graph dialect -*- tablegen -*-===//

#ifndef GRAPH_INTERFACES_TD
#define GRAPH_INTERFACES_TD

include "mlir/IR/OpBase.td"

def Graph_ShapeRuleOpInterface : OpInterface<"ShapeRuleOpInterface"> {
  let cppNamespace = "::mlir::graph";
  let description = [{
    The shape rule of a node op: the dims of its results from the dims of
    its operands and its attributes, the one rule the verifier checks and
    the builders (the C API's graphBuilderOp, the Python package) fill in
    result dims from. `inferResultDims` reads the operands and attributes,
    never the result types, so it runs on an op whose results are
    placeholders, after the checks every node op passes first (dims
    positive or dynamic) and its ODS constraints (`verifyConstraints`). It
    fails with a diagnostic naming the op, the port and
    the rule when the operands do not fit together, and records in
    `ResultDims`, per result, the dims the rule determines: `set` for dims
    the verifier requires, `suggest` for a default the user may change
    within the rule (a convolution's data gradient with groups or a
    stride remainder). A result it records nothing for is not inferable:
    its dims are the user's choice (a reduction's kept dims, a reshape).

    ```c++
    ResultDims dims;
    if (failed(cast<ShapeRuleOpInterface>(op).inferResultDims(dims)))
      return failure(); // the operands do not fit: diagnosed
    for (const ResultDims::Entry &e : dims.entries()) ...
    ```
  }];
  let methods = [
    InterfaceMethod<[{
        Checks the operands and attributes and records the dims the rule
        gives each result it determines.
      }],
      "::llvm::LogicalResult", "inferResultDims",
      (ins "::mlir::graph::ResultDims &":$dims)>,
    InterfaceMethod<[{
        The op's ODS constraints (operand and result types, required
        attributes), which inferResultDims relies on, as the verifier
        checks them before it; for a caller that runs the rule on an op it
        does not verify.
      }],
      "::llvm::LogicalResult", "verifyConstraints", (ins), [{}],
      [{ return $_op.verifyInvariantsImpl(); }]>,
  ];
}

#endif // GRAPH_INTERFACES_TD
