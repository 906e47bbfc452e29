// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=5 --check-against=cpu --verbose-plans %s | FileCheck %s
// RUN: env GRAPH_RANK_PLANS=0 graph-run --device=gpu --print-max-elements=0 --random-inputs=5 --check-against=cpu --verbose-plans %s | FileCheck %s --check-prefix=OFF
// CHECK: plan: conv_ranked/group0:
// CHECK: (ranked by time in {{[0-9.]+}} s (cuDNN plan builds {{[0-9.]+}} s, waiting for generated compiles {{[0-9.]+}} s, timing and checks {{[0-9.]+}} s): {{.*}} first)
// CHECK: timed
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// OFF-NOT: ranked by time
// OFF: [SUCCESS]
// GPU: the ResNet bottleneck's last group at batch 16 (1x1 conv 64 -> 256,
// batchnorm folded to scale and shift, residual add, relu; fp16
// channels-last): its device tensors span 58 MB, over the 32 MiB from which
// a group's plan list is ranked by time (GroupPlans::rankByTime), so the
// report names the plan listed first and each timed plan, and the plan that
// runs is checked against the CPU reference.
// GPU-ARGS: --random-inputs=5 --check-against=cpu
graph.graph @conv_ranked(%x: tensor<16x64x56x56xf16, #graph.strides<[200704, 1, 3584, 64]>> {graph.name = "x"},
                         %w: tensor<256x64x1x1xf16, #graph.strides<[64, 1, 64, 64]>> {graph.name = "w"},
                         %scale: tensor<1x256x1x1xf32> {graph.name = "scale"},
                         %shift: tensor<1x256x1x1xf32> {graph.name = "shift"},
                         %r: tensor<16x256x56x56xf16, #graph.strides<[802816, 1, 14336, 256]>> {graph.name = "residual"})
    -> (tensor<16x256x56x56xf16, #graph.strides<[802816, 1, 14336, 256]>> {graph.name = "y"})
    attributes {compute_data_type = f32} {
  %c = graph.conv_fprop %x, %w {padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<16x64x56x56xf16, #graph.strides<[200704, 1, 3584, 64]>>, tensor<256x64x1x1xf16, #graph.strides<[64, 1, 64, 64]>>) -> tensor<16x256x56x56xf32>
  %s = graph.pointwise mul(%c, %scale) : (tensor<16x256x56x56xf32>, tensor<1x256x1x1xf32>) -> tensor<16x256x56x56xf32>
  %b = graph.pointwise add(%s, %shift) : (tensor<16x256x56x56xf32>, tensor<1x256x1x1xf32>) -> tensor<16x256x56x56xf32>
  %a = graph.pointwise add(%b, %r) : (tensor<16x256x56x56xf32>, tensor<16x256x56x56xf16, #graph.strides<[802816, 1, 14336, 256]>>) -> tensor<16x256x56x56xf32>
  %y = graph.pointwise relu(%a) : (tensor<16x256x56x56xf32>) -> tensor<16x256x56x56xf16, #graph.strides<[802816, 1, 14336, 256]>>
  graph.output %y : tensor<16x256x56x56xf16, #graph.strides<[802816, 1, 14336, 256]>>
}
