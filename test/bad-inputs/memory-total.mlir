// Issue 13, item 2: the host memory check counts what a run holds in total,
// not each buffer alone: two inputs that each fit under the limit but not
// together fail at the second, naming it, the bytes it needs and the bytes
// left. The CPU reference then counts the inputs, its double copies of them,
// its intermediates and the outputs the same way.

// Each 1000x100xf32 input is 400000 bytes; together 800000 > 600000.
// RUN: env GRAPH_HOST_MEMORY_LIMIT=600000 not graph-run %s --device=cpu --graph=two --random-inputs=1 2>&1 | FileCheck %s --check-prefix=INPUTS
// INPUTS: graph-run: error: input uid 2 "y" (1000x100xf32) needs 400000 bytes but only 200000 bytes of host memory are available (GRAPH_HOST_MEMORY_LIMIT: 600000 bytes, 400000 of them already held by this run)
// INPUTS-NOT: LLVM ERROR

// The same through --input: the inputs are counted together whatever their source.
// RUN: env GRAPH_HOST_MEMORY_LIMIT=600000 not graph-run %s --device=cpu --graph=two --input=x=random --input=y=1000x100xf32=random 2>&1 | FileCheck %s --check-prefix=INPUTS

// The inputs fit (800000 bytes), the reference's double copies of them do
// not both: y's copy (800000 bytes) is the first that no longer fits.
// RUN: env GRAPH_HOST_MEMORY_LIMIT=2000000 not graph-run %s --device=cpu --graph=two --random-inputs=1 2>&1 | FileCheck %s --check-prefix=COPIES
// COPIES: graph-run: error: graph @two: input 1 (uid 2 "y") (1000x100, held as double by the CPU reference) needs 800000 bytes but only 400000 bytes of host memory are available (GRAPH_HOST_MEMORY_LIMIT: 2000000 bytes, 1600000 of them already held by this run)

// Enough for all of it: inputs 800000, copies 1600000, the sum 800000, the
// output 400000.
// RUN: env GRAPH_HOST_MEMORY_LIMIT=3600000 graph-run %s --device=cpu --graph=two --random-inputs=1 --print-max-elements=0 | FileCheck %s --check-prefix=OK
// OK: result[0] (uid 3 "s"): 1000x100xf32=...

// One byte less and the output is what no longer fits.
// RUN: env GRAPH_HOST_MEMORY_LIMIT=3599999 not graph-run %s --device=cpu --graph=two --random-inputs=1 2>&1 | FileCheck %s --check-prefix=SHORT
// SHORT: graph-run: error: graph @two: output 0 (uid 3 "s") (1000x100) needs 400000 bytes but only 399999 bytes of host memory are available (GRAPH_HOST_MEMORY_LIMIT: 3599999 bytes, 3200000 of them already held by this run)

graph.graph @two(%x: tensor<1000x100xf32> {graph.name = "x"}, %y: tensor<1000x100xf32> {graph.name = "y"}) -> (tensor<1000x100xf32> {graph.name = "s"}) {
  %s = graph.pointwise add(%x, %y) : (tensor<1000x100xf32>, tensor<1000x100xf32>) -> tensor<1000x100xf32>
  graph.output %s : tensor<1000x100xf32>
}
