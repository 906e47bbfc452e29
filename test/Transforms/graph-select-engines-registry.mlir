// Each engine's decision for representative ops, through the engine
// registry (GraphDialect/Engines/Engine.h): ranking all three engines lists,
// per op, every engine whose rule accepts it, in the given order. The
// reference engine (the CPU oracle) accepts everything.
// RUN: graph-opt %s -split-input-file --graph-fuse --graph-select-engines=engines=cudnn,codegen,reference | FileCheck %s --check-prefix=ALL
// RUN: graph-opt %s -split-input-file --graph-fuse --graph-select-engines=engines=reference | FileCheck %s --check-prefix=REF
// RUN: graph-opt %s -split-input-file --graph-fuse --graph-select-engines=engines=reference,codegen | FileCheck %s --check-prefix=ORDER
// RUN: not graph-opt %s -split-input-file --graph-fuse --graph-select-engines=engines=tensorrt 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// ALL-LABEL: graph.graph @per_op
// ALL: group 0 engines [#graph.engine<cudnn, {{[^>]*}}>, #graph.engine<reference, plans = ["reference_cpu"]>] (
// ALL-NEXT: matmul
// ALL: group 1 engines [#graph.engine<codegen, {{[^>]*}}>, #graph.engine<reference, {{[^>]*}}>] (
// ALL-NEXT: transpose
// ALL: group 2 engines [#graph.engine<reference, {{[^>]*}}>] (
// ALL-NEXT: pointwise exp(
// ALL: group 3 engines [#graph.engine<cudnn, {{[^>]*}}>, #graph.engine<reference, {{[^>]*}}>] (
// ALL-NEXT: batchnorm
// ALL: group 4 engines [#graph.engine<codegen, {{[^>]*}}>, #graph.engine<reference, {{[^>]*}}>] (
// ALL-NEXT: rope
// ALL: group 5 engines [#graph.engine<cudnn, {{[^>]*}}>, #graph.engine<codegen, {{[^>]*}}>, #graph.engine<reference, {{[^>]*}}>] (
// ALL-NEXT: reduction add
// ALL: group 6 engines [#graph.engine<cudnn, {{[^>]*}}>, #graph.engine<reference, {{[^>]*}}>] (
// ALL-NEXT: reduction add {{.*}} group_offset
// REF-LABEL: graph.graph @per_op
// REF-COUNT-7: engines [#graph.engine<reference, plans = ["reference_cpu"]>] (
// REF-NOT: #graph.engine<
// ORDER-LABEL: graph.graph @per_op
// ORDER: group 0 engines [#graph.engine<reference, {{[^>]*}}>] (
// ORDER-NEXT: matmul
// ORDER: group 1 engines [#graph.engine<reference, {{[^>]*}}>, #graph.engine<codegen, {{[^>]*}}>] (
// ORDER-NEXT: transpose
// UNKNOWN: matmul: no engine can run this op; tried:
// UNKNOWN-NEXT: tensorrt: unknown engine 'tensorrt'
graph.graph @per_op(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>, %c: tensor<4x4xf32>,
                    %d: tensor<4x4xf64>, %x: tensor<2x16x8x8xf16>,
                    %g: tensor<1x16x1x1xf32>, %bb: tensor<1x16x1x1xf32>,
                    %eps: tensor<1x1x1x1xf32>, %q: tensor<2x8x128x64xbf16>,
                    %f: tensor<1x1x128x32xf32>, %off: tensor<3xi32>)
    -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf64>, tensor<2x16x8x8xf16>,
        tensor<2x8x128x64xbf16>, tensor<4x1xf32>, tensor<4x1xf32>) {
  %m = graph.matmul %a, %b : (tensor<4x8xf16>, tensor<8x4xf16>) -> tensor<4x4xf32>
  %t = graph.transpose %c {permutation = array<i64: 1, 0>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %e = graph.pointwise exp(%d) : (tensor<4x4xf64>) -> tensor<4x4xf64>
  %y, %mean, %iv = graph.batchnorm %x, scale %g, bias %bb, epsilon %eps : (tensor<2x16x8x8xf16>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<2x16x8x8xf16>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, none, none)
  %rp = graph.rope %q, freqs %f : (tensor<2x8x128x64xbf16>, tensor<1x1x128x32xf32>) -> tensor<2x8x128x64xbf16>
  %s = graph.reduction add %c : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %ragged = graph.reduction add %c group_offset %off : (tensor<4x4xf32>, tensor<3xi32>) -> tensor<4x1xf32>
  graph.output %m, %t, %e, %y, %rp, %s, %ragged : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf64>, tensor<2x16x8x8xf16>, tensor<2x8x128x64xbf16>, tensor<4x1xf32>, tensor<4x1xf32>
}

// -----

// The mixture-of-experts grouped matmul lowers to cuDNN's MoE operation.
// ALL-LABEL: graph.graph @moe
// ALL: group 0 engines [#graph.engine<cudnn, {{[^>]*}}>, #graph.engine<reference, {{[^>]*}}>] (
// ALL-NEXT: moe_grouped_matmul
// REF-LABEL: graph.graph @moe
graph.graph @moe(%t: tensor<1x64x32xbf16>, %w: tensor<4x32x16xbf16>, %o: tensor<4x1x1xi32>) -> tensor<1x64x16xbf16> {
  %y = graph.moe_grouped_matmul %t, %w, offsets %o : (tensor<1x64x32xbf16>, tensor<4x32x16xbf16>, tensor<4x1x1xi32>) -> tensor<1x64x16xbf16>
  graph.output %y : tensor<1x64x16xbf16>
}
