// Hand-computed graphs with inline inputs: printing format, uids and names,
// graph-prepare on a graph without uids, the --device choices.

// RUN: graph-run %s --device=cpu --input=a="2x2xf32=1 2 3 4" --input=b="2x2xf32=[[5 6] [7 8]]" --input=3="1x2xf32=10,20" | FileCheck %s
// RUN: graph-run %s --input=a="2x2xf32=1 2 3 4" --input=b="2x2xf32=5 6 7 8" --input=bias="1x2xf32=10 20" 2>&1 | FileCheck %s --check-prefixes=CHECK,AUTO
// RUN: graph-run %s --device=cpu --input=1="2x2xf32=1 2 3 4" --input=2="2x2xf32=5 6 7 8" --input=3="1x2xf32=10 20" --print-max-elements=3 | FileCheck %s --check-prefix=CAP
// RUN: graph-run %s --device=cpu --input=1="2x2xf32=1 2 3 4" --input=2="2x2xf32=5 6 7 8" --input=3="1x2xf32=10 20" --print-max-elements=0 | FileCheck %s --check-prefix=NONE

// [[1 2] [3 4]] @ [[5 6] [7 8]] = [[19 22] [43 50]]; + [10 20]; relu(-x).
// AUTO: graph-run: note: running on the CPU reference executor (the GPU device is not available: {{.+}})
// CHECK: result[0] (uid 4 "y"): 2x2xf32={{\[}}[29 42] [53 70]]
// CHECK-NEXT: result[1] (uid 5): 2x2xf32={{\[}}[0 0] [0 0]]
// CHECK-NEXT: result[2] (uid 6 "sum"): 1x1xf32={{\[}}[194]]
// CHECK-NOT: result

// CAP: result[0] (uid 4 "y"): 2x2xf32={{\[}}[29 42] [53 ...]]
// NONE: result[0] (uid 4 "y"): 2x2xf32=...{{$}}

graph.graph @affine(%a: tensor<2x2xf32> {graph.name = "a"},
                    %b: tensor<2x2xf32> {graph.name = "b"},
                    %bias: tensor<1x2xf32> {graph.name = "bias"})
    -> (tensor<2x2xf32> {graph.name = "y"}, tensor<2x2xf32>,
        tensor<1x1xf32> {graph.name = "sum"}) {
  %mm = graph.matmul %a, %b : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %y = graph.pointwise add(%mm, %bias) : (tensor<2x2xf32>, tensor<1x2xf32>) -> tensor<2x2xf32>
  %n = graph.pointwise neg(%y) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = graph.pointwise relu(%n) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %s = graph.reduction add %y : (tensor<2x2xf32>) -> tensor<1x1xf32>
  graph.output %y, %r, %s : tensor<2x2xf32>, tensor<2x2xf32>, tensor<1x1xf32>
}
