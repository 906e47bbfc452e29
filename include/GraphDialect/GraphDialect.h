//===- GraphDialect.h - The graph dialect ------------------------*- C++ -*-===//

#ifndef GRAPHDIALECT_GRAPHDIALECT_H
#define GRAPHDIALECT_GRAPHDIALECT_H

#include "mlir/IR/Dialect.h"

#include "GraphDialect/GraphDialect.h.inc"

#endif // GRAPHDIALECT_GRAPHDIALECT_H
