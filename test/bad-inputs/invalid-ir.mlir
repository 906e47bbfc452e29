// RUN: graph-opt %s -split-input-file -verify-diagnostics

// Issue 13: IR that was silently accepted.

// A data type given as a string was dropped without a word.
// expected-error @below {{'graph.graph' op io_data_type must be an element type such as f16 (written without quotes), got "f32"}}
graph.graph @g(%x: tensor<4xf32>) attributes {io_data_type = "f32"} {
  graph.output
}

// -----

// expected-error @below {{'graph.graph' op compute_data_type must be an element type such as f16 (written without quotes), got 32 : i64}}
graph.graph @g(%x: tensor<4xf32>) attributes {compute_data_type = 32} {
  graph.output
}

// -----

// An exec.cudnn_group whose body holds an op that is no graph node op.
exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>] outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  exec.cudnn_group "p/group0"
      inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
      outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>]
      heuristics = ["a"] {
  ^bb0(%x: tensor<4xf32>):
    // expected-error @below {{'graph.scalar' op cannot be in an exec.cudnn_group}}
    %s = graph.scalar 2.0 : f32 -> tensor<1xf32>
    %y = graph.pointwise mul(%x, %s) : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
    exec.yield %y : tensor<4xf32>
  }
}
