// Dynamic dims are bound from the given inputs.

// RUN: graph-run %s --device=cpu --input=x="3x2xf32=1 2 3 4 5 6" | FileCheck %s --check-prefix=THREE
// THREE: result[0] (uid 2 "y"): 3x1xf32={{\[}}[3] [7] [11]]
// RUN: graph-run %s --device=cpu --input=x="1x2xf32=5 6" | FileCheck %s --check-prefix=ONE
// ONE: result[0] (uid 2 "y"): 1x1xf32={{\[}}[11]]
// RUN: not graph-run %s --input=x="3x3xf32=1 2 3 4 5 6 7 8 9" 2>&1 | FileCheck %s --check-prefix=STATIC
// STATIC: graph-run: error: input uid 1 "x": expected ?x2xf32, given 3x3xf32
// RUN: not graph-run %s --random-inputs=1 2>&1 | FileCheck %s --check-prefix=RANDOM
// RANDOM: graph-run: error: input uid 1 "x" has dynamic dims (?x2x...): random data needs them; give the input with --input, e.g. --input=1="DIMSxf32=random"
// Inline dims with random values bind the dynamic dims; the same seed draws
// the same values.
// RUN: graph-run %s --device=cpu --random-inputs=3 --input=x="4x2xf32=random" --output=y=@%t.a.npy | FileCheck %s --check-prefix=INLINE
// RUN: graph-run %s --device=cpu --random-inputs=3 --input=x="4x2xf32=random" --expected-output=y=@%t.a.npy | FileCheck %s --check-prefix=SAME
// INLINE: result[0] (uid 2 "y"): 4x1xf32=
// SAME: [SUCCESS] result[0] (uid 2 "y") matches
// RUN: not graph-run %s --input=x="4x3xf32=random" 2>&1 | FileCheck %s --check-prefix=INLINE-STATIC
// INLINE-STATIC: graph-run: error: input uid 1 "x": expected ?x2xf32, given 4x3xf32

graph.graph @dynamic(%x: tensor<?x2xf32> {graph.name = "x"}) -> (tensor<?x1xf32> {graph.name = "y"}) {
  %s = graph.reduction add %x : (tensor<?x2xf32>) -> tensor<?x1xf32>
  graph.output %s : tensor<?x1xf32>
}
