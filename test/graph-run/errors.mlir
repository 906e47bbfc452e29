// Every error of graph-run is one line on stderr and exit code 1.

// RUN: not graph-run %s --device=gpu --random-inputs=1 2>&1 | FileCheck %s --check-prefix=GPU
// GPU: graph-run: error: the GPU device is not available: {{.+}}

// RUN: not graph-run %s 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: graph-run: error: missing input uid 1 "x" (2x3xf32) (and 2 more): give it with --input=1=@FILE.npy or use --random-inputs=SEED

// RUN: not graph-run %s --input=1=random --input=2=random 2>&1 | FileCheck %s --check-prefix=MISSING3
// MISSING3: graph-run: error: missing input uid 3 "x" (1x3xf32): give it

// RUN: not graph-run %s --input=x=random 2>&1 | FileCheck %s --check-prefix=AMBIGUOUS
// AMBIGUOUS: graph-run: error: --input=x=random: the input name "x" is shared by uids 1, 3: use the uid

// RUN: not graph-run %s --input=nope=random 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: graph-run: error: --input=nope=random: no input named "nope"; the inputs are: uid 1 "x", uid 2 "w", uid 3 "x"

// RUN: not graph-run %s --input=9=random 2>&1 | FileCheck %s --check-prefix=UNKNOWN-UID
// UNKNOWN-UID: graph-run: error: --input=9=random: no input with uid 9; the inputs are:

// RUN: not graph-run %s --input=1 2>&1 | FileCheck %s --check-prefix=NO-VALUE
// NO-VALUE: graph-run: error: --input=1: expected X=@file.npy, X="DIMSxTYPE=VALUES" or X=random

// RUN: not graph-run %s --input=1=banana 2>&1 | FileCheck %s --check-prefix=BAD-VALUE
// BAD-VALUE: graph-run: error: --input=1=banana: the value must be @file.npy, DIMSxTYPE=VALUES or random

// RUN: not graph-run %s --input=1=random --input=1=random 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: graph-run: error: input uid 1 "x" is given twice

// RUN: not graph-run %s --input=1="2x3xf32=1 2 3" 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: graph-run: error: input uid 1 "x": 2x3xf32 needs 6 values, given 3

// RUN: not graph-run %s --input=1="3x2xf32=1 2 3 4 5 6" 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: graph-run: error: input uid 1 "x": expected 2x3xf32, given 3x2xf32

// RUN: not graph-run %s --input=1="2x3xf16=1 2 3 4 5 6" 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: graph-run: error: input uid 1 "x": expected 2x3xf32, given 2x3xf16

// RUN: not graph-run %s --input=1="2x3xf32=1 2 3 4 5 six" 2>&1 | FileCheck %s --check-prefix=NAN
// NAN: graph-run: error: input uid 1 "x": value 'six' is not a number

// RUN: not graph-run %s --input=1="2by3=1" 2>&1 | FileCheck %s --check-prefix=TYPE
// TYPE: graph-run: error: input uid 1 "x": malformed inline value type '2by3' (expected e.g. 2x3xf32)

// RUN: not graph-run %s --input=1=@%t.missing.npy 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: graph-run: error: input uid 1 "x": cannot open '{{.*}}.missing.npy': No such file or directory

// RUN: echo "not a numpy file" > %t.junk.npy
// RUN: not graph-run %s --input=1=@%t.junk.npy 2>&1 | FileCheck %s --check-prefix=JUNK
// JUNK: graph-run: error: input uid 1 "x": '{{.*}}.junk.npy': not a .npy file (bad magic string)

// RUN: %python %S/Inputs/npy_tool.py write %t.f64.npy float64 2x3 1 2 3 4 5 6
// RUN: not graph-run %s --input=1=@%t.f64.npy 2>&1 | FileCheck %s --check-prefix=NPY-DTYPE
// NPY-DTYPE: graph-run: error: input uid 1 "x": '{{.*}}.f64.npy': expected f32 ('<f4'), given '<f8'

// RUN: %python %S/Inputs/npy_tool.py write %t.f32.npy float32 3x2 1 2 3 4 5 6
// RUN: not graph-run %s --input=1=@%t.f32.npy 2>&1 | FileCheck %s --check-prefix=NPY-SHAPE
// NPY-SHAPE: graph-run: error: input uid 1 "x": '{{.*}}.f32.npy': expected dims 2x3x given 3x2x

