//===- Builder.cpp - Graph builder of the embedding API ---------*- C++ -*-===//
//
// graph::GraphBuilder: tensors and ops recorded by handle and ODS port, then
// emitted as one graph.graph in the generic op form and parsed through
// Compiler::parse (so the dialect's verifier has the last word). The port
// table (BuilderPorts.inc) is generated from GraphOps.td by
// scripts/gen_builder_ports.py. Result dims left out are filled in from the
// op's shape rule (ShapeRuleOpInterface), run on the op alone.
//
//===----------------------------------------------------------------------===//

#include "CompilerInternal.h"
#include "GraphDialect/Support/Uid.h"

#include "GraphDialect/Compiler.h"
#include "GraphDialect/ShapeRule.h"
#include "GraphDialect/Support/DType.h"
#include "GraphDialect/Support/Shape.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/APFloat.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <set>

using ::graph::Compiler;
using ::graph::CompiledGraph;
using ::graph::Status;

namespace {

enum class PortKind { Single, Optional, Variadic };

struct PortSpec {
  const char *name;
  PortKind kind;
};

struct OpSpec {
  const char *kind;
  std::vector<PortSpec> operands;
  std::vector<PortSpec> results;
  bool operandSegments;
  bool resultSegments;
  const char *modeAttr;   // "mode" / "phase", or nullptr
  const char *modeFormat; // how the enum value prints (%s: the keyword)
  bool modeRequired;
  std::vector<const char *> attributes; // the other inherent attributes
};

const std::vector<OpSpec> &opSpecs() {
  static const std::vector<OpSpec> specs = {
#include "BuilderPorts.inc"
  };
  return specs;
}

const OpSpec *findSpec(std::string_view kind) {
  for (const OpSpec &spec : opSpecs())
    if (kind == spec.kind)
      return &spec;
  return nullptr;
}

Status invalid(std::string message) {
  return Status(GRAPH_ERROR_INVALID_ARGUMENT, std::move(message));
}

/// An MLIR string literal.
std::string quote(std::string_view text) {
  std::string out = "\"";
  for (unsigned char ch : text) {
    if (ch == '"' || ch == '\\' || ch < 0x20 || ch > 0x7E) {
      char hex[4];
      std::snprintf(hex, sizeof(hex), "\\%02X", ch);
      out += hex;
    } else {
      out += static_cast<char>(ch);
    }
  }
  return out + "\"";
}

bool isFloatType(GraphDType dtype) {
  ::graph::DType type;
  return ::graph::dtypeFromInt(dtype, type) && ::graph::isFloat(type);
}

/// The float semantics of the float dtypes narrower than f32 (null for
/// the others).
const llvm::fltSemantics *narrowFloatSemantics(GraphDType dtype) {
  switch (dtype) {
  case GRAPH_F16:
    return &llvm::APFloat::IEEEhalf();
  case GRAPH_BF16:
    return &llvm::APFloat::BFloat();
  case GRAPH_F8E4M3FN:
    return &llvm::APFloat::Float8E4M3FN();
  case GRAPH_F8E5M2:
    return &llvm::APFloat::Float8E5M2();
  case GRAPH_F8E8M0FNU:
    return &llvm::APFloat::Float8E8M0FNU();
  case GRAPH_F4E2M1FN:
    return &llvm::APFloat::Float4E2M1FN();
  default:
    return nullptr;
  }
}

template <typename T> std::string joinInts(const std::vector<T> &values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i)
    out += (i ? ", " : "") + std::to_string(values[i]);
  return out;
}

/// One top-level entry of an attribute dictionary: its key as written
/// (maybe quoted), the bare key, and its value text (nullopt: a unit
/// attribute).
struct AttrEntry {
  std::string keyText, key;
  std::optional<std::string> value;
};

