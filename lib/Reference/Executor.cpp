//===- Executor.cpp - Run a graph on the CPU reference kernels -----------===//
//
// Walks a graph.graph in program order. Every value is a dense NdArray of
// doubles; every op result is rounded to its tensor's element type, as the
// GPU stores it, so intermediates carry the precision the graph declares.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Reference/Executor.h"

#include "GraphDialect/GraphOps.h"
#include "GraphDialect/Groups.h"
#include "GraphDialect/Reference/AttentionKernels.h"
#include "GraphDialect/Reference/Kernels.h"
#include "GraphDialect/Reference/LinearAttentionKernels.h"
#include "GraphDialect/Reference/QuantKernels.h"
#include "GraphDialect/Support/CheckedMath.h"
#include "GraphDialect/Support/Memory.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::graph;
using ::graph::ref::DType;
using ::graph::ref::NdArray;
using ::graph::ref::Shape;
namespace ref = ::graph::ref;

//===----------------------------------------------------------------------===//
// Types and tensors
//===----------------------------------------------------------------------===//

bool ref::toDType(Type type, DType &out) {
  if (type.isF32())
    out = DType::F32;
  else if (type.isF16())
    out = DType::F16;
  else if (type.isBF16())
    out = DType::BF16;
  else if (type.isF64())
    out = DType::F64;
  else if (isa<Float8E4M3FNType>(type))
    out = DType::F8E4M3FN;
  else if (isa<Float8E5M2Type>(type))
    out = DType::F8E5M2;
  else if (isa<Float8E8M0FNUType>(type))
    out = DType::F8E8M0FNU;
  else if (isa<Float4E2M1FNType>(type))
    out = DType::F4E2M1FN;
  else if (type.isInteger(1))
    out = DType::I1;
  else if (type.isUnsignedInteger(8))
    out = DType::U8;
  else if (type.isInteger(8))
    out = DType::I8;
  else if (type.isInteger(32))
    out = DType::I32;
  else if (type.isInteger(64))
    out = DType::I64;
  else
    return false;
  return true;
}

static ref::TensorInfo describeValue(Value value, DictionaryAttr attrs) {
  ref::TensorInfo info;
  auto type = cast<RankedTensorType>(value.getType());
  (void)ref::toDType(type.getElementType(), info.dtype);
  info.shape.assign(type.getShape().begin(), type.getShape().end());
  ArrayRef<int64_t> strides = getStrides(type);
  info.strides.assign(strides.begin(), strides.end());
  if (attrs) {
    if (auto uid = attrs.getAs<IntegerAttr>(GraphDialect::kUidAttrName))
      info.uid = uid.getInt();
    if (auto name = attrs.getAs<StringAttr>(GraphDialect::kNameAttrName))
      info.name = name.getValue().str();
  }
  return info;
}

void ref::describeGraph(GraphOp graph, std::vector<TensorInfo> &inputs,
                        std::vector<TensorInfo> &outputs) {
  inputs.clear();
  outputs.clear();
  Block &body = graph.getBody().front();
  for (unsigned i = 0, e = graph.getNumArguments(); i < e; ++i)
    inputs.push_back(
        describeValue(body.getArgument(i), graph.getArgAttrDict(i)));
  OutputOp output = graph.getOutputOp();
  for (unsigned i = 0, e = graph.getNumResults(); i < e; ++i)
    outputs.push_back(
        describeValue(output.getOperand(i), graph.getResultAttrDict(i)));
}

//===----------------------------------------------------------------------===//
// The interpreter
//===----------------------------------------------------------------------===//

namespace {

static_assert(::graph::kDynamicDim == ShapedType::kDynamic,
              "Support's dynamic dim must be MLIR's");

std::string formatShape(const Shape &shape) {
  std::string text = ::graph::dimsText(shape);
  return text.empty() ? "[]" : text;
}

/// `matmul "mm1": ` the prefix of every op failure.
std::string opPrefix(Operation *op) {
  std::string text = op->getName().stripDialect().str();
  StringRef label = getNodeLabel(op);
  if (!label.empty())
    text += " \"" + label.str() + "\"";
  return text + ": ";
}

class Interpreter {
public:
  std::string run(GraphOp graph, const std::vector<ref::HostTensor> &inputs,
                  std::vector<ref::HostTensor> &outputs);
  std::string runOps(const std::vector<Operation *> &ops,
                     const std::vector<std::pair<Value, NdArray>> &given,
                     const std::vector<Value> &wanted,
                     std::vector<NdArray> &results);

private:
  // A graph.group's block arguments and results stand for the values they
  // are bound to (Groups.h): one array per value of the data flow.
  const NdArray &get(Value value) {
    return values.find(resolveGroupValue(value))->second;
  }
  const NdArray *getOptional(Value value) {
    return value ? &get(value) : nullptr;
  }
  double scalarOf(Value value) { return get(value).data.at(0); }