// RUN: not graph-run %s --random-inputs=1 --output=z=@%t.z.npy 2>&1 | FileCheck %s --check-prefix=OUT-NAME
// OUT-NAME: graph-run: error: --output=z=@{{.*}}: no output named "z"; the outputs are: uid 4 "y", uid 5 "y"

// RUN: not graph-run %s --random-inputs=1 --output=y=@%t.y.npy 2>&1 | FileCheck %s --check-prefix=OUT-AMBIGUOUS
// OUT-AMBIGUOUS: graph-run: error: --output=y=@{{.*}}: the output name "y" is shared by uids 4, 5: use the uid

// RUN: not graph-run %s --random-inputs=1 --output=4 2>&1 | FileCheck %s --check-prefix=OUT-SPEC
// OUT-SPEC: graph-run: error: --output=4: expected Y=@file.npy

// RUN: not graph-run %s --random-inputs=1 --expected-output=4=@%t.missing.npy 2>&1 | FileCheck %s --check-prefix=EXP-NOFILE
// EXP-NOFILE: graph-run: error: cannot open '{{.*}}.missing.npy'

// RUN: not graph-run %s --random-inputs=1 --expected-output=4=@%t.f32.npy 2>&1 | FileCheck %s --check-prefix=EXP-SHAPE
// EXP-SHAPE: graph-run: error: '{{.*}}.f32.npy': result[0] (uid 4 "y") is 2x3xf32, the file holds 3x2xf32

// RUN: not graph-run %s --random-inputs=1 --check-against=gpu 2>&1 | FileCheck %s --check-prefix=CHECK-AGAINST
// CHECK-AGAINST: graph-run: error: --check-against=gpu: only 'cpu' (the reference executor) can be compared with

// RUN: not graph-run %s --random-inputs=1 --rtol=-1 2>&1 | FileCheck %s --check-prefix=RTOL
// RTOL: graph-run: error: --rtol must be non-negative

// RUN: not graph-run %s --device=tpu 2>&1 | FileCheck %s --check-prefix=DEVICE
// DEVICE: graph-run: for the --device option: Cannot find option named 'tpu'!

// RUN: not graph-run %S/Inputs/two_graphs.mlir --random-inputs=1 2>&1 | FileCheck %s --check-prefix=SEVERAL
// SEVERAL: graph-run: error: '{{.*}}two_graphs.mlir' holds 2 graphs (first, second): pick one with --graph=NAME

// RUN: not graph-run %S/Inputs/two_graphs.mlir --graph=third --random-inputs=1 2>&1 | FileCheck %s --check-prefix=NO-SUCH-GRAPH
// NO-SUCH-GRAPH: graph-run: error: no graph named 'third' in '{{.*}}two_graphs.mlir'; its graphs are: first, second

// RUN: graph-run %S/Inputs/two_graphs.mlir --graph=second --input=x="2xf32=-1 2" | FileCheck %s --check-prefix=PICKED
// PICKED: result[0] (uid 2): 2xf32=[1 2]

// RUN: not graph-run %S/Inputs/no_graph.mlir 2>&1 | FileCheck %s --check-prefix=NO-GRAPH
// NO-GRAPH: graph-run: error: '{{.*}}no_graph.mlir' holds no graph.graph

// RUN: not graph-run %S/Inputs/syntax_error.mlir 2>&1 | FileCheck %s --check-prefix=SYNTAX
// SYNTAX: graph-run: error: {{.*}}syntax_error.mlir:2:{{[0-9]+}}: {{.*}}frobnicate
// SYNTAX-NOT: graph-run:

// RUN: not graph-run %t.does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=NO-MLIR
// NO-MLIR: graph-run: error: cannot open input file '{{.*}}does-not-exist.mlir': No such file or directory

graph.graph @errors(%x: tensor<2x3xf32> {graph.uid = 1 : i64, graph.name = "x"},
                    %w: tensor<3x3xf32> {graph.uid = 2 : i64, graph.name = "w"},
                    %x2: tensor<1x3xf32> {graph.uid = 3 : i64, graph.name = "x"})
    -> (tensor<2x3xf32> {graph.uid = 4 : i64, graph.name = "y"},
        tensor<2x3xf32> {graph.uid = 5 : i64, graph.name = "y"}) {
  %mm = graph.matmul %x, %w : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
  %y = graph.pointwise add(%mm, %x2) : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  %z = graph.pointwise mul(%mm, %x2) : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  graph.output %y, %z : tensor<2x3xf32>, tensor<2x3xf32>
}