/// Splits "{a = 1, b, c = array<i64: 1, 2>}" into its entries without
/// parsing the values (MLIR does that at finish).
Status splitAttrDict(std::string_view text, std::vector<AttrEntry> &out) {
  size_t i = 0, n = text.size();
  auto skipSpace = [&] {
    while (i < n && std::isspace(static_cast<unsigned char>(text[i])))
      ++i;
  };
  auto error = [&](const std::string &what) {
    return invalid("attributes: " + what + " at offset " + std::to_string(i) +
                   " of '" + std::string(text) + "'");
  };
  skipSpace();
  if (i == n)
    return Status();
  if (text[i] != '{')
    return error("expected '{' (an MLIR attribute dictionary)");
  ++i;
  skipSpace();
  if (i < n && text[i] == '}') {
    ++i;
  } else {
    while (true) {
      skipSpace();
      AttrEntry entry;
      size_t start = i;
      if (i < n && text[i] == '"') {
        ++i;
        while (i < n && text[i] != '"') {
          if (text[i] == '\\')
            ++i;
          ++i;
        }
        if (i >= n)
          return error("unterminated string key");
        ++i;
        entry.key = std::string(text.substr(start + 1, i - start - 2));
      } else {
        while (i < n && (std::isalnum(static_cast<unsigned char>(text[i])) ||
                         std::strchr("_.$-", text[i])))
          ++i;
        entry.key = std::string(text.substr(start, i - start));
      }
      if (entry.key.empty())
        return error("expected an attribute name");
      entry.keyText = std::string(text.substr(start, i - start));
      skipSpace();
      if (i < n && text[i] == '=') {
        ++i;
        size_t valueStart = i;
        int depth = 0;
        while (i < n) {
          char ch = text[i];
          if (ch == '"') {
            ++i;
            while (i < n && text[i] != '"') {
              if (text[i] == '\\')
                ++i;
              ++i;
            }
          } else if (ch == '-' && i + 1 < n && text[i + 1] == '>') {
            ++i; // "->" closes nothing
          } else if (ch == '(' || ch == '[' || ch == '{' || ch == '<') {
            ++depth;
          } else if (ch == ')' || ch == ']' || ch == '}' || ch == '>') {
            if (depth == 0)
              break;
            --depth;
          } else if (ch == ',' && depth == 0) {
            break;
          }
          ++i;
        }
        if (i >= n)
          return error("unterminated attribute value");
        std::string value(text.substr(valueStart, i - valueStart));
        while (!value.empty() && std::isspace((unsigned char)value.back()))
          value.pop_back();
        size_t lead = value.find_first_not_of(" \t\n\r");
        if (lead == std::string::npos)
          return error("missing value of '" + entry.key + "'");
        entry.value = value.substr(lead);
      }
      out.push_back(std::move(entry));
      skipSpace();
      if (i < n && text[i] == ',') {
        ++i;
        continue;
      }
      if (i < n && text[i] == '}') {
        ++i;
        break;
      }
      return error("expected ',' or '}'");
    }
  }
  skipSpace();
  if (i != n)
    return error("unexpected text after the dictionary");
  return Status();
}

} // namespace

// The C API's `GraphBuilder` handle type shares the name: define the C++
// class's members inside its namespace.
namespace graph {

//===----------------------------------------------------------------------===//
// GraphBuilder::Impl
//===----------------------------------------------------------------------===//

struct GraphBuilder::Impl {
  struct Tensor {
    GraphDType dtype = GRAPH_F32;
    std::vector<int64_t> dims, strides;
    std::string name;
    std::optional<int64_t> uid;
    bool output = false;
    bool byValue = false; // graph.by_value, inputs only
    bool scalar = false;
    double value = 0;
    std::optional<int64_t> intValue; // scalarInt's exact value
    int64_t producer = -1; // index of the op that produces it
    int64_t firstUse = -1; // index of the first op that reads it
  };
  struct Op {
    const OpSpec *spec;
    std::string mode, name;
    // Per ODS port, its tensors in order.
    std::vector<std::vector<int64_t>> operands, results;
    std::vector<AttrEntry> inherent, discardable;
  };

  std::string graphName;
  GraphDType io, intermediate, compute;
  std::vector<Tensor> tensors; // id i+1 is tensors[i]
  std::vector<Op> ops;

  std::string describe(int64_t id) const {
    const Tensor &t = tensors[id - 1];
    return "tensor " + std::to_string(id) +
           (t.name.empty() ? std::string() : " ('" + t.name + "')");
  }

  Status check(int64_t id, const char *call) const {
    if (id <= 0 || static_cast<size_t>(id) > tensors.size())
      return invalid(std::string(call) + ": tensor " + std::to_string(id) +
                     " does not exist (the builder has " +
                     std::to_string(tensors.size()) + " tensors, ids 1.." +
                     std::to_string(tensors.size()) + ")");
    return Status();
  }

  static Status checkShape(const std::vector<int64_t> &dims,
                           const std::vector<int64_t> &strides,
                           const char *call) {
    for (int64_t d : dims)
      if (d < -1)
        return invalid(std::string(call) + ": dim " + std::to_string(d) +
                       " is invalid (-1 is dynamic)");
    if (!strides.empty() && strides.size() != dims.size())
      return invalid(std::string(call) + ": " +
                     std::to_string(strides.size()) + " strides for rank " +
                     std::to_string(dims.size()));
    return Status();
  }

  static Status checkDType(GraphDType dtype, const char *call) {
    if (!graphDTypeName(dtype))
      return invalid(std::string(call) + ": unknown dtype " +
                     std::to_string(static_cast<int>(dtype)));
    return Status();
  }

  std::string type(int64_t id) const {
    const Tensor &t = tensors[id - 1];
    std::string out = "tensor<";
    if (!t.dims.empty())
      out += ::graph::dimsText(t.dims, /*negativeIsDynamic=*/true) + "x";
    out += graphDTypeName(t.dtype);
    if (!t.strides.empty())
      out += ", #graph.strides<[" + joinInts(t.strides) + "]>";
    return out + ">";
  }

