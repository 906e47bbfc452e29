// RUN: graph-opt %s -split-input-file -verify-diagnostics --graph-fuse --graph-select-engines | FileCheck %s

// A group cuDNN takes whole lists cuDNN alone, with the plan it proposes
// (its heuristics), on the graph.group.
// CHECK-LABEL: graph.graph @all_cudnn
// CHECK-NEXT: %[[G:.*]] = group 0 engines [#graph.engine<cudnn, plans = ["heuristics"]>] (
// CHECK-NEXT: matmul
// CHECK-NEXT: pointwise relu(
// CHECK-NEXT: yield
// CHECK-NEXT: }
// CHECK-NEXT: output %[[G]]
graph.graph @all_cudnn(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>) -> tensor<4x4xf16> {
  %m = graph.matmul %a, %b : (tensor<4x8xf16>, tensor<8x4xf16>) -> tensor<4x4xf32>
  %r = graph.pointwise relu(%m) : (tensor<4x4xf32>) -> tensor<4x4xf16>
  graph.output %r : tensor<4x4xf16>
}

// -----

// A group one op of which no engine takes is split into single ops, and the
// split keeps the schedule order; the op nothing runs is the error.
graph.graph @nothing_runs(%a: tensor<4x8xf64>, %b: tensor<8x4xf64>) -> tensor<4x4xf64> {
  // expected-error @below {{matmul "mm": no engine can run this op; tried:}}
  %m = graph.matmul %a, %b {name = "mm"} : (tensor<4x8xf64>, tensor<8x4xf64>) -> tensor<4x4xf64>
  graph.output %m : tensor<4x4xf64>
}

// -----

// By default both engines are ranked; each one's reason is listed.
graph.graph @unsupported_op(%t: tensor<4x8xf64>) -> tensor<8x4xf64> {
  // expected-error-re @below {{transpose: no engine can run this op; tried:{{[[:space:]]+}}cudnn: cuDNN's fused engines have no f64 path{{[[:space:]]+}}codegen: generated kernels take f32, f16, bf16, fp8, fp4, i1 and i32 tensors only}}
  %x = graph.transpose %t {permutation = array<i64: 1, 0>} : (tensor<4x8xf64>) -> tensor<8x4xf64>
  graph.output %x : tensor<8x4xf64>
}

// -----

// A batchnorm whose epsilon and momentum are f64 (the frontend's programs
// pass torch float64 CPU tensors): cuDNN reads them on the host by value,
// so it still takes the op; an f64 activation it does not.
// CHECK-LABEL: graph.graph @f64_by_value_scalars
// CHECK: group 0 engines [#graph.engine<cudnn, plans = ["heuristics"]>]
// CHECK-NEXT: batchnorm
graph.graph @f64_by_value_scalars(%x: tensor<2x4x3x3xf16>, %s: tensor<1x4x1x1xf32>, %b: tensor<1x4x1x1xf32>, %rm: tensor<1x4x1x1xf32>, %rv: tensor<1x4x1x1xf32>, %eps: tensor<1x1x1x1xf64>, %mom: tensor<1x1x1x1xf64>) -> (tensor<2x4x3x3xf16>, tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>) {
  %y, %mean, %inv, %nrm, %nrv = graph.batchnorm %x, scale %s, bias %b, epsilon %eps running_mean %rm running_var %rv momentum %mom : (tensor<2x4x3x3xf16>, tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>, tensor<1x1x1x1xf64>, tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>, tensor<1x1x1x1xf64>) -> (tensor<2x4x3x3xf16>, tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>)
  graph.output %y, %mean, %inv, %nrm, %nrv : tensor<2x4x3x3xf16>, tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>
}

// -----