  /// `value` as the op reads it: its padded form when `offsets` makes it
  /// ragged (packed; `seqLen` the padding mask's lengths), held in `store`.
  std::string readRagged(Value value, Value offsets, Value seqLen,
                         StringRef port, NdArray &store, const NdArray *&read) {
    read = &get(value);
    if (!offsets)
      return "";
    read = &store;
    return ref::raggedUnpack(get(value), stridesOf(value), get(offsets),
                             get(seqLen), port.str(), store);
  }
  /// The K and V an attention forward reads through its page tables
  /// (page_table_k/v; `packedK`/`packedV` the tables' ragged offsets, a
  /// packed table read into its padded form: batch b's ceil(seq_len_kv /
  /// page_size) pages) into `pagedK`/`pagedV`; a port without a table is
  /// left empty.
  template <typename PagedSdpaOp>
  std::string readPaged(PagedSdpaOp sdpa, Value packedK, Value packedV,
                        NdArray &pagedK, NdArray &pagedV) {
    for (auto [table, offsets, cache, out, port] :
         {std::tuple<Value, Value, Value, NdArray *, StringRef>{
              sdpa.getPageTableK(), packedK, sdpa.getK(), &pagedK,
              "page_table_k"},
          {sdpa.getPageTableV(), packedV, sdpa.getV(), &pagedV,
           "page_table_v"}}) {
      if (!table)
        continue;
      const NdArray *pages = &get(table);
      NdArray unpacked;
      if (offsets) {
        NdArray counts = get(sdpa.getSeqLenKv());
        double pageSize = std::max<int64_t>(1, get(cache).shape.at(2));
        for (double &count : counts.data)
          count = std::ceil(count / pageSize);
        std::string error =
            ref::raggedUnpack(*pages, stridesOf(table), get(offsets), counts,
                              port.str(), unpacked);
        if (!error.empty())
          return error;
        pages = &unpacked;
      }
      std::string error = ref::pagedCacheGather(
          get(cache), *pages, &get(sdpa.getSeqLenKv()),
          sdpa.getPagedAttentionMaxSeqLenKv().value_or(0), *out);
      if (!error.empty())
        return error;
    }
    return "";
  }
  /// An attention forward's Q, K and V as its reference reads them: a paged
  /// K/V gathered from its pages, ragged (packed) tensors in padded form.
  struct AttentionInputs {
    NdArray pagedK, pagedV, raggedQ, raggedK, raggedV;
    const NdArray *q = nullptr, *k = nullptr, *v = nullptr;
  };
  template <typename AttentionOp>
  std::string readAttentionInputs(AttentionOp sdpa, Value packedK,
                                  Value packedV, AttentionInputs &in) {
    Value seqQ = sdpa.getSeqLenQ(), seqKV = sdpa.getSeqLenKv();
    std::string error;
    if (!(error = readPaged(sdpa, packedK, packedV, in.pagedK, in.pagedV))
             .empty() ||
        !(error = readRagged(sdpa.getQ(), sdpa.getRaggedOffsetQ(), seqQ, "q",
                             in.raggedQ, in.q))
             .empty() ||
        !(error = readRagged(sdpa.getK(), sdpa.getRaggedOffsetK(), seqKV, "k",
                             in.raggedK, in.k))
             .empty() ||
        !(error = readRagged(sdpa.getV(), sdpa.getRaggedOffsetV(), seqKV, "v",
                             in.raggedV, in.v))
             .empty())
      return error;
    if (sdpa.getPageTableK())
      in.k = &in.pagedK;
    if (sdpa.getPageTableV())
      in.v = &in.pagedV;
    return "";
  }
  /// An attention forward's O and Stats packed where they are ragged.
  template <typename AttentionOp>
  std::string writeAttentionOutputs(AttentionOp sdpa, NdArray &o,
                                    NdArray &stats) {
    Value seqQ = sdpa.getSeqLenQ();
    if (std::string error =
            writeRagged(sdpa.getO(), sdpa.getRaggedOffset_O(), seqQ, "O", o);
        !error.empty())
      return error;
    return writeRagged(sdpa.getStats(), sdpa.getRaggedOffset_Stats(), seqQ,
                       "Stats", stats);
  }
  /// A result written ragged: `padded` packed at `offsets` in place.
  std::string writeRagged(Value result, Value offsets, Value seqLen,
                          StringRef port, NdArray &padded) {
    if (!offsets || !result)
      return "";
    NdArray packed;
    std::vector<char> written;
    std::string error =
        ref::raggedPack(padded, stridesOf(result), get(offsets), get(seqLen),
                        port.str(), packed, &written);
    padded = std::move(packed);
    partiallyWritten[result] = std::move(written);
    return error;
  }
  static Shape stridesOf(Value value) {
    ArrayRef<int64_t> strides =
        getStrides(cast<RankedTensorType>(value.getType()));
    return Shape(strides.begin(), strides.end());
  }

  /// Rounds `array` to `result`'s element type and checks its static dims.
  std::string bind(Operation *op, Value result, NdArray array);
  /// Binds each (result, array) pair in order, skipping absent (optional)
  /// results; the first failure wins.
  std::string
  bindAll(Operation *op,
          std::initializer_list<std::pair<Value, NdArray *>> results);
  std::string eval(Operation *op);
  /// Whether the host can hold `op`'s results as arrays of double: a static
  /// result by its dims, a dynamic one at least as its largest operand.
  std::string checkResultMemory(Operation *op);

  llvm::DenseMap<Value, NdArray> values;
  /// Results written ragged: which of their elements a packed position
  /// lies at (HostTensor::written of a graph output).
  llvm::DenseMap<Value, std::vector<char>> partiallyWritten;
  /// What the run holds on the host: the caller's buffers, every value as
  /// double, the outputs. Each buffer is checked against what is left.
  ::graph::HostMemoryBudget budget;
};

Shape declaredShape(Value value);

/// Bytes of `elements` doubles, the reference's working precision.
std::optional<int64_t> doubleBytes(int64_t elements) {
  return ::graph::checkedByteSize(elements, 64);
}

std::string Interpreter::checkResultMemory(Operation *op) {
  // A group's results are the values its nodes yield, counted with them.
  if (isa<GroupOp>(op))
    return "";
  int64_t largestOperand = 0;
  for (Value operand : op->getOperands()) {
    auto it = values.find(resolveGroupValue(operand));
    if (it != values.end())
      largestOperand = std::max(largestOperand, it->second.size());
  }
  for (OpResult result : op->getResults()) {
    auto type = cast<RankedTensorType>(result.getType());
    std::optional<int64_t> count =
        type.hasStaticShape() ? ::graph::checkedElementCount(type.getShape())
                              : std::optional<int64_t>(largestOperand);
    std::string what = opPrefix(op) + "result " +
                       std::to_string(result.getResultNumber()) + " (" +
                       formatShape(declaredShape(result)) +
                       ", held as double by the CPU reference)";
    if (std::string error =
            budget.reserve(count ? doubleBytes(*count) : std::nullopt, what);
        !error.empty())
      return error;
  }
  return "";
}

std::string Interpreter::bind(Operation *op, Value result, NdArray array) {
  auto type = cast<RankedTensorType>(result.getType());
  if (array.shape.size() != static_cast<size_t>(type.getRank()))
    return opPrefix(op) + "computed a rank-" +
           std::to_string(array.shape.size()) + " result but result " +
           std::to_string(cast<OpResult>(result).getResultNumber()) +
           " is declared with rank " + std::to_string(type.getRank());
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (!type.isDynamicDim(d) && type.getDimSize(d) != array.shape[d])
      return opPrefix(op) + "computed dims " + formatShape(array.shape) +
             " for result " +
             std::to_string(cast<OpResult>(result).getResultNumber()) +
             " declared as " + formatShape(Shape(type.getShape())) +
             " (a '?' dim binds at run time, a fixed one must match)";
  DType dtype;
  if (!ref::toDType(type.getElementType(), dtype))
    return opPrefix(op) + "the reference executor has no element type for " +
           [&] {
             std::string s;
             llvm::raw_string_ostream os(s);
             os << type.getElementType();
             return s;
           }();
  ref::roundInPlace(array, dtype);
  values[result] = std::move(array);
  return "";
}

std::string Interpreter::bindAll(
    Operation *op, std::initializer_list<std::pair<Value, NdArray *>> results) {
  for (auto [value, array] : results)
    if (value)
      if (std::string error = bind(op, value, std::move(*array));
          !error.empty())
        return error;
  return "";
}

/// Shape of `value` as declared (dynamic dims stay dynamic).
Shape declaredShape(Value value) {
  ArrayRef<int64_t> shape = cast<RankedTensorType>(value.getType()).getShape();
  return Shape(shape.begin(), shape.end());
}

bool isStatic(const Shape &shape) {
  return llvm::none_of(shape,
                       [](int64_t d) { return ShapedType::isDynamic(d); });
}

template <typename ConvOp>
ref::ConvParams convParams(ConvOp op, unsigned spatial) {
  ref::ConvParams params;
  auto copy = [](SmallVector<int64_t> v) {
    return std::vector<int64_t>(v.begin(), v.end());
  };
  params.prePadding = copy(op.getPrePaddingOrDefault(spatial));
  params.postPadding = copy(op.getPostPaddingOrDefault(spatial));
  params.stride = copy(op.getStrideOrDefault(spatial));
  params.dilation = copy(op.getDilationOrDefault(spatial));
  params.crossCorrelation =
      op.getConvolutionMode().value_or(ConvMode::cross_correlation) ==
      ConvMode::cross_correlation;
  return params;
}

template <typename SdpaOp>
std::string sdpaOptions(Interpreter *, SdpaOp op,
                        llvm::function_ref<const NdArray *(Value)> get,
                        ref::SdpaOptions &opts) {
  if (auto value = op.getAttnScaleValue())
    opts.attnScale = value->convertToDouble();
  else if (const NdArray *scale = get(op.getAttnScale()))
    opts.attnScale = scale->data.at(0);
  opts.bias = get(op.getBias());
  opts.useAlibiMask = op.getUseAlibiMask();
  opts.usePaddingMask = op.getUsePaddingMask();
  opts.seqLenQ = get(op.getSeqLenQ());
  opts.seqLenKV = get(op.getSeqLenKv());
  if (op.getDiagonalAlignment() == DiagonalAlignment::bottom_right)
    opts.diagonalAlignment = ref::DiagonalAlignment::BottomRight;
  if (auto left = op.getDiagonalBandLeftBound())
    opts.leftBound = *left;
  if (auto right = op.getDiagonalBandRightBound())
    opts.rightBound = *right;
  if (auto p = op.getDropoutProbability())
    opts.dropoutProbability = p->convertToDouble();
  opts.dropoutMask = get(op.getDropoutMask());
  if (opts.dropoutProbability > 0 && !opts.dropoutMask)
    return "dropout_probability > 0 needs an explicit dropout_mask on the CPU "
           "reference (its random stream is not cuDNN's Philox)";
  std::optional<int64_t> window;
  if (auto length = op.getSlidingWindowLength())
    window = *length;
  return ref::applyLegacyMaskFlags(opts, op.getUseCausalMask(),
                                   op.getUseCausalMaskBottomRight(), window);
}

NdArray amaxArray(double value) {
  NdArray array(Shape{1, 1, 1, 1});
  array.data[0] = value;
  return array;
}

DType dtypeOf(Value value) {
  DType dtype = DType::F32;
  (void)ref::toDType(cast<RankedTensorType>(value.getType()).getElementType(),
                     dtype);
  return dtype;
}

template <typename Op> ref::LinearAttentionOptions linearOptions(Op op) {
  ref::LinearAttentionOptions opts;
  if (auto scale = op.getScale())
    opts.scale = scale->convertToDouble();
  opts.useQkL2Norm = op.getUseQkL2norm();
  opts.batchInvariant = op.getBatchInvariant();
  return opts;
}

} // namespace