  static std::string value(int64_t id) { return "%t" + std::to_string(id); }

  Status scalarValue(const Tensor &t, int64_t id, std::string &out) const {
    const char *ty = graphDTypeName(t.dtype);
    if (t.intValue) {
      if (t.dtype == GRAPH_I1)
        out = *t.intValue != 0 ? "true" : "false";
      else
        out = std::to_string(*t.intValue) + " : " + ty;
      return Status();
    }
    if (isFloatType(t.dtype)) {
      if (std::isfinite(t.value)) {
        char buf[64];
        std::snprintf(buf, sizeof(buf), "%.17e", t.value);
        out = std::string(buf) + " : " + ty;
        return Status();
      }
      char buf[64];
      if (t.dtype == GRAPH_F64) {
        uint64_t bits;
        std::memcpy(&bits, &t.value, 8);
        std::snprintf(buf, sizeof(buf), "0x%016" PRIX64, bits);
        out = std::string(buf) + " : " + ty;
        return Status();
      }
      if (t.dtype == GRAPH_F32) {
        float f = static_cast<float>(t.value);
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        std::snprintf(buf, sizeof(buf), "0x%08" PRIX32, bits);
        out = std::string(buf) + " : " + ty;
        return Status();
      }
      // The narrower float types: the type's own NaN or infinity, as its
      // bit pattern (the parser takes hexadecimal literals exactly as wide
      // as the type).
      const llvm::fltSemantics *sem = narrowFloatSemantics(t.dtype);
      if (!sem)
        return invalid("scalar " + describe(id) + " of type " + ty +
                       " has no non-finite values");
      bool negative =
          std::signbit(t.value) && llvm::APFloat::semanticsHasSignedRepr(*sem);
      if (std::isnan(t.value) && !llvm::APFloat::semanticsHasNaN(*sem))
        return invalid("scalar " + describe(id) + ": element type " + ty +
                       " has no NaN");
      if (std::isinf(t.value) && !llvm::APFloat::semanticsHasInf(*sem))
        return invalid("scalar " + describe(id) + ": element type " + ty +
                       " has no infinity");
      llvm::APFloat v = std::isnan(t.value)
                            ? llvm::APFloat::getQNaN(*sem, negative)
                            : llvm::APFloat::getInf(*sem, negative);
      llvm::APInt bits = v.bitcastToAPInt();
      unsigned width = std::max(1u, bits.getBitWidth() / 4);
      std::snprintf(buf, sizeof(buf), "0x%0*" PRIX64, static_cast<int>(width),
                    bits.getZExtValue());
      out = std::string(buf) + " : " + ty;
      return Status();
    }
    if (t.value != std::trunc(t.value) || !std::isfinite(t.value))
      return invalid("scalar " + describe(id) + " of integer type " + ty +
                     " has the non-integral value " + std::to_string(t.value));
    if (t.dtype == GRAPH_I1)
      out = t.value != 0 ? "true" : "false";
    else
      out = std::to_string(static_cast<int64_t>(t.value)) + " : " + ty;
    return Status();
  }

  static std::string dict(const std::vector<std::string> &entries) {
    std::string out = "{";
    for (size_t i = 0; i < entries.size(); ++i)
      out += (i ? ", " : "") + entries[i];
    return out + "}";
  }

  /// One op in the generic form, without indent or newline (a result
  /// without dims reads as rank 0).
  std::string opLine(const Op &op) const {
    const OpSpec &spec = *op.spec;
    std::vector<int64_t> operandIds, resultIds;
    std::vector<size_t> operandSizes, resultSizes;
    for (const auto &port : op.operands) {
      operandIds.insert(operandIds.end(), port.begin(), port.end());
      operandSizes.push_back(port.size());
    }
    for (const auto &port : op.results) {
      resultIds.insert(resultIds.end(), port.begin(), port.end());
      resultSizes.push_back(port.size());
    }
    std::vector<std::string> props;
    if (!op.name.empty())
      props.push_back("name = " + quote(op.name));
    if (!op.mode.empty()) {
      char buf[256];
      std::snprintf(buf, sizeof(buf), spec.modeFormat, op.mode.c_str());
      props.push_back(std::string(spec.modeAttr) + " = " + buf);
    }
    if (spec.operandSegments)
      props.push_back(
          "operandSegmentSizes = array<i32: " + joinInts(operandSizes) + ">");
    if (spec.resultSegments)
      props.push_back(
          "resultSegmentSizes = array<i32: " + joinInts(resultSizes) + ">");
    for (const AttrEntry &a : op.inherent)
      props.push_back(a.value ? a.keyText + " = " + *a.value : a.keyText);
    std::vector<std::string> extra;
    for (const AttrEntry &a : op.discardable)
      extra.push_back(a.value ? a.keyText + " = " + *a.value : a.keyText);

    std::string out;
    for (size_t i = 0; i < resultIds.size(); ++i)
      out += (i ? ", " : "") + value(resultIds[i]);
    if (!resultIds.empty())
      out += " = ";
    out += std::string("\"graph.") + spec.kind + "\"(";
    std::string operandTypes, resultTypes;
    for (size_t i = 0; i < operandIds.size(); ++i) {
      out += (i ? ", " : "") + value(operandIds[i]);
      operandTypes += (i ? ", " : "") + type(operandIds[i]);
    }
    for (size_t i = 0; i < resultIds.size(); ++i)
      resultTypes += (i ? ", " : "") + type(resultIds[i]);
    out += ")";
    if (!props.empty())
      out += " <" + dict(props) + ">";
    if (!extra.empty())
      out += " " + dict(extra);
    return out + " : (" + operandTypes + ") -> (" + resultTypes + ")";
  }

