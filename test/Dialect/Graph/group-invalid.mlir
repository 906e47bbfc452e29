// RUN: graph-opt %s -split-input-file -verify-diagnostics

// Verifier rules of graph.group, graph.yield and #graph.engine: one case
// per rule.

graph.graph @arg_count(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'graph.group' op has 1 operands but its body takes 2 arguments}}
  %g = "graph.group"(%x) <{id = 0 : i64}> ({
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    %r = graph.pointwise relu(%a) : (tensor<4xf32>) -> tensor<4xf32>
    graph.yield %r : tensor<4xf32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  graph.output %g : tensor<4xf32>
}

// -----

graph.graph @arg_type(%x: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @below {{'graph.group' op operand 0 is 'tensor<4xf32>' but block argument 0 is 'tensor<4xf16>'}}
  %g = "graph.group"(%x) <{id = 0 : i64}> ({
  ^bb0(%a: tensor<4xf16>):
    %r = graph.pointwise relu(%a) : (tensor<4xf16>) -> tensor<4xf16>
    graph.yield %r : tensor<4xf16>
  }) : (tensor<4xf32>) -> tensor<4xf16>
  graph.output %g : tensor<4xf16>
}

// -----

graph.graph @empty(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'graph.group' op holds no node op}}
  %g = graph.group 0 (%a = %x : tensor<4xf32>) -> tensor<4xf32> {
    graph.yield %a : tensor<4xf32>
  }
  graph.output %g : tensor<4xf32>
}

// -----

graph.graph @yield_count(%x: tensor<4xf32>) -> tensor<4xf32> {
  %g = graph.group 0 (%a = %x : tensor<4xf32>) -> tensor<4xf32> {
    %r = graph.pointwise relu(%a) : (tensor<4xf32>) -> tensor<4xf32>
    // expected-error @below {{'graph.yield' op yields 2 values but the group has 1 results}}
    graph.yield %r, %r : tensor<4xf32>, tensor<4xf32>
  }
  graph.output %g : tensor<4xf32>
}

// -----

graph.graph @yield_type(%x: tensor<4xf32>) -> tensor<4xf16> {
  %g = graph.group 0 (%a = %x : tensor<4xf32>) -> tensor<4xf16> {
    %r = graph.pointwise relu(%a) : (tensor<4xf32>) -> tensor<4xf32>
    // expected-error @below {{'graph.yield' op value 0 is 'tensor<4xf32>' but group result 0 is 'tensor<4xf16>'}}
    graph.yield %r : tensor<4xf32>
  }
  graph.output %g : tensor<4xf16>
}

// -----

graph.graph @ids_decrease(%x: tensor<4xf32>) -> tensor<4xf32> {
  %g = graph.group 1 (%a = %x : tensor<4xf32>) -> tensor<4xf32> {
    %r = graph.pointwise relu(%a) : (tensor<4xf32>) -> tensor<4xf32>
    graph.yield %r : tensor<4xf32>
  }
  // expected-error @below {{'graph.group' op has id 1 after group 1 (ids increase in schedule order)}}
  %h = graph.group 1 (%a = %g : tensor<4xf32>) -> tensor<4xf32> {
    %r = graph.pointwise exp(%a) : (tensor<4xf32>) -> tensor<4xf32>
    graph.yield %r : tensor<4xf32>
  }
  graph.output %h : tensor<4xf32>
}

// -----

graph.graph @negative_id(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{attribute 'id' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %g = graph.group -1 (%a = %x : tensor<4xf32>) -> tensor<4xf32> {
    %r = graph.pointwise relu(%a) : (tensor<4xf32>) -> tensor<4xf32>
    graph.yield %r : tensor<4xf32>
  }
  graph.output %g : tensor<4xf32>
}

// -----

graph.graph @engine_twice(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'graph.group' op lists engine 'codegen' twice}}
  %g = graph.group 0 engines [#graph.engine<codegen, plans = ["codegen_v1"]>, #graph.engine<codegen, plans = ["codegen_v1"]>] (%a = %x : tensor<4xf32>) -> tensor<4xf32> {
    %r = graph.pointwise relu(%a) : (tensor<4xf32>) -> tensor<4xf32>
    graph.yield %r : tensor<4xf32>
  }
  graph.output %g : tensor<4xf32>
}

// -----

graph.graph @engines_not_engines(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{attribute 'engines' failed to satisfy constraint: ranked engines of a fused group}}
  %g = graph.group 0 engines ["cudnn"] (%a = %x : tensor<4xf32>) -> tensor<4xf32> {
    %r = graph.pointwise relu(%a) : (tensor<4xf32>) -> tensor<4xf32>
    graph.yield %r : tensor<4xf32>
  }
  graph.output %g : tensor<4xf32>
}

// -----

graph.graph @empty_plan(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{engine 'cudnn': plan 0 is not a non-empty string}}
  %g = graph.group 0 engines [#graph.engine<cudnn, plans = [""]>] (%a = %x : tensor<4xf32>) -> tensor<4xf32> {
    %r = graph.pointwise relu(%a) : (tensor<4xf32>) -> tensor<4xf32>
    graph.yield %r : tensor<4xf32>
  }
  graph.output %g : tensor<4xf32>
}

// -----

graph.graph @unknown_engine(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{expected ::mlir::graph::EngineKind to be one of: cudnn, codegen, reference}}
  // expected-error @below {{failed to parse Graph_EngineAttr parameter 'kind'}}
  %g = graph.group 0 engines [#graph.engine<tensorrt, plans = []>] (%a = %x : tensor<4xf32>) -> tensor<4xf32> {
    %r = graph.pointwise relu(%a) : (tensor<4xf32>) -> tensor<4xf32>
    graph.yield %r : tensor<4xf32>
  }
  graph.output %g : tensor<4xf32>
}

// -----

graph.graph @nested(%x: tensor<4xf32>) -> tensor<4xf32> {
  %g = graph.group 0 (%a = %x : tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @below {{'graph.group' op expects parent op 'graph.graph'}}
    %h = graph.group 1 (%b = %a : tensor<4xf32>) -> tensor<4xf32> {
      %r = graph.pointwise relu(%b) : (tensor<4xf32>) -> tensor<4xf32>
      graph.yield %r : tensor<4xf32>
    }
    graph.yield %h : tensor<4xf32>
  }
  graph.output %g : tensor<4xf32>
}

// -----

graph.graph @isolated(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-note @below {{required by region isolation constraints}}
  %g = graph.group 0 () -> tensor<4xf32> {
    // expected-error @below {{using value defined outside the region}}
    %r = graph.pointwise relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
    graph.yield %r : tensor<4xf32>
  }
  graph.output %g : tensor<4xf32>
}

// -----

graph.graph @yield_outside(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'graph.yield' op expects parent op 'graph.group'}}
  graph.yield %x : tensor<4xf32>
}
