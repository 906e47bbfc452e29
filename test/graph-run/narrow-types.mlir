// The raw-bits .npy convention of bf16 ('<u2') and the 8-bit float types
// ('|u1'): bits in, bits out, through a graph that converts between them.

// RUN: rm -rf %t && mkdir -p %t
// bf16 bits: 1.0 = 0x3F80, -2.0 = 0xC000, 0.5 = 0x3F00, 448 = 0x43E0.
// RUN: %python %S/Inputs/npy_tool.py write %t/x.npy uint16 4 0x3F80 0xC000 0x3F00 0x43E0
// f8E4M3FN bits: 1.0 = 0x38, -2.0 = 0xC0, 0.5 = 0x30, 448 = 0x7E.
// RUN: %python %S/Inputs/npy_tool.py write %t/f8.npy uint8 4 0x38 0xC0 0x30 0x7E
// RUN: graph-run %s --device=cpu --input=x=@%t/x.npy --input=f8=@%t/f8.npy --output-dir=%t/out | FileCheck %s
// CHECK: result[0] (uid 3 "x_copy"): 4xbf16=[1 -2 0.5 448]
// CHECK-NEXT: result[1] (uid 4 "as_f8"): 4xf8E4M3FN=[1 -2 0.5 448]
// CHECK-NEXT: result[2] (uid 5 "f8_as_bf16"): 4xbf16=[1 -2 0.5 448]
// CHECK-NEXT: result[3] (uid 6 "as_e5m2"): 4xf8E5M2=[1 -2 0.5 448]

// The bf16 copy is bit-identical to the input file; the fp8 output is the
// fp8 input's bits.
// RUN: %python %S/Inputs/npy_tool.py same %t/x.npy %t/out/x_copy.npy
// RUN: %python %S/Inputs/npy_tool.py same %t/f8.npy %t/out/as_f8.npy
// RUN: %python %S/Inputs/npy_tool.py same %t/x.npy %t/out/f8_as_bf16.npy
// RUN: %python %S/Inputs/npy_tool.py show %t/out/as_e5m2.npy | FileCheck %s --check-prefix=E5M2
// f8E5M2 bits: 1.0 = 0x3C, -2.0 = 0xC0, 0.5 = 0x38, 448 = 0x5F.
// E5M2: |u1 4 60 192 56 95

// Feeding the outputs back in gives the same results.
// RUN: graph-run %s --device=cpu --input=x=@%t/out/x_copy.npy --input=f8=@%t/out/as_f8.npy | FileCheck %s

// A bf16 input given as float32 data is rejected with the convention.
// RUN: %python %S/Inputs/npy_tool.py write %t/x_f32.npy float32 4 1 -2 0.5 448
// RUN: not graph-run %s --input=x=@%t/x_f32.npy --input=f8=@%t/f8.npy 2>&1 | FileCheck %s --check-prefix=CONVENTION
// CONVENTION: graph-run: error: input uid 1 "x": '{{.*}}x_f32.npy': expected bf16 ('<u2': the raw bits as unsigned integers), given '<f4'

// Inline values are rounded to the type.
// RUN: graph-run %s --device=cpu --input=x="4xbf16=1 -2 0.5 448" --input=f8="4xf8E4M3FN=1.01 -2 0.5 460" | FileCheck %s

graph.graph @narrow(%x: tensor<4xbf16> {graph.name = "x"},
                    %f8: tensor<4xf8E4M3FN> {graph.name = "f8"})
    -> (tensor<4xbf16> {graph.name = "x_copy"}, tensor<4xf8E4M3FN> {graph.name = "as_f8"},
        tensor<4xbf16> {graph.name = "f8_as_bf16"}, tensor<4xf8E5M2> {graph.name = "as_e5m2"}) {
  %c = graph.pointwise identity(%x) : (tensor<4xbf16>) -> tensor<4xbf16>
  %q = graph.pointwise identity(%x) : (tensor<4xbf16>) -> tensor<4xf8E4M3FN>
  %b = graph.pointwise identity(%f8) : (tensor<4xf8E4M3FN>) -> tensor<4xbf16>
  %e = graph.pointwise identity(%x) : (tensor<4xbf16>) -> tensor<4xf8E5M2>
  graph.output %c, %q, %b, %e : tensor<4xbf16>, tensor<4xf8E4M3FN>, tensor<4xbf16>, tensor<4xf8E5M2>
}