  /// Runs `op`'s shape rule on a graph of that op alone (its operands as
  /// block arguments, unverified) in `compiler`'s context and fills in the
  /// dims of its results that have none. Nothing to do when every result
  /// has dims; nothing to infer from when an operand has none (or a zero
  /// dim, which the verifier refuses first) or the op does not parse or
  /// meet its ODS constraints (finish reports those).
  Status inferResultDims(Compiler::Impl &compiler, const Op &op,
                         const std::string &where) {
    std::vector<int64_t> operandIds, resultIds;
    for (const auto &port : op.operands)
      operandIds.insert(operandIds.end(), port.begin(), port.end());
    for (const auto &port : op.results)
      resultIds.insert(resultIds.end(), port.begin(), port.end());
    if (std::none_of(resultIds.begin(), resultIds.end(),
                     [&](int64_t id) { return tensors[id - 1].dims.empty(); }))
      return Status();
    std::string argTypes, blockArgs;
    std::set<int64_t> seen;
    for (int64_t id : operandIds) {
      const std::vector<int64_t> &dims = tensors[id - 1].dims;
      if (dims.empty() || std::count(dims.begin(), dims.end(), 0))
        return Status();
      if (!seen.insert(id).second)
        continue;
      const char *sep = argTypes.empty() ? "" : ", ";
      argTypes += sep + type(id);
      blockArgs += sep + value(id) + ": " + type(id);
    }
    std::string text = "\"graph.graph\"() <{sym_name = \"probe\", "
                       "function_type = (" +
                       argTypes + ") -> ()}> ({\n";
    if (!blockArgs.empty())
      text += "^bb0(" + blockArgs + "):\n";
    text += "  " + opLine(op) + "\n}) : () -> ()\n";

    std::lock_guard<std::mutex> lock(compiler.mutex);
    mlir::MLIRContext &context = compiler.context;
    std::string diagnostics;
    mlir::ScopedDiagnosticHandler handler(
        &context, [&](mlir::Diagnostic &diag) {
          if (diag.getSeverity() == mlir::DiagnosticSeverity::Error)
            diagnostics += (diagnostics.empty() ? "" : "\n") + diag.str();
          return mlir::success();
        });
    mlir::ParserConfig config(&context, /*verifyAfterParse=*/false);
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(text, config);
    if (!module)
      return Status();
    mlir::graph::ShapeRuleOpInterface rule;
    module->walk([&](mlir::graph::ShapeRuleOpInterface found) {
      rule = found;
      return mlir::WalkResult::interrupt();
    });
    if (!rule || mlir::failed(rule.verifyConstraints()))
      return Status();
    diagnostics.clear();
    mlir::graph::ResultDims dims;
    if (mlir::failed(rule.inferResultDims(dims)))
      return Status(GRAPH_ERROR_INVALID_GRAPH,
                    where + ": the shape rule fails: " + diagnostics);
    for (const mlir::graph::ResultDims::Entry &entry : dims.entries()) {
      auto result = llvm::dyn_cast_or_null<mlir::OpResult>(entry.result);
      if (!result || result.getResultNumber() >= resultIds.size())
        continue;
      Tensor &t = tensors[resultIds[result.getResultNumber()] - 1];
      if (!t.dims.empty())
        continue;
      for (int64_t d : entry.dims)
        t.dims.push_back(mlir::ShapedType::isDynamic(d) ? -1 : d);
      t.strides.clear();
    }
    return Status();
  }

