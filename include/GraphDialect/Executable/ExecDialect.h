//===- ExecDialect.h - The exec dialect ---------------------------*- C++ -*-===//

#ifndef GRAPHDIALECT_EXECUTABLE_EXECDIALECT_H
#define GRAPHDIALECT_EXECUTABLE_EXECDIALECT_H

#include "mlir/IR/Dialect.h"

#include "GraphDialect/Executable/ExecDialect.h.inc"

#endif // GRAPHDIALECT_EXECUTABLE_EXECDIALECT_H
