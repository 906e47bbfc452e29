// RUN: graph-opt %s --graph-assign-uids | FileCheck %s
// RUN: graph-opt %s --graph-assign-uids --graph-assign-uids | FileCheck %s

// The pass is idempotent (second RUN line): every tensor already has a uid.

// uids the user gave (1 and 3) are reserved: the others take the smallest
// free ones in order inputs, scalars, outputs.
// CHECK-LABEL: graph.graph @reserved
// CHECK-SAME: (%{{.*}}: tensor<4x8xf32> {graph.name = "x", graph.uid = 2 : i64},
// CHECK-SAME:  %{{.*}}: tensor<8x16xf32> {graph.uid = 1 : i64},
// CHECK-SAME:  %{{.*}}: tensor<1x16xf32> {graph.uid = 4 : i64})
// CHECK-SAME: -> (tensor<4x16xf32> {graph.uid = 3 : i64},
// CHECK-SAME:     tensor<4x16xf32> {graph.name = "h", graph.uid = 7 : i64})
// CHECK: scalar {{.*}} {uid = 5 : i64} -> tensor<1x1xf32>
// CHECK: scalar {{.*}} {uid = 6 : i64} -> tensor<1x1xf32>
graph.graph @reserved(%x: tensor<4x8xf32> {graph.name = "x"},
                      %w: tensor<8x16xf32> {graph.uid = 1 : i64},
                      %b: tensor<1x16xf32>)
    -> (tensor<4x16xf32> {graph.uid = 3 : i64},
        tensor<4x16xf32> {graph.name = "h"}) {
  %eps = graph.scalar 1.0e-05 : f32 -> tensor<1x1xf32>
  %two = graph.scalar 2.0 : f32 -> tensor<1x1xf32>
  %h = graph.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %y = graph.pointwise add(%h, %b) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  graph.output %y, %h : tensor<4x16xf32>, tensor<4x16xf32>
}

