// .npy inputs and outputs: --output, --output-dir, --expected-output
// (success and failure), Fortran-order files, --check-against=cpu.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy_tool.py write %t/a.npy float32 2x3 1 2 3 4 5 6
// RUN: %python %S/Inputs/npy_tool.py fortran %t/a_f.npy float32 2x3 1 2 3 4 5 6
// RUN: %python %S/Inputs/npy_tool.py write %t/b.npy float32 1x3 10 20 30
// RUN: graph-run %s --device=cpu --input=a=@%t/a.npy --input=b=@%t/b.npy --output=sum=@%t/sum.npy --output-dir=%t/out | FileCheck %s
// CHECK: result[0] (uid 3 "sum"): 2x3xf32={{\[}}[11 22 33] [14 25 36]]
// CHECK-NEXT: result[1] (uid 4 "dup"): 2x3xf32={{\[}}[10 40 90] [40 100 180]]
// CHECK-NEXT: result[2] (uid 5 "dup"): 2x3xf32={{\[}}[-1 -2 -3] [-4 -5 -6]]
// CHECK-NEXT: result[3] (uid 6): 2x1xf32={{\[}}[6] [15]]

// The output dir holds NAME.npy, or uid_N.npy for repeated names and
// unnamed outputs.
// RUN: %python %S/Inputs/npy_tool.py show %t/sum.npy | FileCheck %s --check-prefix=SUM
// RUN: %python %S/Inputs/npy_tool.py show %t/out/sum.npy | FileCheck %s --check-prefix=SUM
// SUM: <f4 2x3 11.0 22.0 33.0 14.0 25.0 36.0
// RUN: %python %S/Inputs/npy_tool.py show %t/out/uid_4.npy | FileCheck %s --check-prefix=UID4
// UID4: <f4 2x3 10.0 40.0 90.0 40.0 100.0 180.0
// RUN: %python %S/Inputs/npy_tool.py show %t/out/uid_6.npy | FileCheck %s --check-prefix=UID6
// UID6: <f4 2x1 6.0 15.0
// RUN: ls %t/out | FileCheck %s --check-prefix=LS
// LS: sum.npy
// LS-NEXT: uid_4.npy
// LS-NEXT: uid_5.npy
// LS-NEXT: uid_6.npy

// A Fortran-order file holds the same logical array.
// RUN: graph-run %s --device=cpu --input=a=@%t/a_f.npy --input=b=@%t/b.npy | FileCheck %s

// --expected-output: success, and failure naming the first mismatch.
// RUN: graph-run %s --device=cpu --input=a=@%t/a.npy --input=b=@%t/b.npy --expected-output=sum=@%t/sum.npy --expected-output=4=@%t/out/uid_4.npy | FileCheck %s --check-prefix=OK
// OK: [SUCCESS] result[0] (uid 3 "sum") matches '{{.*}}sum.npy' (max abs diff 0)
// OK: [SUCCESS] result[1] (uid 4 "dup") matches '{{.*}}uid_4.npy' (max abs diff 0)
// RUN: %python %S/Inputs/npy_tool.py write %t/wrong.npy float32 2x3 11 22 33 14 25.5 36
// RUN: not graph-run %s --device=cpu --input=a=@%t/a.npy --input=b=@%t/b.npy --expected-output=sum=@%t/wrong.npy | FileCheck %s --check-prefix=BAD
// BAD: [FAILED] result[0] (uid 3 "sum") differs from '{{.*}}wrong.npy' at [1, 1]: got 25, expected 25.5 (atol 1e-05, rtol 1e-05)
// A looser tolerance accepts it.
// RUN: graph-run %s --device=cpu --input=a=@%t/a.npy --input=b=@%t/b.npy --expected-output=sum=@%t/wrong.npy --atol=0.5 --rtol=0 | FileCheck %s --check-prefix=LOOSE
// LOOSE: [SUCCESS] result[0] (uid 3 "sum") matches '{{.*}}wrong.npy' (max abs diff 0.5)

// --check-against=cpu compares every output with the CPU reference.
// RUN: graph-run %s --device=cpu --input=a=@%t/a.npy --input=b=@%t/b.npy --check-against=cpu | FileCheck %s --check-prefix=AGAINST
// AGAINST-COUNT-4: [SUCCESS] result[{{[0-3]}}] {{.*}} matches the CPU reference

graph.graph @npy(%a: tensor<2x3xf32> {graph.name = "a"},
                 %b: tensor<1x3xf32> {graph.name = "b"})
    -> (tensor<2x3xf32> {graph.name = "sum"}, tensor<2x3xf32> {graph.name = "dup"},
        tensor<2x3xf32> {graph.name = "dup"}, tensor<2x1xf32>) {
  %s = graph.pointwise add(%a, %b) : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  %m = graph.pointwise mul(%a, %b) : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  %n = graph.pointwise neg(%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = graph.reduction add %a : (tensor<2x3xf32>) -> tensor<2x1xf32>
  graph.output %s, %m, %n, %r : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x1xf32>
}
