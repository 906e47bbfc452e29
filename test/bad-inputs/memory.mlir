// Issue 13, class 2: an input or an intermediate the host cannot hold is a
// one-line error naming the input (or op), the bytes it needs and the limit,
// not "LLVM ERROR: out of memory". GRAPH_HOST_MEMORY_LIMIT (bytes) overrides
// /proc/meminfo's MemAvailable, so these cases do not depend on the machine.

// 2^20 x 2^20 f32 random data: 4 TiB, more than any host has.
// RUN: not graph-run %s --device=cpu --graph=big --random-inputs=1 2>&1 | FileCheck %s --check-prefix=RANDOM
// RANDOM: graph-run: error: input uid 1 "x" (1048576x1048576xf32) needs 4398046511104 bytes but only {{[0-9]+}} bytes of host memory are available ({{.+}})
// RANDOM-NOT: LLVM ERROR

// A dynamic dim bound to 2,000,000,000 rows.
// RUN: env GRAPH_HOST_MEMORY_LIMIT=1000000 not graph-run %s --device=cpu --graph=dyn --input=x="2000000000x3xf32=random" 2>&1 | FileCheck %s --check-prefix=BOUND
// BOUND: graph-run: error: input uid 1 "x" (2000000000x3xf32) needs 24000000000 bytes but only 1000000 bytes of host memory are available (GRAPH_HOST_MEMORY_LIMIT)

// The inputs fit, the reference's 1000x1000 intermediate (8 MB of double)
// does not: what is left is the limit less the inputs (8000 bytes) and the
// reference's double copies of them (16000 bytes).
// RUN: env GRAPH_HOST_MEMORY_LIMIT=100000 not graph-run %s --device=cpu --graph=bcast --random-inputs=1 2>&1 | FileCheck %s --check-prefix=RESULT
// RESULT: graph-run: error: graph @bcast: pointwise "outer": result 0 (1000x1000, held as double by the CPU reference) needs 8000000 bytes but only 76000 bytes of host memory are available (GRAPH_HOST_MEMORY_LIMIT: 100000 bytes, 24000 of them already held by this run)

// A .npy file is read whole.
// RUN: %python -c "import numpy; numpy.save('%t.x.npy', numpy.zeros((100, 3), 'float32'))"
// RUN: env GRAPH_HOST_MEMORY_LIMIT=1000 not graph-run %s --device=cpu --graph=dyn --input=x=@%t.x.npy 2>&1 | FileCheck %s --check-prefix=NPY
// NPY: graph-run: error: input uid 1 "x": reading '{{.*}}.x.npy' (1328 bytes) needs 2656 bytes but only 1000 bytes of host memory are available (GRAPH_HOST_MEMORY_LIMIT)

// Within the limit all of it runs.
// RUN: env GRAPH_HOST_MEMORY_LIMIT=100000000 graph-run %s --device=cpu --graph=bcast --random-inputs=1 --print-max-elements=0 | FileCheck %s --check-prefix=OK
// OK: result[0] (uid 3 "y"): 1000x1000xf32=...

graph.graph @big(%x: tensor<1048576x1048576xf32> {graph.name = "x"}) -> (tensor<1048576x1048576xf32> {graph.name = "y"}) {
  %y = graph.pointwise relu(%x) : (tensor<1048576x1048576xf32>) -> tensor<1048576x1048576xf32>
  graph.output %y : tensor<1048576x1048576xf32>
}

graph.graph @dyn(%x: tensor<?x3xf32> {graph.name = "x"}) -> (tensor<?x1xf32> {graph.name = "y"}) {
  %s = graph.reduction add %x : (tensor<?x3xf32>) -> tensor<?x1xf32>
  graph.output %s : tensor<?x1xf32>
}

graph.graph @bcast(%a: tensor<1000x1xf32> {graph.name = "a"}, %b: tensor<1x1000xf32> {graph.name = "b"}) -> (tensor<1000x1000xf32> {graph.name = "y"}) {
  %y = graph.pointwise add(%a, %b) {name = "outer"} : (tensor<1000x1xf32>, tensor<1x1000xf32>) -> tensor<1000x1000xf32>
  graph.output %y : tensor<1000x1000xf32>
}
