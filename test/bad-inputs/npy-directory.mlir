// Issue 13, class 4: a directory given where a .npy file is expected is a
// one-line error, not an uncaught std::ios_failure.

// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: not graph-run %s --device=cpu --input=x=@%t.dir 2>&1 | FileCheck %s --check-prefix=INPUT
// INPUT: graph-run: error: input uid 1 "x": cannot read '{{.*}}.dir': it is a directory, not a .npy file
// INPUT-NOT: terminate

// RUN: not graph-run %s --device=cpu --input=x="2xf32=1 2" --expected-output=y=@%t.dir 2>&1 | FileCheck %s --check-prefix=EXPECTED
// EXPECTED: graph-run: error: cannot read '{{.*}}.dir': it is a directory, not a .npy file
// EXPECTED-NOT: terminate

graph.graph @g(%x: tensor<2xf32> {graph.name = "x"}) -> (tensor<2xf32> {graph.name = "y"}) {
  %y = graph.pointwise relu(%x) : (tensor<2xf32>) -> tensor<2xf32>
  graph.output %y : tensor<2xf32>
}
