// Dynamic dims are bound from the given inputs.

// RUN: graph-run %s --device=cpu --input=x="3x2xf32=1 2 3 4 5 6" | FileCheck %s --check-prefix=THREE
// THREE: result[0] (uid 2 "y"): 3x1xf32={{\[}}[3] [7] [11]]
// RUN: graph-run %s --device=cpu --input=x="1x2xf32=5 6" | FileCheck %s --check-prefix=ONE
// ONE: result[0] (uid 2 "y"): 1x1xf32={{\[}}[11]]
// RUN: not graph-run %s --input=x="3x3xf32=1 2 3 4 5 6 7 8 9" 2>&1 | FileCheck %s --check-prefix=STATIC
// STATIC: graph-run: error: input uid 1 "x": expected ?x2xf32, given 3x3xf32
// RUN: not graph-run %s --random-inputs=1 2>&1 | FileCheck %s --check-prefix=RANDOM
// RANDOM: graph-run: error: input uid 1 "x" has dynamic dims (?x2x...): random data needs them; give the input with --input

graph.graph @dynamic(%x: tensor<?x2xf32> {graph.name = "x"}) -> (tensor<?x1xf32> {graph.name = "y"}) {
  %s = graph.reduction add %x : (tensor<?x2xf32>) -> tensor<?x1xf32>
  graph.output %s : tensor<?x1xf32>
}
