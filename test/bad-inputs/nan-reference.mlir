// Issue 13, class 3: the CPU reference is the oracle for every GPU result
// and autotune candidate, so it must be right on NaN and Inf. In sdpa a query
// row whose scores are all NaN is NaN (as cuDNN gives it); only a row with no
// kept key (padding, seq_len_kv = 0) or whose kept scores are all -inf is a
// dead row, which is 0.

// Row 0 of q is NaN: its scores are all NaN, so its output row is NaN in
// both the unmasked and the padded sdpa. Row 2 is padding (seq_len_q = 2): 0.
// relu of -inf is its lower clip (0), not 0 * -inf; NaN still propagates;
// a leaky slope keeps -inf.
// RUN: graph-run %s --device=cpu --graph=relu --input=x="4xf32=-inf -2 nan 7" | FileCheck %s --check-prefix=RELU
// RELU: result[0] (uid {{[0-9]+}} "relu"): 4xf32=[0 0 nan 7]
// RELU: result[1] (uid {{[0-9]+}} "relu6"): 4xf32=[0 0 nan 6]
// RELU: result[2] (uid {{[0-9]+}} "leaky"): 4xf32=[-inf -0.2 nan 7]
// RUN: graph-run %s --device=cpu --graph=masks --input=q="1x1x3x2xbf16=nan nan 1 0 0 1" --input=k="1x1x2x2xbf16=1 0 0 1" --input=v="1x1x2x2xbf16=1 2 3 4" --input=lq="1x1x1x1xi32=2" --input=lk="1x1x1x1xi32=2" | FileCheck %s --check-prefix=NANROW
// NANROW: result[0] (uid 6 "o"): 1x1x3x2xbf16=[{{\[\[}}[nan nan] [1.53906 2.53125] [2.46875 3.46875]{{\]\]}}]
// NANROW: result[1] (uid 7 "opad"): 1x1x3x2xbf16=[{{\[\[}}[nan nan] [1.53906 2.53125] [0 0]{{\]\]}}]

// A NaN row that is padding is dead all the same (seq_len_q = 1).
// RUN: graph-run %s --device=cpu --graph=masks --input=q="1x1x3x2xbf16=1 0 nan nan 0 1" --input=k="1x1x2x2xbf16=1 0 0 1" --input=v="1x1x2x2xbf16=1 2 3 4" --input=lq="1x1x1x1xi32=1" --input=lk="1x1x1x1xi32=2" | FileCheck %s --check-prefix=PADNAN
// PADNAN: result[0] (uid 6 "o"): 1x1x3x2xbf16=[{{\[\[}}[1.53906 2.53125] [nan nan] [2.46875 3.46875]{{\]\]}}]
// PADNAN: result[1] (uid 7 "opad"): 1x1x3x2xbf16=[{{\[\[}}[1.53906 2.53125] [0 0] [0 0]{{\]\]}}]

// No key at all (seq_len_kv = 0): every row is dead, 0, never NaN.
// RUN: graph-run %s --device=cpu --graph=masks --input=q="1x1x3x2xbf16=1 0 0 1 0 1" --input=k="1x1x2x2xbf16=1 0 0 1" --input=v="1x1x2x2xbf16=1 2 3 4" --input=lq="1x1x1x1xi32=3" --input=lk="1x1x1x1xi32=0" | FileCheck %s --check-prefix=NOKEYS
// NOKEYS: result[1] (uid 7 "opad"): 1x1x3x2xbf16=[{{\[\[}}[0 0] [0 0] [0 0]{{\]\]}}]

// A bias row of -inf masks every key (dead, 0); a bias row of NaN is NaN; a
// single -inf drops that key only (row 2 sees key 1 alone: v[1] = 3 4).
// RUN: graph-run %s --device=cpu --graph=bias --input=q="1x1x3x2xbf16=1 0 1 0 1 0" --input=k="1x1x2x2xbf16=1 0 0 1" --input=v="1x1x2x2xbf16=1 2 3 4" --input=bias="1x1x3x2xbf16=-inf -inf nan nan -inf 0" | FileCheck %s --check-prefix=BIAS
// BIAS: result[0] (uid 5 "o"): 1x1x3x2xbf16=[{{\[\[}}[0 0] [nan nan] [3 4]{{\]\]}}]