std::string Interpreter::eval(Operation *op) {
  auto fail = [&](const std::string &message) -> std::string {
    return message.empty() ? "" : opPrefix(op) + message;
  };
  // The kernel's error, or else its result bound to `result`.
  auto bindOr = [&](const std::string &kernelError, Value result,
                    NdArray &array) -> std::string {
    return kernelError.empty() ? bind(op, result, std::move(array))
                               : fail(kernelError);
  };
  auto getOpt = [&](Value v) { return getOptional(v); };
  std::string error;

  return llvm::TypeSwitch<Operation *, std::string>(op)
      .Case([&](GroupOp group) -> std::string {
        // A fused group computes its ops in program order; its results are
        // the values they yield.
        for (Operation &node : group.getNodes()) {
          std::string error = checkResultMemory(&node);
          if (error.empty())
            error = eval(&node);
          if (!error.empty())
            return error;
        }
        return "";
      })
      .Case([&](ScalarOp scalar) -> std::string {
        double value = 0;
        if (auto f = dyn_cast<FloatAttr>(scalar.getValue()))
          value = f.getValueAsDouble();
        else if (auto i = dyn_cast<IntegerAttr>(scalar.getValue()))
          value = static_cast<double>(i.getValue().getSExtValue());
        return bind(op, scalar.getOutput(),
                    NdArray(declaredShape(scalar.getOutput()), value));
      })
      .Case([&](MatmulOp mm) -> std::string {
        NdArray out;
        return bindOr(ref::matmul(get(mm.getA()), get(mm.getB()), out),
                      mm.getC(), out);
      })
      .Case([&](PointwiseOp pw) -> std::string {
        ref::PointwiseMode mode;
        if (!ref::parsePointwiseMode(stringifyPointwiseMode(pw.getMode()).str(),
                                     mode))
          return fail("mode " + stringifyPointwiseMode(pw.getMode()).str() +
                      " has no reference implementation");
        ref::PointwiseParams params;
        auto toDouble = [](FloatAttr attr) -> std::optional<double> {
          if (!attr)
            return std::nullopt;
          return attr.getValueAsDouble();
        };
        params.negativeSlope = toDouble(pw.getNegativeSlopeAttr());
        params.lowerClip = toDouble(pw.getLowerClipAttr());
        params.upperClip = toDouble(pw.getUpperClipAttr());
        params.swishBeta = toDouble(pw.getSwishBetaAttr());
        params.eluAlpha = toDouble(pw.getEluAlphaAttr());
        params.softplusBeta = toDouble(pw.getSoftplusBetaAttr());
        if (auto axis = pw.getAxis())
          params.axis = *axis;
        std::vector<const NdArray *> inputs;
        Shape outShape;
        for (Value input : pw.getInputs()) {
          inputs.push_back(&get(input));
          Shape merged;
          if (!::graph::broadcastShapes(outShape, inputs.back()->shape, merged))
            return fail("operand dims do not broadcast");
          outShape = merged;
        }
        NdArray out;
        return bindOr(ref::pointwise(mode, inputs, outShape, params, out),
                      pw.getOutput(), out);
      })
      .Case([&](ConvFpropOp conv) -> std::string {
        NdArray y;
        auto params = convParams(conv, get(conv.getImage()).rank() - 2);
        return bindOr(ref::convFprop(get(conv.getImage()),
                                     get(conv.getWeight()), params, y),
                      conv.getY(), y);
      })
      .Case([&](ConvDgradOp conv) -> std::string {
        Shape dxShape = declaredShape(conv.getDX());
        if (!isStatic(dxShape))
          return fail("DX needs static dims (they are not inferable)");
        NdArray dx;
        auto params = convParams(conv, dxShape.size() - 2);
        return bindOr(ref::convDgrad(get(conv.getLoss()), get(conv.getFilter()),
                                     params, dxShape, dx),
                      conv.getDX(), dx);
      })
      .Case([&](ConvWgradOp conv) -> std::string {
        Shape dwShape = declaredShape(conv.getDW());
        if (!isStatic(dwShape))
          return fail("DW needs static dims (they are not inferable)");
        NdArray dw;
        auto params = convParams(conv, dwShape.size() - 2);
        return bindOr(ref::convWgrad(get(conv.getImage()), get(conv.getLoss()),
                                     params, dwShape, dw),
                      conv.getDW(), dw);
      })
      .Case<LayernormOp, AdaLayernormOp, InstancenormOp>(
          [&](auto norm) -> std::string {
            using OpTy = decltype(norm);
            ref::NormForwardResult result;
            bool training = norm.getPhase() == NormPhase::training;
            const NdArray &x = get(norm.getInput());
            const NdArray &scale = get(norm.getScale());
            const NdArray *bias = &get(norm.getBias());
            double eps = scalarOf(norm.getEpsilon());
            if constexpr (std::is_same_v<OpTy, LayernormOp>)
              error =
                  ref::layernormForward(x, scale, bias, eps, training, result);
            else if constexpr (std::is_same_v<OpTy, AdaLayernormOp>)
              error = ref::adalayernormForward(x, scale, bias, eps, training,
                                               result);
            else
              error = ref::instancenormForward(x, scale, bias, eps, training,
                                               result);
            if (!error.empty())
              return fail(error);
            return bindAll(op, {{norm.getY(), &result.y},
                                {norm.getMean(), &result.mean},
                                {norm.getInvVar(), &result.invVariance}});
          })
      .Case([&](RmsnormOp norm) -> std::string {
        ref::NormForwardResult result;
        if (!(error = ref::rmsnormForward(
                  get(norm.getInput()), get(norm.getScale()),
                  getOpt(norm.getBias()), scalarOf(norm.getEpsilon()),
                  norm.getPhase() == NormPhase::training, result))
                 .empty())
          return fail(error);
        return bindAll(op, {{norm.getY(), &result.y},
                            {norm.getInvVar(), &result.invVariance}});
      })
      .Case([&](BatchnormOp norm) -> std::string {
        if (!norm.getPeerStats().empty())
          return fail("peer_stats (multi-GPU batch norm) has no CPU reference");
        ref::BatchnormForwardResult result;
        std::optional<double> momentum;
        if (norm.getMomentum())
          momentum = scalarOf(norm.getMomentum());
        if (!(error = ref::batchnormForward(
                  get(norm.getInput()), get(norm.getScale()),
                  &get(norm.getBias()), scalarOf(norm.getEpsilon()),
                  getOpt(norm.getInRunningMean()),
                  getOpt(norm.getInRunningVar()), momentum, result))
                 .empty())
          return fail(error);
        return bindAll(op,
                       {{norm.getY(), &result.y},
                        {norm.getMean(), &result.mean},
                        {norm.getInvVar(), &result.invVariance},
                        {norm.getNextRunningMean(), &result.nextRunningMean},
                        {norm.getNextRunningVar(), &result.nextRunningVar}});
      })
      .Case([&](BatchnormInferenceOp norm) -> std::string {
        NdArray y;
        return bindOr(ref::batchnormInference(
                          get(norm.getInput()), get(norm.getMean()),
                          get(norm.getInvVariance()), get(norm.getScale()),
                          &get(norm.getBias()), y),
                      norm.getY(), y);
      })
      .Case<LayernormBackwardOp, AdaLayernormBackwardOp, InstancenormBackwardOp,
            BatchnormBackwardOp>([&](auto norm) -> std::string {
        using OpTy = decltype(norm);
        ref::NormBackwardResult result;
        const NdArray &dy = get(norm.getGrad()), &x = get(norm.getInput());
        const NdArray &scale = get(norm.getScale());
        const NdArray &mean = get(norm.getMean());
        const NdArray &invVar = get(norm.getInvVariance());
        if constexpr (std::is_same_v<OpTy, LayernormBackwardOp>)
          error = ref::layernormBackward(dy, x, scale, mean, invVar, result);
        else if constexpr (std::is_same_v<OpTy, AdaLayernormBackwardOp>)
          error = ref::adalayernormBackward(dy, x, scale, mean, invVar, result);
        else if constexpr (std::is_same_v<OpTy, InstancenormBackwardOp>)
          error = ref::instancenormBackward(dy, x, scale, mean, invVar, result);
        else {
          if (!norm.getPeerStats().empty())
            return fail("peer_stats (multi-GPU batch norm) has no CPU "
                        "reference");
          error = ref::batchnormBackward(dy, x, scale, mean, invVar, result);
        }
        if (!error.empty())
          return fail(error);
        return bindAll(op, {{norm.getDX(), &result.dx},
                            {norm.getDScale(), &result.dscale},
                            {norm.getDBias(), &result.dbias}});
      })
      .Case([&](RmsnormBackwardOp norm) -> std::string {
        ref::NormBackwardResult result;
        if (!(error = ref::rmsnormBackward(
                  get(norm.getGrad()), get(norm.getInput()),
                  get(norm.getScale()), get(norm.getInvVariance()),
                  norm.getHasDbias(), result))
                 .empty())
          return fail(error);
        return bindAll(op, {{norm.getDX(), &result.dx},
                            {norm.getDScale(), &result.dscale},
                            {norm.getDBias(), &result.dbias}});
      })
      .Case([&](GenstatsOp gs) -> std::string {
        NdArray sum, sqSum;
        if (!(error = ref::genstats(get(gs.getInput()), sum, sqSum)).empty())
          return fail(error);
        return bindAll(op, {{gs.getSUM(), &sum}, {gs.getSQ_SUM(), &sqSum}});
      })
      .Case([&](ReductionOp red) -> std::string {
        if (red.getGroupOffset())
          return fail("group_offset (ragged reduction) has no CPU reference");
        ref::ReductionMode mode;
        if (!ref::parseReductionMode(
                stringifyReductionMode(red.getMode()).str(), mode))
          return fail("unknown reduction mode");
        const NdArray &in = get(red.getInput());
        Shape outShape = declaredShape(red.getOutput());
        for (size_t d = 0; d < outShape.size(); ++d)
          if (ShapedType::isDynamic(outShape[d]))
            outShape[d] = in.shape[d];
        NdArray out;
        if (!(error = ref::reduce(in, mode, outShape, out)).empty())
          return fail(error);
        return bind(op, red.getOutput(), std::move(out));
      })
      .Case([&](ReshapeOp rs) -> std::string {
        Shape shape = declaredShape(rs.getOutput());
        if (!isStatic(shape))
          return fail("the reshape target needs static dims");
        NdArray out;
        return bindOr(ref::reshape(get(rs.getInput()), shape, out),
                      rs.getOutput(), out);
      })
      .Case([&](SliceOp sl) -> std::string {
        std::vector<ref::SliceRange> ranges;
        for (size_t d = 0; d < sl.getStart().size(); ++d) {
          ref::SliceRange range;
          range.start = sl.getStart()[d];
          range.limit = sl.getLimit()[d];
          range.step = sl.getStep() ? (*sl.getStep())[d] : 1;
          ranges.push_back(range);
        }
        NdArray out;
        return bindOr(ref::slice(get(sl.getInput()), ranges, out),
                      sl.getOutput(), out);
      })
      .Case([&](TransposeOp tr) -> std::string {
        NdArray out;
        std::vector<int64_t> perm(tr.getPermutation().begin(),
                                  tr.getPermutation().end());
        return bindOr(ref::transpose(get(tr.getInput()), perm, out),
                      tr.getOutput(), out);
      })
      .Case([&](ConcatenateOp cat) -> std::string {
        std::vector<const NdArray *> inputs;
        for (Value input : cat.getInputs())
          inputs.push_back(&get(input));
        NdArray out;
        return bindOr(ref::concatenate(inputs, cat.getAxis(), out),
                      cat.getOutput(), out);
      })
      .Case<RopeOp, RopeBackwardOp>([&](auto rope) -> std::string {
        constexpr bool forward = std::is_same_v<decltype(rope), RopeOp>;
        double scale = rope.getOutputScale()
                           ? rope.getOutputScale()->convertToDouble()
                           : 1.0;
        int64_t ropeDim = rope.getRopeDim().value_or(0);
        // The op's rule, for dims bound only now ('?' in the graph): one
        // angle per rotated pair. (The kernel also takes full-width angles,
        // which the dialect does not.)
        const NdArray &x = get(rope->getOperand(0)),
                      &freqs = get(rope.getFreqs());
        int64_t pairs =
            (ropeDim ? ropeDim : (x.shape.empty() ? 0 : x.shape.back())) / 2;
        if (!freqs.shape.empty() && freqs.shape.back() != pairs)
          return fail(
              "freqs last dim must be rope_dim / 2 = " + std::to_string(pairs) +
              " but freqs dims are " + ::graph::shapeString(freqs.shape));
        NdArray out;
        error = forward ? ref::rope(get(rope->getOperand(0)),
                                    get(rope.getFreqs()), scale, ropeDim, out)
                        : ref::ropeBackward(get(rope->getOperand(0)),
                                            get(rope.getFreqs()), scale,
                                            ropeDim, out);
        if (!error.empty())
          return fail(error);
        return bind(op, rope.getOutput(), std::move(out));
      })
      .Case([&](SdpaOp sdpa) -> std::string {
        ref::SdpaOptions opts;
        if (!(error = sdpaOptions(this, sdpa, getOpt, opts)).empty())
          return fail(error);
        opts.sinkToken = getOpt(sdpa.getSinkToken());
        opts.blockMask = getOpt(sdpa.getBlockMask());
        AttentionInputs in;
        if (!(error =
                  readAttentionInputs(sdpa, sdpa.getRaggedOffsetPageTableK(),
                                      sdpa.getRaggedOffsetPageTableV(), in))
                 .empty())
          return fail(error);
        ref::SdpaForwardResult result;
        if (!(error = ref::sdpaForward(*in.q, *in.k, *in.v, opts, result))
                 .empty() ||
            !(error = writeAttentionOutputs(sdpa, result.o, result.stats))
                 .empty())
          return fail(error);
        return bindAll(op, {{sdpa.getO(), &result.o},
                            {sdpa.getStats(), &result.stats},
                            {sdpa.getScoreMax(), &result.scoreMax},
                            {sdpa.getScoreSumExp(), &result.scoreSumExp}});
      })
      .Case([&](SdpaBackwardOp sdpa) -> std::string {
        ref::SdpaOptions opts;
        if (!(error = sdpaOptions(this, sdpa, getOpt, opts)).empty())
          return fail(error);
        opts.sinkToken = getOpt(sdpa.getSinkToken());
        // Ragged (packed) tensors: inputs read padded, gradients packed.
        Value seqQ = sdpa.getSeqLenQ(), seqKV = sdpa.getSeqLenKv();
        NdArray stores[6];
        const NdArray *in[6];
        std::tuple<Value, Value, Value, StringRef> inputs[6] = {
            {sdpa.getQ(), sdpa.getRaggedOffsetQ(), seqQ, "q"},
            {sdpa.getK(), sdpa.getRaggedOffsetK(), seqKV, "k"},
            {sdpa.getV(), sdpa.getRaggedOffsetV(), seqKV, "v"},
            {sdpa.getO(), sdpa.getRaggedOffsetO(), seqQ, "o"},
            {sdpa.getDO(), sdpa.getRaggedOffsetDO(), seqQ, "dO"},
            {sdpa.getStats(), sdpa.getRaggedOffsetStats(), seqQ, "stats"}};
        for (int i = 0; i < 6; ++i) {
          auto [value, offsets, seqLen, port] = inputs[i];
          if (!(error =
                    readRagged(value, offsets, seqLen, port, stores[i], in[i]))
                   .empty())
            return fail(error);
        }
        ref::SdpaBackwardResult result;
        if (!(error = ref::sdpaBackward(*in[0], *in[1], *in[2], *in[3], *in[4],
                                        *in[5], opts, result))
                 .empty() ||
            !(error = writeRagged(sdpa.getDQ(), sdpa.getRaggedOffsetDQ(), seqQ,
                                  "dQ", result.dQ))
                 .empty() ||
            !(error = writeRagged(sdpa.getDK(), sdpa.getRaggedOffsetDK(), seqKV,
                                  "dK", result.dK))
                 .empty() ||
            !(error = writeRagged(sdpa.getDV(), sdpa.getRaggedOffsetDV(), seqKV,
                                  "dV", result.dV))
                 .empty())
          return fail(error);
        return bindAll(op, {{sdpa.getDQ(), &result.dQ},
                            {sdpa.getDK(), &result.dK},
                            {sdpa.getDV(), &result.dV},
                            {sdpa.getDBias(), &result.dBias},
                            {sdpa.getDSinkToken(), &result.dSinkToken}});
      })
      .Case([&](SdpaFp8Op sdpa) -> std::string {
        ref::SdpaOptions opts;
        if (!(error = sdpaOptions(this, sdpa, getOpt, opts)).empty())
          return fail(error);
        ref::SdpaFp8ForwardScales scales;
        scales.descaleQ = scalarOf(sdpa.getDescaleQ());
        scales.descaleK = scalarOf(sdpa.getDescaleK());
        scales.descaleV = scalarOf(sdpa.getDescaleV());
        scales.descaleS = scalarOf(sdpa.getDescaleS());
        scales.scaleS = scalarOf(sdpa.getScaleS());
        scales.scaleO = scalarOf(sdpa.getScaleO());
        // Paged K/V and ragged Q/K/V/O/Stats as graph.sdpa reads them.
        AttentionInputs in;
        if (!(error = readAttentionInputs(sdpa, Value(), Value(), in)).empty())
          return fail(error);
        ref::SdpaFp8ForwardResult result;
        if (!(error = ref::sdpaFp8Forward(*in.q, *in.k, *in.v, scales,
                                          dtypeOf(sdpa.getQ()), opts, result))
                 .empty() ||
            !(error = writeAttentionOutputs(sdpa, result.o, result.stats))
                 .empty())
          return fail(error);
        NdArray amaxS = amaxArray(result.amaxS),
                amaxO = amaxArray(result.amaxO);
        return bindAll(op, {{sdpa.getO(), &result.o},
                            {sdpa.getStats(), &result.stats},
                            {sdpa.getAmax_S(), &amaxS},
                            {sdpa.getAmax_O(), &amaxO}});
      })
      .Case([&](SdpaFp8BackwardOp sdpa) -> std::string {
        ref::SdpaOptions opts;
        if (!(error = sdpaOptions(this, sdpa, getOpt, opts)).empty())
          return fail(error);
        ref::SdpaFp8BackwardScales s;
        s.descaleQ = scalarOf(sdpa.getDescaleQ());
        s.descaleK = scalarOf(sdpa.getDescaleK());
        s.descaleV = scalarOf(sdpa.getDescaleV());
        s.descaleO = scalarOf(sdpa.getDescaleO());
        s.descaleDO = scalarOf(sdpa.getDescaleDO());
        s.descaleS = scalarOf(sdpa.getDescaleS());
        s.descaleDP = scalarOf(sdpa.getDescaleDP());
        s.scaleS = scalarOf(sdpa.getScaleS());
        s.scaleDQ = scalarOf(sdpa.getScaleDQ());
        s.scaleDK = scalarOf(sdpa.getScaleDK());
        s.scaleDV = scalarOf(sdpa.getScaleDV());
        s.scaleDP = scalarOf(sdpa.getScaleDP());
        ref::SdpaFp8BackwardResult result;
        if (!(error = ref::sdpaFp8Backward(
                  get(sdpa.getQ()), get(sdpa.getK()), get(sdpa.getV()),
                  get(sdpa.getO()), get(sdpa.getDO()), get(sdpa.getStats()), s,
                  dtypeOf(sdpa.getQ()), dtypeOf(sdpa.getDO()), opts, result))
                 .empty())
          return fail(error);
        NdArray amaxDQ = amaxArray(result.amaxDQ),
                amaxDK = amaxArray(result.amaxDK),
                amaxDV = amaxArray(result.amaxDV),
                amaxDP = amaxArray(result.amaxDP);
        return bindAll(op, {{sdpa.getDQ(), &result.dQ},
                            {sdpa.getDK(), &result.dK},
                            {sdpa.getDV(), &result.dV},
                            {sdpa.getAmaxDQ(), &amaxDQ},
                            {sdpa.getAmaxDK(), &amaxDK},
                            {sdpa.getAmaxDV(), &amaxDV},
                            {sdpa.getAmaxDP(), &amaxDP}});
      })
      .Case([&](SdpaMxfp8Op sdpa) -> std::string {
        ref::SdpaOptions opts;
        if (!(error = sdpaOptions(this, sdpa, getOpt, opts)).empty())
          return fail(error);
        ref::SdpaMxfp8ForwardResult result;
        if (!(error = ref::sdpaMxfp8Forward(
                  get(sdpa.getQ()), get(sdpa.getK()), get(sdpa.getV()),
                  get(sdpa.getDescaleQ()), get(sdpa.getDescaleK()),
                  get(sdpa.getDescaleV()), opts, result))
                 .empty())
          return fail(error);
        NdArray amaxO = amaxArray(result.amaxO);
        return bindAll(op, {{sdpa.getO(), &result.o},
                            {sdpa.getStats(), &result.stats},
                            {sdpa.getAmax_O(), &amaxO}});
      })
      .Case([&](SdpaMxfp8BackwardOp sdpa) -> std::string {
        ref::SdpaOptions opts;
        if (!(error = sdpaOptions(this, sdpa, getOpt, opts)).empty())
          return fail(error);
        ref::SdpaMxfp8BackwardInputs in;
        in.q = &get(sdpa.getQ());
        in.qT = &get(sdpa.getQ_T());
        in.k = &get(sdpa.getK());
        in.kT = &get(sdpa.getK_T());
        in.v = &get(sdpa.getV());
        in.oF16 = &get(sdpa.getOF16());
        in.dOF16 = &get(sdpa.getDOF16());
        in.dO = &get(sdpa.getDO());
        in.dOT = &get(sdpa.getDO_T());
        in.stats = &get(sdpa.getStats());
        in.descaleQ = &get(sdpa.getDescaleQ());
        in.descaleQT = &get(sdpa.getDescaleQ_T());
        in.descaleK = &get(sdpa.getDescaleK());
        in.descaleKT = &get(sdpa.getDescaleK_T());
        in.descaleV = &get(sdpa.getDescaleV());
        in.descaleDO = &get(sdpa.getDescaleDO());
        in.descaleDOT = &get(sdpa.getDescaleDO_T());
        ref::SdpaMxfp8BackwardResult result;
        if (!(error = ref::sdpaMxfp8Backward(in, opts, result)).empty())
          return fail(error);
        NdArray amaxDQ = amaxArray(result.amaxDQ),
                amaxDK = amaxArray(result.amaxDK),
                amaxDV = amaxArray(result.amaxDV);
        return bindAll(op, {{sdpa.getDQ(), &result.dQ},
                            {sdpa.getDK(), &result.dK},
                            {sdpa.getDV(), &result.dV},
                            {sdpa.getAmaxDQ(), &amaxDQ},
                            {sdpa.getAmaxDK(), &amaxDK},
                            {sdpa.getAmaxDV(), &amaxDV}});
      })
      .Case([&](BlockScaleQuantizeOp q) -> std::string {
        if (q.getGroupOffset())
          return fail("group_offset has no CPU reference");
        ref::BlockScaleQuantizeOptions opts;
        opts.blockSize = q.getBlockSize();
        opts.axis = q.getAxis().value_or(-1);
        opts.transpose = q.getTranspose();
        opts.valueType = dtypeOf(q.getY());
        opts.scaleType = dtypeOf(q.getScale());
        NdArray y, scale;
        if (!(error =
                  ref::blockScaleQuantize(get(q.getInput()), opts, y, scale))
                 .empty())
          return fail(error);
        return bindAll(op, {{q.getY(), &y}, {q.getScale(), &scale}});
      })
      .Case([&](BlockScaleDequantizeOp dq) -> std::string {
        NdArray out;
        return bindOr(
            ref::blockScaleDequantize(get(dq.getInput()), get(dq.getDescale()),
                                      {static_cast<int64_t>(dq.getBlockSize())},
                                      dq.getIsNegativeScale(), out),
            dq.getOutput(), out);
      })
      .Case([&](PagedCacheLoadOp load) -> std::string {
        NdArray out;
        return bindOr(ref::pagedCacheGather(
                          get(load.getContainer()), get(load.getPageTable()),
                          getOpt(load.getSeqLen()), load.getMaxSeqLen(), out),
                      load.getY(), out);
      })
      .Case([&](MoeGroupedMatmulOp moe) -> std::string {
        ref::MoeGroupedMatmulInputs in;
        in.token = &get(moe.getToken());
        in.weight = &get(moe.getWeight());
        in.firstTokenOffset = &get(moe.getFirstTokenOffset());
        in.tokenIndex = getOpt(moe.getTokenIndex());
        in.tokenKs = getOpt(moe.getTokenKs());
        ref::MoeMode mode = ref::MoeMode::None;
        switch (moe.getMode().value_or(MoeMode::none)) {
        case MoeMode::none:
          break;
        case MoeMode::gather:
          mode = ref::MoeMode::Gather;
          break;
        case MoeMode::scatter:
          mode = ref::MoeMode::Scatter;
          break;
        }
        Shape outShape = declaredShape(moe.getOutput());
        int64_t outRows =
            outShape.size() >= 2 ? outShape[outShape.size() - 2] : 0;
        if (ShapedType::isDynamic(outRows))
          outRows = 0;
        NdArray out;
        if (!(error = ref::moeGroupedMatmul(in, mode, moe.getTopK().value_or(1),
                                            out, outRows))
                 .empty())
          return fail(error);
        if (out.rank() + 1 == static_cast<int64_t>(outShape.size()))
          out.shape.insert(out.shape.begin(), 1);
        return bind(op, moe.getOutput(), std::move(out));
      })
      .Case([&](MoeGatherRowsOp gather) -> std::string {
        NdArray out;
        return bindOr(ref::moeGatherRows(get(gather.getInput()),
                                         get(gather.getTokenIndex()), out),
                      gather.getOutput(), out);
      })
      .Case([&](MoeScatterRowsOp scatter) -> std::string {
        NdArray out;
        return bindOr(ref::moeScatterRows(
                          get(scatter.getInput()), get(scatter.getTokenIndex()),
                          get(scatter.getTokenKs()),
                          get(scatter.getFirstTokenOffset()), scatter.getTopK(),
                          scatter.getBounded(), out),
                      scatter.getOutput(), out);
      })
      .Case([&](MoeGroupedMatmulBwdOp moe) -> std::string {
        Shape dwShape = declaredShape(moe.getDweight());
        NdArray dw;
        return bindOr(ref::moeGroupedMatmulBwd(
                          get(moe.getDoutput()), get(moe.getToken()),
                          get(moe.getFirstTokenOffset()), dwShape[0], dw),
                      moe.getDweight(), dw);
      })
      .Case<GdnOp, KdaOp, Gdn2Op>([&](auto la) -> std::string {
        using OpTy = decltype(la);
        ref::LinearAttentionInputs in;
        in.q = &get(la.getQ());
        in.k = &get(la.getK());
        in.v = &get(la.getV());
        in.g = &get(la.getG());
        in.beta = &get(la.getBeta());
        in.cuSeqlens = getOpt(la.getCuSeqlens());
        in.initialState = getOpt(la.getInitialState());
        in.aLog = getOpt(la.getALog());
        in.dtBias = getOpt(la.getDtBias());
        ref::LinearAttentionOptions opts = linearOptions(la);
        opts.safeGate = la.getSafeGate();
        opts.outputFinalState = la.getOutputFinalState();
        opts.checkpointEveryNTokens =
            la.getCheckpointEveryNTokens().value_or(0);
        auto variant = ref::LinearAttentionVariant::Gdn;
        if constexpr (std::is_same_v<OpTy, KdaOp>) {
          variant = ref::LinearAttentionVariant::Kda;
          opts.useBetaSigmoid = la.getUseBetaSigmoid();
          if (auto lb = la.getGateLowerBound())
            opts.gateLowerBound = lb->convertToDouble();
        } else if constexpr (std::is_same_v<OpTy, Gdn2Op>) {
          variant = ref::LinearAttentionVariant::Gdn2;
          in.w = &get(la.getW());
          if (auto lb = la.getGateLowerBound())
            opts.gateLowerBound = lb->convertToDouble();
        }
        ref::LinearAttentionForwardResult result;
        if (!(error = ref::linearAttentionForward(variant, in, opts, result))
                 .empty())
          return fail(error);
        return bindAll(op,
                       {{la.getO(), &result.o},
                        {la.getFinalState(), &result.finalState},
                        {la.getStateCheckpoints(), &result.stateCheckpoints}});
      })
      .Case<GdnBwdOp, KdaBwdOp, Gdn2BwdOp>([&](auto la) -> std::string {
        using OpTy = decltype(la);
        ref::LinearAttentionInputs in;
        in.q = &get(la.getQ());
        in.k = &get(la.getK());
        in.v = &get(la.getV());
        in.g = &get(la.getG());
        in.beta = &get(la.getBeta());
        in.cuSeqlens = getOpt(la.getCuSeqlens());
        in.initialState = getOpt(la.getInitialState());
        ref::LinearAttentionOptions opts = linearOptions(la);
        auto variant = ref::LinearAttentionVariant::Gdn;
        if constexpr (std::is_same_v<OpTy, KdaBwdOp>)
          variant = ref::LinearAttentionVariant::Kda;
        else if constexpr (std::is_same_v<OpTy, Gdn2BwdOp>) {
          variant = ref::LinearAttentionVariant::Gdn2;
          in.w = &get(la.getW());
        }
        ref::LinearAttentionGrads grads;
        if (!(error = ref::linearAttentionBackward(variant, in, get(la.getDO()),
                                                   getOpt(la.getDFinalState()),
                                                   opts, grads))
                 .empty())
          return fail(error);
        Value dW;
        if constexpr (std::is_same_v<OpTy, Gdn2BwdOp>)
          dW = la.getDW();
        return bindAll(op, {{la.getDQ(), &grads.dQ},
                            {la.getDK(), &grads.dK},
                            {la.getDV(), &grads.dV},
                            {la.getDG(), &grads.dG},
                            {la.getDBeta(), &grads.dBeta},
                            {dW, &grads.dW},
                            {la.getDInitialState(), &grads.dInitialState}});
      })
      .Case([&](RngOp) -> std::string {
        return opPrefix(op) +
               "draws from cuDNN's Philox stream, which the CPU reference does not "
               "reproduce: run it on the GPU, or give the keep mask as an "
               "input (sdpa's dropout_mask)";
      })
      .Default([&](Operation *) -> std::string {
        return opPrefix(op) + "has no CPU reference implementation";
      });
}

