// RUN: graph-opt %s -split-input-file -verify-diagnostics --graph-lower-to-executable="kernels=prefer" | FileCheck %s
// RUN: not graph-opt %s --graph-lower-to-executable="kernels=sometimes" 2>&1 | FileCheck %s --check-prefix=OPTION

// No codegen plan of the group compiles (the plan names are no codegen_v2
// plans): with cuDNN on the group's engine list it stays a cuDNN group with
// a warning that lists each plan's reason; with codegen alone it is an
// error.

// OPTION: error: graph-lower-to-executable: kernels='sometimes': expected auto, prefer or never

// CHECK-LABEL: exec.program @fallback
// CHECK-NEXT: exec.cudnn_group "fallback/group0"
// expected-warning-re @below {{group fallback/group0 stays a cuDNN group: no codegen plan compiled:{{[[:space:]]+}}codegen_v2_t2048_i1: unknown codegen plan 'codegen_v2_t2048_i1'{{[[:space:]]+}}codegen_v2_t64_i99: unknown codegen plan 'codegen_v2_t64_i99'}}
graph.graph @fallback(%arg0: tensor<128x1024xbf16, #graph.strides<[1024, 1]>> {graph.uid = 1 : i64}, %arg1: tensor<1x1024xbf16, #graph.strides<[1024, 1]>> {graph.uid = 2 : i64}) -> (tensor<128x1024xbf16, #graph.strides<[1024, 1]>> {graph.uid = 3 : i64}) {
  %0 = graph.group 0 engines [#graph.engine<cudnn, plans = ["heuristics"]>, #graph.engine<codegen, plans = ["codegen_v2_t2048_i1", "codegen_v2_t64_i99"]>] (%arg2 = %arg0 : tensor<128x1024xbf16, #graph.strides<[1024, 1]>>, %arg3 = %arg1 : tensor<1x1024xbf16, #graph.strides<[1024, 1]>>) -> tensor<128x1024xbf16, #graph.strides<[1024, 1]>> {
    %1 = graph.pointwise add(%arg2, %arg3) : (tensor<128x1024xbf16, #graph.strides<[1024, 1]>>, tensor<1x1024xbf16, #graph.strides<[1024, 1]>>) -> tensor<128x1024xf32, #graph.strides<[1024, 1]>>
    %2 = graph.pointwise tanh(%1) : (tensor<128x1024xf32, #graph.strides<[1024, 1]>>) -> tensor<128x1024xbf16, #graph.strides<[1024, 1]>>
    graph.yield %2 : tensor<128x1024xbf16, #graph.strides<[1024, 1]>>
  }
  graph.output %0 : tensor<128x1024xbf16, #graph.strides<[1024, 1]>>
}

// -----

// expected-error-re @below {{cannot lower graph @only to an exec.program: group only/group0 runs only on generated kernels and no codegen plan compiled:{{[[:space:]]+}}codegen_v2_t2048_i1: unknown codegen plan 'codegen_v2_t2048_i1'}}
graph.graph @only(%arg0: tensor<128x1024xbf16, #graph.strides<[1024, 1]>> {graph.uid = 1 : i64}, %arg1: tensor<1x1024xbf16, #graph.strides<[1024, 1]>> {graph.uid = 2 : i64}) -> (tensor<128x1024xbf16, #graph.strides<[1024, 1]>> {graph.uid = 3 : i64}) {
  %0 = graph.group 0 engines [#graph.engine<codegen, plans = ["codegen_v2_t2048_i1"]>] (%arg2 = %arg0 : tensor<128x1024xbf16, #graph.strides<[1024, 1]>>, %arg3 = %arg1 : tensor<1x1024xbf16, #graph.strides<[1024, 1]>>) -> tensor<128x1024xbf16, #graph.strides<[1024, 1]>> {
    %1 = graph.pointwise add(%arg2, %arg3) : (tensor<128x1024xbf16, #graph.strides<[1024, 1]>>, tensor<1x1024xbf16, #graph.strides<[1024, 1]>>) -> tensor<128x1024xf32, #graph.strides<[1024, 1]>>
    %2 = graph.pointwise tanh(%1) : (tensor<128x1024xf32, #graph.strides<[1024, 1]>>) -> tensor<128x1024xbf16, #graph.strides<[1024, 1]>>
    graph.yield %2 : tensor<128x1024xbf16, #graph.strides<[1024, 1]>>
  }
  graph.output %0 : tensor<128x1024xbf16, #graph.strides<[1024, 1]>>
}