// cuDNN packs BOOLEAN tensors in memory one bit per element, the compiler's
// boolean buffers hold a byte: a group that writes a boolean to memory (the
// relu mask of a relu-bitmask program) goes to the generated kernels only,
// and one that merely computes a boolean inside (a select's mask) stays.
// CHECK-LABEL: graph.graph @boolean_in_memory
// CHECK: group 0 engines [#graph.engine<codegen
// CHECK-NOT: cudnn
// CHECK: pointwise cmp_gt
// CHECK-LABEL: graph.graph @boolean_inside
// CHECK: group 0 engines [#graph.engine<cudnn
graph.graph @boolean_in_memory(%x: tensor<4x8xf16>, %z: tensor<1x1xf32>) -> (tensor<4x8xf16>, tensor<4x8xi1>) {
  %y = graph.pointwise relu(%x) : (tensor<4x8xf16>) -> tensor<4x8xf16>
  %m = graph.pointwise cmp_gt(%y, %z) : (tensor<4x8xf16>, tensor<1x1xf32>) -> tensor<4x8xi1>
  graph.output %y, %m : tensor<4x8xf16>, tensor<4x8xi1>
}
graph.graph @boolean_inside(%x: tensor<4x8xf16>, %z: tensor<1x1xf32>) -> tensor<4x8xf16> {
  %m = graph.pointwise cmp_gt(%x, %z) : (tensor<4x8xf16>, tensor<1x1xf32>) -> tensor<4x8xi1>
  %y = graph.pointwise binary_select(%x, %z, %m) : (tensor<4x8xf16>, tensor<1x1xf32>, tensor<4x8xi1>) -> tensor<4x8xf16>
  graph.output %y : tensor<4x8xf16>
}

// -----

// A norm forward whose statistics are not f32 (the frontend's test_rmsnorm
// asks for a HALF inv_variance): cuDNN declines it (its plan leaves the
// output unwritten on the H200), the codegen engine runs it.
// CHECK-LABEL: graph.graph @rmsnorm_half_stats
// CHECK: group 0 engines [#graph.engine<codegen,
// CHECK-NEXT: rmsnorm training
graph.graph @rmsnorm_half_stats(%x: tensor<8x64x1x1xf16>, %s: tensor<1x64x1x1xf16>) -> (tensor<8x64x1x1xf16>, tensor<8x1x1x1xf16>) {
  %eps = graph.scalar 1.0e-03 : f32 -> tensor<1x1x1x1xf32>
  %y, %iv = graph.rmsnorm training %x, scale %s, epsilon %eps {name = "RMS"} : (tensor<8x64x1x1xf16>, tensor<1x64x1x1xf16>, tensor<1x1x1x1xf32>) -> (tensor<8x64x1x1xf16>, tensor<8x1x1x1xf16>)
  graph.output %y, %iv : tensor<8x64x1x1xf16>, tensor<8x1x1x1xf16>
}

// -----

// Its backward, fed that HALF inv_variance (test_rmsnorm's backward graph
// reads the forward's output): cuDNN declines it too (dX came out wrong on
// the H200), the codegen engine runs it.
// CHECK-LABEL: graph.graph @rmsnorm_backward_half_stats
// CHECK: group 0 engines [#graph.engine<codegen,
// CHECK-NEXT: rmsnorm_backward
graph.graph @rmsnorm_backward_half_stats(%dy: tensor<8x64x1x1xf16>, %x: tensor<8x64x1x1xf16>, %s: tensor<1x64x1x1xf16>, %iv: tensor<8x1x1x1xf16>) -> (tensor<8x64x1x1xf16>, tensor<1x64x1x1xf16>) {
  %dx, %ds = graph.rmsnorm_backward %dy, %x, scale %s, inv_variance %iv {has_dbias = false, name = "DRMS"} : (tensor<8x64x1x1xf16>, tensor<8x64x1x1xf16>, tensor<1x64x1x1xf16>, tensor<8x1x1x1xf16>) -> (tensor<8x64x1x1xf16>, tensor<1x64x1x1xf16>)
  graph.output %dx, %ds : tensor<8x64x1x1xf16>, tensor<1x64x1x1xf16>
}

// -----

// fp8 attention with an f16 O: the verifier takes it (the CPU reference
// runs it), cuDNN's engines do not on sm90 (H200, cuDNN 9.19: no engine
// config), so the GPU refuses it naming why.
graph.graph @fp8_attention_f16_out(%q: tensor<1x2x64x64xf8E4M3FN>, %s: tensor<1x1x1x1xf32>) -> tensor<1x2x64x64xf16> {
  // expected-error-re @below {{sdpa_fp8: no engine can run this op; tried:{{[[:space:]]+}}cudnn: cuDNN's fp8 attention writes an fp8 O only (no engine config for an f16/bf16 O on sm90, cuDNN 9.19)}}
  %o, %as, %ao = graph.sdpa_fp8 %q, %q, %q descale(%s, %s, %s, %s) scale(%s, %s) {use_causal_mask}
      : (tensor<1x2x64x64xf8E4M3FN>, tensor<1x2x64x64xf8E4M3FN>, tensor<1x2x64x64xf8E4M3FN>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<1x2x64x64xf16>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  graph.output %o : tensor<1x2x64x64xf16>
}
