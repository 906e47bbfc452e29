// An op's shape rules hold for dims bound at run time too: rope's freqs
// give one angle per rotated pair (rope_dim / 2), which the verifier checks
// for static dims and the CPU reference for '?' dims once they are bound
// (full-width angles ran as angles per half before).

// RUN: not graph-run %s --device=cpu --input=X="2x8x16xf32=random" --input=F="8x8xf32=random" 2>&1 | FileCheck %s --check-prefix=WIDE
// WIDE: graph-run: error: graph @rope_dynamic: rope: freqs last dim must be rope_dim / 2 = 4 but freqs dims are [8, 8]
// RUN: graph-run %s --device=cpu --input=X="2x8x16xf32=random" --input=F="8x4xf32=random" --print-max-elements=0 | FileCheck %s --check-prefix=PAIRS
// PAIRS: result[0] (uid 3 "Y"): 2x8x16xf32=

graph.graph @rope_dynamic(%x: tensor<2x8x?xf32> {graph.name = "X"}, %f: tensor<8x?xf32> {graph.name = "F"})
    -> (tensor<2x8x?xf32> {graph.name = "Y"}) {
  %y = graph.rope %x, freqs %f {rope_dim = 8 : i64} : (tensor<2x8x?xf32>, tensor<8x?xf32>) -> tensor<2x8x?xf32>
  graph.output %y : tensor<2x8x?xf32>
}