std::string Interpreter::run(GraphOp graph,
                             const std::vector<ref::HostTensor> &inputs,
                             std::vector<ref::HostTensor> &outputs) {
  std::vector<ref::TensorInfo> inInfo, outInfo;
  ref::describeGraph(graph, inInfo, outInfo);
  auto who = [&](const ref::TensorInfo &info, const char *kind, size_t index) {
    std::string text = std::string(kind) + " " + std::to_string(index);
    if (info.uid)
      text += " (uid " + std::to_string(*info.uid);
    else
      text += " (no uid";
    if (!info.name.empty())
      text += " \"" + info.name + "\"";
    return text + ")";
  };
  if (inputs.size() != inInfo.size())
    return "graph @" + graph.getSymName().str() + " has " +
           std::to_string(inInfo.size()) + " inputs but " +
           std::to_string(inputs.size()) + " buffers were given";

  // The caller's buffers stay held while the reference runs.
  for (const ref::HostTensor &given : inputs)
    budget.hold(static_cast<int64_t>(given.bytes.size()));
  Block &body = graph.getBody().front();
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ref::HostTensor &given = inputs[i];
    const ref::TensorInfo &want = inInfo[i];
    auto type = cast<RankedTensorType>(body.getArgument(i).getType());
    DType dtype;
    if (!ref::toDType(type.getElementType(), dtype))
      return who(want, "input", i) + ": element type has no CPU reference";
    if (given.dtype != dtype)
      return who(want, "input", i) + ": the graph expects " +
             ref::dtypeName(dtype) + " but the buffer holds " +
             ref::dtypeName(given.dtype);
    bool match = given.shape.size() == want.shape.size();
    for (size_t d = 0; match && d < want.shape.size(); ++d)
      match = ShapedType::isDynamic(want.shape[d]) ||
              want.shape[d] == given.shape[d];
    if (!match)
      return who(want, "input", i) + ": the graph expects dims " +
             formatShape(want.shape) + " but the buffer has " +
             formatShape(given.shape);
    std::string layoutError;
    if (!ref::checkLayout(given.shape, given.strides, &layoutError))
      return who(want, "input", i) + ": " + layoutError;
    if (std::string error = budget.reserve(
            doubleBytes(ref::numElements(given.shape)),
            who(want, "input", i) + " (" + formatShape(given.shape) +
                ", held as double by the CPU reference)");
        !error.empty())
      return error;
    int64_t needed = ::graph::spanBytes(dtype, given.shape, given.strides);
    if (static_cast<int64_t>(given.bytes.size()) < needed)
      return who(want, "input", i) + ": the buffer holds " +
             std::to_string(given.bytes.size()) +
             " bytes but its dims and "
             "strides address " +
             std::to_string(needed);
    values[body.getArgument(i)] =
        ref::load(given.bytes.data(), dtype, given.shape, given.strides);
  }

  for (Operation &op : body.without_terminator()) {
    std::string error = checkResultMemory(&op);
    if (error.empty())
      error = eval(&op);
    if (!error.empty())
      return error;
  }

  outputs.clear();
  OutputOp output = graph.getOutputOp();
  for (size_t i = 0; i < outInfo.size(); ++i) {
    const NdArray &array = get(output.getOperand(i));
    ref::HostTensor tensor;
    tensor.dtype = outInfo[i].dtype;
    tensor.shape = array.shape;
    // Declared strides when decided and static, else row-major.
    if (!outInfo[i].strides.empty() && isStatic(outInfo[i].shape))
      tensor.strides = outInfo[i].strides;
    else
      tensor.strides = ref::rowMajorStrides(array.shape);
    int64_t span = ref::spanElements(tensor.shape, tensor.strides);
    std::optional<int64_t> bytes = ::graph::checkedMul(
        span, static_cast<int64_t>(ref::byteWidth(tensor.dtype)));
    if (std::string error =
            budget.reserve(bytes, who(outInfo[i], "output", i) + " (" +
                                      formatShape(tensor.shape) + ")");
        !error.empty())
      return error;
    tensor.bytes.assign(*bytes, 0);
    ref::store(array, tensor.dtype, tensor.strides, tensor.bytes.data());
    auto partial = partiallyWritten.find(output.getOperand(i));
    if (partial != partiallyWritten.end())
      tensor.written = partial->second;
    outputs.push_back(std::move(tensor));
  }
  return "";
}

