//===- NestingDepth.h - Bracket-depth guard before parsing ------*- C++ -*-===//
//
// MLIR's parser recurses once per nested attribute, type or region, so a text
// such as an attribute nested 10,000 deep overflows its stack and kills the
// process (graph-opt, graph-run, or a Python process that embeds the C API).
// Every parse of user text first runs findExcessiveNesting, a linear scan
// that counts open brackets and stops at the first one past the limit.
// Header-only and free of MLIR and LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_SUPPORT_NESTINGDEPTH_H
#define GRAPHDIALECT_SUPPORT_NESTINGDEPTH_H

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace graph {

/// The deepest bracket nesting a parsed text may have. Real graphs nest a
/// few levels (module, graph, group regions, types); each level costs the
/// parser one to two KiB of stack (8 MiB held 5,000 levels, not 10,000), so
/// 256 levels fit any thread's stack.
constexpr unsigned kMaxNestingDepth = 256;

/// Where a text nests too deep: 1-based line and column of the bracket that
/// went past the limit.
struct ExcessiveNesting {
  size_t line = 0, column = 0;
  unsigned limit = kMaxNestingDepth;

  /// "nesting deeper than 256 brackets at line L, column C (the parser would
  /// overflow its stack)".
  std::string message() const {
    return "nesting deeper than " + std::to_string(limit) +
           " brackets at line " + std::to_string(line) + ", column " +
           std::to_string(column) +
           " (the parser would overflow its stack on it)";
  }
};

/// Scans MLIR text for '(', '[', '{' and '<' nested more than `limit` deep
/// in all (each kind balanced by its own closer; "->" closes nothing),
/// skipping string literals and // comments. nullopt when within the limit.
/// Unbalanced closers never push a count below zero, so the scan never
/// rejects text that nests less than `limit` deep. MLIR bytecode (its
/// "ML\xefR" magic) is not text and is not scanned.
inline std::optional<ExcessiveNesting>
findExcessiveNesting(std::string_view text,
                     unsigned limit = kMaxNestingDepth) {
  if (text.substr(0, 4) == std::string_view("ML\xefR", 4))
    return std::nullopt;
  size_t open[4] = {0, 0, 0, 0}; // ( [ { <
  size_t line = 1, lineStart = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    switch (c) {
    case '\n':
      ++line;
      lineStart = i + 1;
      continue;
    case '"':
      // A string literal: skip to its closing quote (backslash escapes).
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\')
          ++i;
        else if (text[i] == '\n') {
          ++line;
          lineStart = i + 1;
        }
      }
      continue;
    case '/':
      if (i + 1 < text.size() && text[i + 1] == '/')
        while (i + 1 < text.size() && text[i + 1] != '\n')
          ++i;
      continue;
    case '(':
    case '[':
    case '{':
    case '<': {
      size_t kind = c == '(' ? 0 : c == '[' ? 1 : c == '{' ? 2 : 3;
      ++open[kind];
      if (open[0] + open[1] + open[2] + open[3] > limit)
        return ExcessiveNesting{line, i - lineStart + 1, limit};
      continue;
    }
    case ')':
    case ']':
    case '}':
    case '>': {
      if (c == '>' && i > 0 && text[i - 1] == '-')
        continue; // the "->" of a function type
      size_t kind = c == ')' ? 0 : c == ']' ? 1 : c == '}' ? 2 : 3;
      if (open[kind] > 0)
        --open[kind];
      continue;
    }
    default:
      continue;
    }
  }
  return std::nullopt;
}

} // namespace graph

#endif // GRAPHDIALECT_SUPPORT_NESTINGDEPTH_H