  Status emit(std::string &text) const {
    std::vector<int64_t> inputs, outputs;
    for (size_t i = 0; i < tensors.size(); ++i) {
      const Tensor &t = tensors[i];
      int64_t id = static_cast<int64_t>(i) + 1;
      if (t.byValue && (t.scalar || t.producer >= 0))
        return invalid(
            describe(id) + ": setByValue marks a graph input, but " +
            (t.scalar ? std::string("it is a scalar (its value is fixed)")
                      : "op " + std::to_string(t.producer) + " produces it"));
      if (!t.scalar && t.producer < 0)
        inputs.push_back(id);
      if (t.output)
        outputs.push_back(id);
    }
    auto ioAttrs = [&](int64_t id, bool isInput) {
      const Tensor &t = tensors[id - 1];
      std::vector<std::string> entries;
      if (!t.name.empty())
        entries.push_back("graph.name = " + quote(t.name));
      if (t.uid)
        entries.push_back("graph.uid = " + std::to_string(*t.uid) + " : i64");
      if (isInput && t.byValue)
        entries.push_back("graph.by_value");
      return dict(entries);
    };
    std::string argTypes, argAttrs, resTypes, resAttrs, blockArgs;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const char *sep = i ? ", " : "";
      argTypes += sep + type(inputs[i]);
      argAttrs += sep + ioAttrs(inputs[i], /*isInput=*/true);
      blockArgs += sep + value(inputs[i]) + ": " + type(inputs[i]);
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      const char *sep = i ? ", " : "";
      resTypes += sep + type(outputs[i]);
      resAttrs += sep + ioAttrs(outputs[i], /*isInput=*/false);
    }
    std::string out;
    out += "\"graph.graph\"() <{sym_name = " + quote(graphName) +
           ", function_type = (" + argTypes + ") -> (" + resTypes + ")";
    out += ", arg_attrs = [" + argAttrs + "], res_attrs = [" + resAttrs + "]";
    if (graphDTypeName(io))
      out += std::string(", io_data_type = ") + graphDTypeName(io);
    out += std::string(", intermediate_data_type = ") +
           graphDTypeName(intermediate) +
           ", compute_data_type = " + graphDTypeName(compute) + "}> ({\n";
    if (!inputs.empty())
      out += "^bb0(" + blockArgs + "):\n";

    // A scalar is emitted right before the first op that reads it; the
    // scalars no op reads come first.
    std::vector<bool> done(tensors.size(), false);
    auto emitScalar = [&](int64_t id) -> Status {
      const Tensor &t = tensors[id - 1];
      if (!t.scalar || done[id - 1])
        return Status();
      done[id - 1] = true;
      std::string v;
      if (Status s = scalarValue(t, id, v); !s.ok())
        return s;
      std::vector<std::string> props{"value = " + v};
      if (t.uid)
        props.push_back("uid = " + std::to_string(*t.uid) + " : i64");
      if (!t.name.empty())
        props.push_back("name = " + quote(t.name));
      out += "  " + value(id) + " = \"graph.scalar\"() <" + dict(props) +
             "> : () -> " + type(id) + "\n";
      return Status();
    };
    std::vector<bool> read(tensors.size(), false);
    for (const Op &op : ops)
      for (const auto &port : op.operands)
        for (int64_t id : port)
          read[id - 1] = true;
    for (size_t i = 0; i < tensors.size(); ++i)
      if (!read[i])
        if (Status s = emitScalar(static_cast<int64_t>(i) + 1); !s.ok())
          return s;

    for (const Op &op : ops) {
      for (const auto &port : op.operands)
        for (int64_t id : port)
          if (Status s = emitScalar(id); !s.ok())
            return s;
      out += "  " + opLine(op) + "\n";
    }

    out += "  \"graph.output\"(";
    for (size_t i = 0; i < outputs.size(); ++i)
      out += (i ? ", " : "") + value(outputs[i]);
    out += ") : (" + resTypes + ") -> ()\n}) : () -> ()\n";
    text = std::move(out);
    return Status();
  }
};

//===----------------------------------------------------------------------===//
// GraphBuilder
//===----------------------------------------------------------------------===//

GraphBuilder::GraphBuilder(std::string_view graphName, GraphDType io,
                           GraphDType intermediate, GraphDType compute)
    : impl(std::make_unique<Impl>()) {
  impl->graphName = std::string(graphName.empty() ? "main" : graphName);
  impl->io = io;
  impl->intermediate = intermediate;
  impl->compute = compute;
}
GraphBuilder::~GraphBuilder() = default;
GraphBuilder::GraphBuilder(GraphBuilder &&) noexcept = default;
GraphBuilder &GraphBuilder::operator=(GraphBuilder &&) noexcept = default;

#define GRAPH_BUILDER_CHECK_IMPL(call)                                         \
  if (!impl)                                                                   \
    return invalid(std::string(call) + ": the GraphBuilder was moved from");

