// RUN: graph-opt %s --graph-prepare --graph-fuse --graph-select-engines --graph-lower-to-executable | FileCheck %s

// Philox dropout lowers to one cuDNN group: the rng (seed, offset -> the keep
// mask, a graph output here: the frontend's rng_dump) and the sdpa that reads
// the mask as its dropout_mask.
// CHECK: exec.cudnn_group
// CHECK-NEXT: ^bb0(%[[SEED:[^:]+]]: tensor<1x1x1x1xi64{{[^>]*}}>>, %[[OFF:[^:]+]]: tensor<1x1x1x1xi64
// CHECK-NEXT: %[[MASK:.+]] = graph.rng %[[SEED]], %[[OFF]] {bernoulli_probability = 7.500000e-01 : f64}
// CHECK-NEXT: %[[O:.+]] = graph.sdpa %{{.+}}, %{{.+}}, %{{.+}} dropout_mask %[[MASK]]
// CHECK-NEXT: exec.yield %[[MASK]], %[[O]]
// CHECK-NOT: exec.cudnn_group
graph.graph @dropout(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>,
                     %seed: tensor<1x1x1x1xi64>, %offset: tensor<1x1x1x1xi64>)
    -> (tensor<1x2x8x16xbf16>, tensor<1x2x8x8xf32>) attributes {compute_data_type = f32} {
  %keep = graph.rng %seed, %offset {bernoulli_probability = 0.75 : f64} : (tensor<1x1x1x1xi64>, tensor<1x1x1x1xi64>) -> tensor<1x2x8x8xf32>
  %o = graph.sdpa %q, %k, %v dropout_mask %keep {dropout_probability = 0.25 : f64}
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x8xf32>) -> (tensor<1x2x8x16xbf16>, none, none, none)
  graph.output %o, %keep : tensor<1x2x8x16xbf16>, tensor<1x2x8x8xf32>
}
