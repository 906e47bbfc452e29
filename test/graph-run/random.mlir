// --random-inputs and --input=X=random are reproducible: the same seed gives
// the same data, per input (independent of the other inputs), and a
// different seed gives other data. Integer lengths get their legal maximum.

// RUN: rm -rf %t && mkdir -p %t
// RUN: graph-run %s --device=cpu --random-inputs=7 --output-dir=%t/a | FileCheck %s
// RUN: graph-run %s --device=cpu --random-inputs=7 --output-dir=%t/b
// RUN: %python %S/Inputs/npy_tool.py same %t/a/xs.npy %t/b/xs.npy
// RUN: %python %S/Inputs/npy_tool.py same %t/a/o.npy %t/b/o.npy
// RUN: graph-run %s --device=cpu --random-inputs=8 --output-dir=%t/c
// RUN: %python %S/Inputs/npy_tool.py differ %t/a/xs.npy %t/c/xs.npy
// An explicit --input=X=random draws the same data as --random-inputs.
// RUN: graph-run %s --device=cpu --random-inputs=7 --input=x=random --output-dir=%t/d
// RUN: %python %S/Inputs/npy_tool.py same %t/a/xs.npy %t/d/xs.npy
// Giving one input explicitly does not change the others' data.
// RUN: graph-run %s --device=cpu --random-inputs=7 --input=i="2x3xi32=0 0 0 0 0 0" --output-dir=%t/e
// RUN: %python %S/Inputs/npy_tool.py same %t/a/xs.npy %t/e/xs.npy

// Floats in [-1, 1); integers small and non-negative; sdpa lengths full.
// CHECK: result[0] (uid {{[0-9]+}} "xs"): 1x1xf32={{\[\[-?[0-9.e-]+\]\]}}
// CHECK: result[1] (uid {{[0-9]+}} "x_in_range"): 2x8xi1={{\[}}[1 1 1 1 1 1 1 1] [1 1 1 1 1 1 1 1]]
// CHECK: result[2] (uid {{[0-9]+}} "i_in_range"): 2x3xi1={{\[}}[1 1 1] [1 1 1]]
// CHECK: result[3] (uid {{[0-9]+}} "lens"): 2x1x1x1xi32={{\[}}{{\[}}{{\[}}[16]]] {{\[}}{{\[}}[16]]]]

graph.graph @random(%x: tensor<2x8xf32> {graph.name = "x"},
                    %i: tensor<2x3xi32> {graph.name = "i"},
                    %q: tensor<2x1x16x8xbf16> {graph.name = "q"},
                    %len: tensor<2x1x1x1xi32> {graph.name = "len"})
    -> (tensor<1x1xf32> {graph.name = "xs"}, tensor<2x8xi1> {graph.name = "x_in_range"},
        tensor<2x3xi1> {graph.name = "i_in_range"}, tensor<2x1x1x1xi32> {graph.name = "lens"},
        tensor<2x1x16x8xbf16> {graph.name = "o"}) {
  %one = graph.scalar 1.0 : f32 -> tensor<1x1xf32>
  %four = graph.scalar 4 : i32 -> tensor<1x1xi32>
  %s = graph.reduction add %x : (tensor<2x8xf32>) -> tensor<1x1xf32>
  %a = graph.pointwise abs(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %xr = graph.pointwise cmp_le(%a, %one) : (tensor<2x8xf32>, tensor<1x1xf32>) -> tensor<2x8xi1>
  %ir = graph.pointwise cmp_lt(%i, %four) : (tensor<2x3xi32>, tensor<1x1xi32>) -> tensor<2x3xi1>
  %l = graph.pointwise identity(%len) : (tensor<2x1x1x1xi32>) -> tensor<2x1x1x1xi32>
  %o = graph.sdpa %q, %q, %q seq_len_q %len seq_len_kv %len {use_padding_mask}
      : (tensor<2x1x16x8xbf16>, tensor<2x1x16x8xbf16>, tensor<2x1x16x8xbf16>, tensor<2x1x1x1xi32>, tensor<2x1x1x1xi32>)
        -> (tensor<2x1x16x8xbf16>, none, none, none)
  graph.output %s, %xr, %ir, %l, %o : tensor<1x1xf32>, tensor<2x8xi1>, tensor<2x3xi1>, tensor<2x1x1x1xi32>, tensor<2x1x16x8xbf16>
}
