// --tap=NAME also returns the results of the op labelled NAME, after the
// graph's own outputs, so --check-against compares intermediates one by
// one (how DiT's wrong GPU answer was traced to one fused group). Values
// are exact: x = [1 2 3 4], s = x * 2 = [2 4 6 8], y = s + 1.

// RUN: graph-run %s --device=cpu --random-inputs=1 --input=x="1x4xf32=1 2 3 4" --tap=double --tap=norm | FileCheck %s
// CHECK: result[0] (uid {{[0-9]+}} "y"): 1x4xf32={{\[}}[3 5 7 9]]
// CHECK-NEXT: result[1] (uid {{[0-9]+}} "tap:double"): 1x4xf32={{\[}}[2 4 6 8]]
// A norm's optional results that are absent are skipped; the present
// ones are tapped, numbered after the first.
// CHECK-NEXT: result[2] (uid {{[0-9]+}} "tap:norm"): 1x4xf32=
// CHECK-NEXT: result[3] (uid {{[0-9]+}} "tap:norm#1"): 1x1xf32=
// CHECK-NEXT: result[4] (uid {{[0-9]+}} "tap:norm#2"): 1x1xf32=

// RUN: not graph-run %s --device=cpu --random-inputs=1 --tap=nothing 2>&1 | FileCheck %s --check-prefix=NONE
// NONE: graph-run: error: tap: no op of graph @tap is named 'nothing' (the named ops: double, plus_one, norm, twice, twice)
// RUN: not graph-run %s --device=cpu --random-inputs=1 --tap=twice 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: graph-run: error: tap: 2 ops of graph @tap are named 'twice'; name them apart to tap one

graph.graph @tap(%x: tensor<1x4xf32> {graph.name = "x"}, %g: tensor<1x4xf32> {graph.name = "g"},
                 %b: tensor<1x4xf32> {graph.name = "b"})
    -> (tensor<1x4xf32> {graph.name = "y"}) attributes {compute_data_type = f32} {
  %two = graph.scalar 2.0 : f32 -> tensor<1x1xf32>
  %one = graph.scalar 1.0 : f32 -> tensor<1x1xf32>
  %eps = graph.scalar 1.0e-05 : f32 -> tensor<1x1xf32>
  %s = graph.pointwise mul(%x, %two) {name = "double"} : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>
  %y = graph.pointwise add(%s, %one) {name = "plus_one"} : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>
  %n, %m, %v = graph.layernorm training %x, scale %g, bias %b, epsilon %eps {name = "norm"} : (tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x1xf32>) -> (tensor<1x4xf32>, tensor<1x1xf32>, tensor<1x1xf32>)
  %t1 = graph.pointwise add(%x, %one) {name = "twice"} : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>
  %t2 = graph.pointwise add(%x, %two) {name = "twice"} : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>
  graph.output %y : tensor<1x4xf32>
}
