// uid 0 is a uid (the frontend accepts it): --input=0=... binds it, results
// and messages name it, and graph-prepare hands out 1 up around it.

// RUN: graph-run %s --device=cpu --input=0="2x2xf32=1 2 3 4" --input=1="1x2xf32=10 20" | FileCheck %s
// CHECK: result[0] (uid 2 "y"): 2x2xf32={{\[}}[11 22] [13 24]]
// CHECK-NEXT: result[1] (uid 3): 2x2xf32={{\[}}[-1 -2] [-3 -4]]
// CHECK-NOT: result

// RUN: not graph-run %s --device=cpu --input=1="1x2xf32=10 20" 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: graph-run: error: missing input uid 0 "a" (2x2xf32): give it with --input=0=@FILE.npy

// RUN: graph-run %s --device=cpu --random-inputs=3 | FileCheck %s --check-prefix=RANDOM
// RANDOM: result[0] (uid 2 "y"): 2x2xf32=

graph.graph @uid_zero(%a: tensor<2x2xf32> {graph.uid = 0 : i64, graph.name = "a"},
                      %b: tensor<1x2xf32>)
    -> (tensor<2x2xf32> {graph.name = "y"}, tensor<2x2xf32>) {
  %y = graph.pointwise add(%a, %b) : (tensor<2x2xf32>, tensor<1x2xf32>) -> tensor<2x2xf32>
  %n = graph.pointwise neg(%a) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  graph.output %y, %n : tensor<2x2xf32>, tensor<2x2xf32>
}