Status GraphBuilder::tensor(GraphDType dtype, const std::vector<int64_t> &dims,
                            const std::vector<int64_t> &strides,
                            std::string_view name, int64_t &id) {
  GRAPH_BUILDER_CHECK_IMPL("tensor");
  if (Status s = Impl::checkDType(dtype, "tensor"); !s.ok())
    return s;
  if (Status s = Impl::checkShape(dims, strides, "tensor"); !s.ok())
    return s;
  Impl::Tensor t;
  t.dtype = dtype;
  t.dims = dims;
  t.strides = strides;
  t.name = std::string(name);
  impl->tensors.push_back(std::move(t));
  id = static_cast<int64_t>(impl->tensors.size());
  return Status();
}

Status GraphBuilder::scalar(GraphDType dtype, double value,
                            std::string_view name, int64_t &id) {
  GRAPH_BUILDER_CHECK_IMPL("scalar");
  if (Status s = Impl::checkDType(dtype, "scalar"); !s.ok())
    return s;
  Impl::Tensor t;
  t.dtype = dtype;
  t.dims = {1};
  t.name = std::string(name);
  t.scalar = true;
  t.value = value;
  impl->tensors.push_back(std::move(t));
  id = static_cast<int64_t>(impl->tensors.size());
  return Status();
}

Status GraphBuilder::scalarInt(GraphDType dtype, int64_t value,
                               std::string_view name, int64_t &id) {
  GRAPH_BUILDER_CHECK_IMPL("scalarInt");
  if (Status s = Impl::checkDType(dtype, "scalarInt"); !s.ok())
    return s;
  if (isFloatType(dtype))
    return invalid(std::string("scalarInt: ") + graphDTypeName(dtype) +
                   " is a float type (give its value with scalar)");
  if (Status s = scalar(dtype, static_cast<double>(value), name, id); !s.ok())
    return s;
  impl->tensors.back().intValue = value;
  return Status();
}

Status GraphBuilder::setUid(int64_t tensor, int64_t uid) {
  GRAPH_BUILDER_CHECK_IMPL("setUid");
  if (Status s = impl->check(tensor, "setUid"); !s.ok())
    return s;
  if (uid < 0)
    return invalid("setUid: uid " + std::to_string(uid) + " of " +
                   impl->describe(tensor) + " is negative (uids must be >= 0)");
  if (uid > ::graph::kMaxUid)
    return invalid("setUid: uid " + std::to_string(uid) + " of " +
                   impl->describe(tensor) + " is above the largest uid " +
                   std::to_string(::graph::kMaxUid) +
                   " (the two largest int64 values are reserved)");
  for (size_t i = 0; i < impl->tensors.size(); ++i) {
    int64_t other = static_cast<int64_t>(i) + 1;
    if (other != tensor && impl->tensors[i].uid == uid)
      return invalid("setUid: uid " + std::to_string(uid) +
                     " is already assigned to " + impl->describe(other) +
                     "; cannot assign it to " + impl->describe(tensor) +
                     " too");
  }
  impl->tensors[tensor - 1].uid = uid;
  return Status();
}

Status GraphBuilder::setName(int64_t tensor, std::string_view name) {
  GRAPH_BUILDER_CHECK_IMPL("setName");
  if (Status s = impl->check(tensor, "setName"); !s.ok())
    return s;
  impl->tensors[tensor - 1].name = std::string(name);
  return Status();
}

Status GraphBuilder::setDims(int64_t tensor, const std::vector<int64_t> &dims) {
  GRAPH_BUILDER_CHECK_IMPL("setDims");
  if (Status s = impl->check(tensor, "setDims"); !s.ok())
    return s;
  Impl::Tensor &t = impl->tensors[tensor - 1];
  if (Status s = Impl::checkShape(dims, {}, "setDims"); !s.ok())
    return s;
  t.dims = dims;
  if (t.strides.size() != dims.size())
    t.strides.clear(); // strides of the old rank no longer apply
  return Status();
}

Status GraphBuilder::setStrides(int64_t tensor,
                                const std::vector<int64_t> &strides) {
  GRAPH_BUILDER_CHECK_IMPL("setStrides");
  if (Status s = impl->check(tensor, "setStrides"); !s.ok())
    return s;
  Impl::Tensor &t = impl->tensors[tensor - 1];
  if (Status s = Impl::checkShape(t.dims, strides, "setStrides"); !s.ok())
    return s;
  t.strides = strides;
  return Status();
}

Status GraphBuilder::setDType(int64_t tensor, GraphDType dtype) {
  GRAPH_BUILDER_CHECK_IMPL("setDType");
  if (Status s = impl->check(tensor, "setDType"); !s.ok())
    return s;
  if (Status s = Impl::checkDType(dtype, "setDType"); !s.ok())
    return s;
  impl->tensors[tensor - 1].dtype = dtype;
  return Status();
}

Status GraphBuilder::setOutput(int64_t tensor, bool output) {
  GRAPH_BUILDER_CHECK_IMPL("setOutput");
  if (Status s = impl->check(tensor, "setOutput"); !s.ok())
    return s;
  impl->tensors[tensor - 1].output = output;
  return Status();
}