// A user uid of a scalar is reserved like an input's; the order of
// assignment is the program order of the scalars, not of their uses.
// CHECK-LABEL: graph.graph @scalar_reserved
// CHECK-SAME: (%{{.*}}: tensor<4xf32> {graph.uid = 1 : i64},
// CHECK-SAME:  %{{.*}}: tensor<4xf32> {graph.uid = 3 : i64})
// CHECK-SAME: -> (tensor<4xf32> {graph.uid = 6 : i64})
// CHECK: scalar {{.*}} {uid = 4 : i64} -> tensor<1xf32>
// CHECK: scalar {{.*}} {uid = 2 : i64} -> tensor<1xf32>
// CHECK: scalar {{.*}} {uid = 5 : i64} -> tensor<1xf32>
graph.graph @scalar_reserved(%a: tensor<4xf32>, %b: tensor<4xf32>)
    -> (tensor<4xf32>) {
  %s0 = graph.scalar 1.0 : f32 -> tensor<1xf32>
  %s1 = graph.scalar 2.0 : f32 {uid = 2 : i64} -> tensor<1xf32>
  %s2 = graph.scalar 3.0 : f32 -> tensor<1xf32>
  %0 = graph.pointwise add(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = graph.pointwise mul(%0, %s2) : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  %2 = graph.pointwise add(%1, %s1) : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  %3 = graph.pointwise sub(%2, %s0) : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  graph.output %3 : tensor<4xf32>
}

// An output that is a graph input is that tensor: it keeps the input's uid,
// whether the input's uid was given or assigned.
// CHECK-LABEL: graph.graph @output_is_input
// CHECK-SAME: (%{{.*}}: tensor<4xf32> {graph.uid = 7 : i64},
// CHECK-SAME:  %{{.*}}: tensor<4xf32> {graph.uid = 1 : i64})
// CHECK-SAME: -> (tensor<4xf32> {graph.uid = 7 : i64},
// CHECK-SAME:     tensor<4xf32> {graph.uid = 1 : i64},
// CHECK-SAME:     tensor<4xf32> {graph.uid = 2 : i64})
graph.graph @output_is_input(%a: tensor<4xf32> {graph.uid = 7 : i64},
                             %b: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = graph.pointwise add(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  graph.output %a, %b, %0 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// The uid an output gives a tensor is that tensor's in every role: the
// input (and the scalar) it is takes it too, instead of a second uid.
// CHECK-LABEL: graph.graph @output_uid_names_input
// CHECK-SAME: (%{{.*}}: tensor<4xf32> {graph.uid = 5 : i64},
// CHECK-SAME:  %{{.*}}: tensor<4xf32> {graph.uid = 1 : i64})
// CHECK-SAME: -> (tensor<4xf32> {graph.uid = 5 : i64},
// CHECK-SAME:     tensor<1xf32> {graph.uid = 9 : i64},
// CHECK-SAME:     tensor<4xf32> {graph.uid = 2 : i64})
// CHECK: scalar {{.*}} {uid = 9 : i64} -> tensor<1xf32>
graph.graph @output_uid_names_input(%a: tensor<4xf32>, %b: tensor<4xf32>)
    -> (tensor<4xf32> {graph.uid = 5 : i64}, tensor<1xf32> {graph.uid = 9 : i64},
        tensor<4xf32>) {
  %s = graph.scalar 1.0 : f32 -> tensor<1xf32>
  %0 = graph.pointwise add(%b, %s) : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  graph.output %a, %s, %0 : tensor<4xf32>, tensor<1xf32>, tensor<4xf32>
}

// Two outputs of the same value are one tensor with one uid; a uid given to
// either of them (even the later one) is the one both carry.
// CHECK-LABEL: graph.graph @same_value_twice
// CHECK-SAME: (%{{.*}}: tensor<4xf32> {graph.uid = 1 : i64})
// CHECK-SAME: -> (tensor<4xf32> {graph.uid = 2 : i64},
// CHECK-SAME:     tensor<4xf32> {graph.uid = 2 : i64},
// CHECK-SAME:     tensor<4xf32> {graph.uid = 4 : i64},
// CHECK-SAME:     tensor<4xf32> {graph.uid = 4 : i64})
graph.graph @same_value_twice(%a: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4xf32> {graph.uid = 4 : i64}) {
  %0 = graph.pointwise exp(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = graph.pointwise neg(%a) : (tensor<4xf32>) -> tensor<4xf32>
  graph.output %0, %0, %1, %1 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// Each graph of a module numbers its tensors on its own, from 1.
// CHECK-LABEL: graph.graph @second_graph
// CHECK-SAME: (%{{.*}}: tensor<2xf16> {graph.uid = 1 : i64})
// CHECK-SAME: -> (tensor<2xf16> {graph.uid = 2 : i64})
graph.graph @second_graph(%a: tensor<2xf16>) -> (tensor<2xf16>) {
  %0 = graph.pointwise relu(%a) : (tensor<2xf16>) -> tensor<2xf16>
  graph.output %0 : tensor<2xf16>
}

// CHECK-LABEL: graph.graph @third_graph
// CHECK-SAME: (%{{.*}}: tensor<2xf16> {graph.uid = 2 : i64},
// CHECK-SAME:  %{{.*}}: tensor<2xf16> {graph.uid = 1 : i64})
// CHECK-SAME: -> (tensor<2xf16> {graph.uid = 3 : i64})
graph.graph @third_graph(%a: tensor<2xf16>, %b: tensor<2xf16> {graph.uid = 1 : i64})
    -> (tensor<2xf16>) {
  %0 = graph.pointwise add(%a, %b) : (tensor<2xf16>, tensor<2xf16>) -> tensor<2xf16>
  graph.output %0 : tensor<2xf16>
}

// 0 is a uid the user may give (the frontend accepts it): it is kept and
// reserved, and the pass hands out 1 up around it (a scalar's 0 too).
// CHECK-LABEL: graph.graph @uid_zero
// CHECK-SAME: (%{{.*}}: tensor<4xf32> {graph.uid = 0 : i64},
// CHECK-SAME:  %{{.*}}: tensor<4xf32> {graph.uid = 1 : i64})
// CHECK-SAME: -> (tensor<4xf32> {graph.uid = 3 : i64})
// CHECK: scalar {{.*}} {uid = 2 : i64} -> tensor<1xf32>
graph.graph @uid_zero(%a: tensor<4xf32> {graph.uid = 0 : i64}, %b: tensor<4xf32>)
    -> (tensor<4xf32>) {
  %s = graph.scalar 2.0 : f32 -> tensor<1xf32>
  %0 = graph.pointwise add(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = graph.pointwise mul(%0, %s) : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  graph.output %1 : tensor<4xf32>
}

// CHECK-LABEL: graph.graph @scalar_uid_zero
// CHECK-SAME: (%{{.*}}: tensor<4xf32> {graph.uid = 1 : i64})
// CHECK-SAME: -> (tensor<4xf32> {graph.uid = 2 : i64})
// CHECK: scalar {{.*}} {uid = 0 : i64} -> tensor<1xf32>
graph.graph @scalar_uid_zero(%a: tensor<4xf32>) -> (tensor<4xf32>) {
  %s = graph.scalar 2.0 : f32 {uid = 0 : i64} -> tensor<1xf32>
  %0 = graph.pointwise mul(%a, %s) : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  graph.output %0 : tensor<4xf32>
}
