// A Philox dropout mask (graph.rng) is cuDNN's random stream: the CPU
// reference does not reproduce it, so graph-run on the CPU declines the op by
// name with the way out, instead of answering with some other stream.
// RUN: not graph-run --device=cpu --random-inputs=3 %s 2>&1 | FileCheck %s
// CHECK: graph-run: error: graph @dropout: rng "keep": draws from cuDNN's Philox stream, which the CPU reference does not reproduce: run it on the GPU, or give the keep mask as an input (sdpa's dropout_mask)
graph.graph @dropout(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>,
                     %seed: tensor<1x1x1x1xi64>, %offset: tensor<1x1x1x1xi64>)
    -> (tensor<1x2x8x16xbf16>) attributes {compute_data_type = f32} {
  %keep = graph.rng %seed, %offset {bernoulli_probability = 0.75 : f64, name = "keep"} : (tensor<1x1x1x1xi64>, tensor<1x1x1x1xi64>) -> tensor<1x2x8x8xf32>
  %o = graph.sdpa %q, %k, %v dropout_mask %keep {dropout_probability = 0.25 : f64}
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x8xf32>) -> (tensor<1x2x8x16xbf16>, none, none, none)
  graph.output %o : tensor<1x2x8x16xbf16>
}