Status GraphBuilder::setVirtual(int64_t tensor, bool isVirtual) {
  return setOutput(tensor, !isVirtual);
}

Status GraphBuilder::setByValue(int64_t tensor, bool byValue) {
  GRAPH_BUILDER_CHECK_IMPL("setByValue");
  if (Status s = impl->check(tensor, "setByValue"); !s.ok())
    return s;
  impl->tensors[tensor - 1].byValue = byValue;
  return Status();
}

Status GraphBuilder::op(std::string_view kind, std::string_view mode,
                        std::string_view name, const std::vector<Port> &inputs,
                        const std::vector<Port> &outputs,
                        std::string_view attributes) {
  return addOp(nullptr, kind, mode, name, inputs, outputs, attributes);
}

Status GraphBuilder::op(Compiler &compiler, std::string_view kind,
                        std::string_view mode, std::string_view name,
                        const std::vector<Port> &inputs,
                        const std::vector<Port> &outputs,
                        std::string_view attributes) {
  return addOp(&compiler, kind, mode, name, inputs, outputs, attributes);
}

Status GraphBuilder::addOp(Compiler *compiler, std::string_view kind,
                           std::string_view mode, std::string_view name,
                           const std::vector<Port> &inputs,
                           const std::vector<Port> &outputs,
                           std::string_view attributes) {
  GRAPH_BUILDER_CHECK_IMPL("op");
  const OpSpec *spec = findSpec(kind);
  if (!spec) {
    std::string known;
    for (const OpSpec &s : opSpecs())
      known += (known.empty() ? "" : ", ") + std::string(s.kind);
    return invalid("op: unknown op kind '" + std::string(kind) +
                   "'; the graph dialect's ops are: " + known);
  }
  std::string where = "op '" + std::string(kind) + "'" +
                      (name.empty() ? "" : " ('" + std::string(name) + "')");
  int64_t opIndex = static_cast<int64_t>(impl->ops.size());

  Impl::Op op;
  op.spec = spec;
  op.mode = std::string(mode);
  op.name = std::string(name);

  // The enum mode / phase.
  if (!mode.empty() && !spec->modeAttr)
    return invalid(where + ": takes no mode, but mode '" + std::string(mode) +
                   "' was given");
  if (mode.empty() && spec->modeRequired)
    return invalid(where + ": needs its " + spec->modeAttr +
                   " (the mode argument)");
  for (char ch : mode)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_')
      return invalid(where + ": mode '" + std::string(mode) +
                     "' is not a keyword");

  // Ports to ODS positions.
  auto bind = [&](const std::vector<PortSpec> &specs,
                  const std::vector<Port> &given, bool results,
                  std::vector<std::vector<int64_t>> &slots) -> Status {
    const char *what = results ? "result" : "operand";
    slots.assign(specs.size(), {});
    std::vector<std::map<int64_t, int64_t>> variadic(specs.size());
    std::set<std::string> seen;
    auto portList = [&] {
      std::string list;
      for (const PortSpec &p : specs)
        list += (list.empty() ? "" : ", ") + std::string(p.name) +
                (p.kind == PortKind::Optional   ? " (optional)"
                 : p.kind == PortKind::Variadic ? "_<i> (variadic)"
                                                : "");
      return list.empty() ? std::string("none") : list;
    };
    for (const Port &port : given) {
      if (!seen.insert(port.port).second)
        return invalid(where + ": " + what + " port '" + port.port +
                       "' is given twice");
      if (Status s = impl->check(port.tensor, "op"); !s.ok())
        return invalid(where + ": " + what + " port '" + port.port + "': " +
                       s.message().substr(4));
      bool found = false;
      for (size_t i = 0; i < specs.size() && !found; ++i) {
        const PortSpec &p = specs[i];
        std::string pname = p.name;
        if (p.kind != PortKind::Variadic) {
          if (port.port == pname) {
            slots[i].push_back(port.tensor);
            found = true;
          }
          continue;
        }
        if (port.port.size() > pname.size() + 1 &&
            port.port.compare(0, pname.size() + 1, pname + "_") == 0) {
          std::string index = port.port.substr(pname.size() + 1);
          if (index.find_first_not_of("0123456789") == std::string::npos &&
              index.size() < 10) {
            variadic[i][std::stoll(index)] = port.tensor;
            found = true;
          }
        }
      }
      if (!found)
        return invalid(where + ": unknown " + what + " port '" + port.port +
                       "'; its " + what + " ports are: " + portList());
    }
    for (size_t i = 0; i < specs.size(); ++i) {
      const PortSpec &p = specs[i];
      if (p.kind == PortKind::Single && slots[i].empty())
        return invalid(where + ": missing required " + what + " port '" +
                       p.name + "'");
      int64_t expect = 0;
      for (const auto &[index, tensor] : variadic[i]) {
        if (index != expect)
          return invalid(where + ": variadic " + what + " port '" + p.name +
                         "_" + std::to_string(expect) + "' is missing (" +
                         p.name + "_" + std::to_string(index) +
                         " is given; number them from 0 without gaps)");
        slots[i].push_back(tensor);
        ++expect;
      }
    }
    return Status();
  };
  if (Status s = bind(spec->operands, inputs, false, op.operands); !s.ok())
    return s;
  if (Status s = bind(spec->results, outputs, true, op.results); !s.ok())
    return s;

  // Results must be fresh tensors: not scalars, not produced, not read yet.
  std::set<int64_t> produced;
  for (const auto &port : op.results)
    for (int64_t id : port) {
      const Impl::Tensor &t = impl->tensors[id - 1];
      if (t.scalar)
        return invalid(where + ": " + impl->describe(id) +
                       " is a scalar and cannot be an op's result");
      if (t.producer >= 0)
        return invalid(where + ": " + impl->describe(id) +
                       " is already the result of op #" +
                       std::to_string(t.producer) + " ('" +
                       impl->ops[t.producer].spec->kind + "')");
      if (!produced.insert(id).second)
        return invalid(where + ": " + impl->describe(id) +
                       " is given for two results");
      if (t.firstUse >= 0)
        return invalid(where + ": " + impl->describe(id) +
                       " is used before it exists: op #" +
                       std::to_string(t.firstUse) + " ('" +
                       impl->ops[t.firstUse].spec->kind +
                       "') reads it as a graph input before this op "
                       "produces it; add the producing op first");
    }
  for (const auto &port : op.operands)
    for (int64_t id : port)
      if (produced.count(id))
        return invalid(where + ": " + impl->describe(id) +
                       " is both an operand and a result of the op");

  // Attributes.
  std::vector<AttrEntry> entries;
  if (Status s = splitAttrDict(attributes, entries); !s.ok())
    return invalid(where + ": " + s.message());
  std::set<std::string> keys;
  for (AttrEntry &entry : entries) {
    if (!keys.insert(entry.key).second)
      return invalid(where + ": attribute '" + entry.key + "' is given twice");
    if (entry.key == "name" || entry.key == "operandSegmentSizes" ||
        entry.key == "resultSegmentSizes" ||
        (spec->modeAttr && entry.key == spec->modeAttr))
      return invalid(where + ": attribute '" + entry.key +
                     "' is set by the builder (" +
                     (entry.key == "name"
                          ? "pass it as the op's name"
                          : entry.key == "operandSegmentSizes" ||
                                    entry.key == "resultSegmentSizes"
                                ? "from the ports given"
                                : "pass it as the op's mode") +
                     ")");
    if (entry.key.find('.') != std::string::npos) {
      op.discardable.push_back(std::move(entry));
      continue;
    }
    bool known = false;
    for (const char *a : spec->attributes)
      known |= entry.key == a;
    if (!known) {
      std::string list;
      for (const char *a : spec->attributes)
        if (std::strcmp(a, "name") != 0)
          list += (list.empty() ? "" : ", ") + std::string(a);
      return invalid(where + ": unknown attribute '" + entry.key +
                     "'; its attributes are: " +
                     (list.empty() ? std::string("none") : list));
    }
    op.inherent.push_back(std::move(entry));
  }

  // Result dims from the op's shape rule (the results are fresh: only the
  // dims the rule fills in change, and only when it holds).
  if (compiler)
    if (Status s = impl->inferResultDims(*compiler->impl, op, where); !s.ok())
      return s;

  // Commit.
  for (const auto &port : op.operands)
    for (int64_t id : port)
      if (impl->tensors[id - 1].firstUse < 0 &&
          impl->tensors[id - 1].producer < 0)
        impl->tensors[id - 1].firstUse = opIndex;
  for (int64_t id : produced)
    impl->tensors[id - 1].producer = opIndex;
  impl->ops.push_back(std::move(op));
  return Status();
}

Status GraphBuilder::shape(int64_t tensor, std::vector<int64_t> &dims,
                           std::vector<int64_t> &strides) const {
  GRAPH_BUILDER_CHECK_IMPL("shape");
  if (Status s = impl->check(tensor, "shape"); !s.ok())
    return s;
  dims = impl->tensors[tensor - 1].dims;
  strides = impl->tensors[tensor - 1].strides;
  return Status();
}

Status GraphBuilder::text(std::string &out) const {
  GRAPH_BUILDER_CHECK_IMPL("text");
  return impl->emit(out);
}

Status GraphBuilder::finish(Compiler &compiler, CompiledGraph &out) const {
  GRAPH_BUILDER_CHECK_IMPL("finish");
  std::string source;
  if (Status s = impl->emit(source); !s.ok())
    return s;
  return compiler.parse(source, out, "<builder @" + impl->graphName + ">");
}

} // namespace graph