// NaN and Inf propagate through pointwise ops and compare as NaN == NaN
// against an expected output.
// RUN: graph-run %s --device=cpu --graph=pointwise --input=x="4xf32=nan inf -inf 1" --input=z="4xf32=1 0 0 nan" | FileCheck %s --check-prefix=POINTWISE
// POINTWISE: result[0] (uid 3 "max"): 4xf32=[nan inf 0 nan]
// POINTWISE: result[1] (uid 4 "mul"): 4xf32=[nan nan nan nan]
// POINTWISE: result[2] (uid 5 "exp"): 4xf32=[nan inf 0 2.71828]
// RUN: %python -c "import numpy; numpy.save('%t.exp.npy', numpy.array([numpy.nan, numpy.inf, 0, 2.7182817], 'float32')); numpy.save('%t.zero.npy', numpy.array([0, numpy.inf, 0, 2.7182817], 'float32'))"
// RUN: graph-run %s --device=cpu --graph=pointwise --input=x="4xf32=nan inf -inf 1" --input=z="4xf32=1 0 0 nan" --expected-output=exp=@%t.exp.npy | FileCheck %s --check-prefix=SAME
// SAME: [SUCCESS] result[2] (uid 5 "exp") matches
// RUN: not graph-run %s --device=cpu --graph=pointwise --input=x="4xf32=nan inf -inf 1" --input=z="4xf32=1 0 0 nan" --expected-output=exp=@%t.zero.npy | FileCheck %s --check-prefix=DIFF
// DIFF: [FAILED] result[2] (uid 5 "exp") differs from '{{.*}}.zero.npy' at [0]: got nan, expected 0

graph.graph @masks(%q: tensor<1x1x3x2xbf16> {graph.name = "q"}, %k: tensor<1x1x2x2xbf16> {graph.name = "k"}, %v: tensor<1x1x2x2xbf16> {graph.name = "v"},
                   %lq: tensor<1x1x1x1xi32> {graph.name = "lq"}, %lk: tensor<1x1x1x1xi32> {graph.name = "lk"})
    -> (tensor<1x1x3x2xbf16> {graph.name = "o"}, tensor<1x1x3x2xbf16> {graph.name = "opad"}) {
  %o = graph.sdpa %q, %k, %v {attn_scale_value = 1.0 : f64}
      : (tensor<1x1x3x2xbf16>, tensor<1x1x2x2xbf16>, tensor<1x1x2x2xbf16>) -> (tensor<1x1x3x2xbf16>, none, none, none)
  %op = graph.sdpa %q, %k, %v seq_len_q %lq seq_len_kv %lk {use_padding_mask, attn_scale_value = 1.0 : f64}
      : (tensor<1x1x3x2xbf16>, tensor<1x1x2x2xbf16>, tensor<1x1x2x2xbf16>, tensor<1x1x1x1xi32>, tensor<1x1x1x1xi32>) -> (tensor<1x1x3x2xbf16>, none, none, none)
  graph.output %o, %op : tensor<1x1x3x2xbf16>, tensor<1x1x3x2xbf16>
}

graph.graph @bias(%q: tensor<1x1x3x2xbf16> {graph.name = "q"}, %k: tensor<1x1x2x2xbf16> {graph.name = "k"}, %v: tensor<1x1x2x2xbf16> {graph.name = "v"},
                  %b: tensor<1x1x3x2xbf16> {graph.name = "bias"})
    -> (tensor<1x1x3x2xbf16> {graph.name = "o"}) {
  %o = graph.sdpa %q, %k, %v bias %b {attn_scale_value = 1.0 : f64}
      : (tensor<1x1x3x2xbf16>, tensor<1x1x2x2xbf16>, tensor<1x1x2x2xbf16>, tensor<1x1x3x2xbf16>) -> (tensor<1x1x3x2xbf16>, none, none, none)
  graph.output %o : tensor<1x1x3x2xbf16>
}

graph.graph @pointwise(%x: tensor<4xf32> {graph.name = "x"}, %z: tensor<4xf32> {graph.name = "z"})
    -> (tensor<4xf32> {graph.name = "max"}, tensor<4xf32> {graph.name = "mul"}, tensor<4xf32> {graph.name = "exp"}) {
  %m = graph.pointwise max(%x, %z) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %p = graph.pointwise mul(%x, %z) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %e = graph.pointwise exp(%x) : (tensor<4xf32>) -> tensor<4xf32>
  graph.output %m, %p, %e : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

graph.graph @relu(%x: tensor<4xf32> {graph.name = "x"})
    -> (tensor<4xf32> {graph.name = "relu"}, tensor<4xf32> {graph.name = "relu6"}, tensor<4xf32> {graph.name = "leaky"}) {
  %r = graph.pointwise relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %r6 = graph.pointwise relu(%x) {upper_clip = 6.0 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  %l = graph.pointwise relu(%x) {negative_slope = 0.1 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  graph.output %r, %r6, %l : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