std::string ref::execute(GraphOp graph, const std::vector<HostTensor> &inputs,
                         std::vector<HostTensor> &outputs) {
  Interpreter interpreter;
  return interpreter.run(graph, inputs, outputs);
}

std::string
Interpreter::runOps(const std::vector<Operation *> &ops,
                    const std::vector<std::pair<Value, NdArray>> &given,
                    const std::vector<Value> &wanted,
                    std::vector<NdArray> &results) {
  for (const auto &[value, array] : given) {
    budget.hold(array.size() * static_cast<int64_t>(sizeof(double)));
    Shape declared = declaredShape(value);
    bool match = declared.size() == array.shape.size();
    for (size_t d = 0; match && d < declared.size(); ++d)
      match =
          ShapedType::isDynamic(declared[d]) || declared[d] == array.shape[d];
    if (!match)
      return "a given value has dims " + formatShape(array.shape) +
             " but is declared " + formatShape(declared);
    values[resolveGroupValue(value)] = array;
  }
  for (Operation *op : ops) {
    // Operands from outside `ops` must be given, except scalars.
    for (Value operand : op->getOperands()) {
      operand = resolveGroupValue(operand);
      if (values.count(operand))
        continue;
      Operation *def = operand.getDefiningOp();
      if (!def || !isa<ScalarOp>(def))
        continue;
      if (std::string error = eval(def); !error.empty())
        return error;
    }
    for (OpOperand &operand : op->getOpOperands())
      if (!values.count(resolveGroupValue(operand.get())))
        return opPrefix(op) + "operand " +
               std::to_string(operand.getOperandNumber()) +
               " is neither given nor computed by an earlier op";
    if (std::string error = checkResultMemory(op); !error.empty())
      return error;
    if (std::string error = eval(op); !error.empty())
      return error;
  }
  results.clear();
  for (Value value : wanted) {
    auto it = values.find(resolveGroupValue(value));
    if (it == values.end())
      return "a wanted value is not computed by the ops";
    results.push_back(it->second);
  }
  return "";
}

std::string ref::executeOps(const std::vector<Operation *> &ops,
                            const std::vector<std::pair<Value, NdArray>> &given,
                            const std::vector<Value> &wanted,
                            std::vector<NdArray> &results) {
  Interpreter interpreter;
  return interpreter.runOps(ops, given, wanted, results);
}
