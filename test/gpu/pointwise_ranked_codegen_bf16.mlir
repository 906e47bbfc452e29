// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=4 --check-against=cpu --verbose-plans %s | FileCheck %s
// CHECK: plan: swiglu_backward/group0:
// CHECK: (ranked by time in {{[0-9.]+}} s (cuDNN plan builds {{[0-9.]+}} s, waiting for generated compiles {{[0-9.]+}} s, timing and checks {{[0-9.]+}} s): {{.*}} first)
// CHECK: (codegen_v2_{{.*}}: timed
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: the SwiGLU gradient of a Llama MLP (6 pointwise ops, bf16 in and
// out, 96 MB), a group both cuDNN and the generated kernels run. cuDNN
// ranks first, so the ranking by time also times the first generated
// plans against cuDNN's (GroupPlans::rankByTime); whichever runs is
// checked against the CPU reference.
// GPU-ARGS: --random-inputs=4 --check-against=cpu
graph.graph @swiglu_backward(%gate: tensor<4096x2048xbf16> {graph.name = "gate"},
                             %up: tensor<4096x2048xbf16> {graph.name = "up"},
                             %dact: tensor<4096x2048xbf16> {graph.name = "dact"})
    -> (tensor<4096x2048xbf16>, tensor<4096x2048xbf16>, tensor<4096x2048xbf16>)
    attributes {compute_data_type = f32} {
  %s = graph.pointwise swish(%gate) : (tensor<4096x2048xbf16>) -> tensor<4096x2048xf32>
  %act = graph.pointwise mul(%s, %up) : (tensor<4096x2048xf32>, tensor<4096x2048xbf16>) -> tensor<4096x2048xbf16>
  %s2 = graph.pointwise swish(%gate) : (tensor<4096x2048xbf16>) -> tensor<4096x2048xf32>
  %dup = graph.pointwise mul(%dact, %s2) : (tensor<4096x2048xbf16>, tensor<4096x2048xf32>) -> tensor<4096x2048xbf16>
  %gin = graph.pointwise mul(%dact, %up) : (tensor<4096x2048xbf16>, tensor<4096x2048xbf16>) -> tensor<4096x2048xf32>
  %dgate = graph.pointwise swish_backward(%gin, %gate) : (tensor<4096x2048xf32>, tensor<4096x2048xbf16>) -> tensor<4096x2048xbf16>
  graph.output %act, %dup, %dgate : tensor<4096x2048xbf16>, tensor<4096x2048xbf16>, tensor<4096x2048xbf16>
}
