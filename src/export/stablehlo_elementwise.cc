// Element-wise ONNX ops -> StableHLO: numpy broadcasting becomes broadcast_in_dim to the
// node's static output shape; activations become their defining formulas.
#include <cmath>
#include <limits>

#include "export/stablehlo_emitter.h"

namespace vt::hlo {

namespace {

// Both operands broadcast to the output shape, the second converted to the first's dtype
// (Pow's exponent may be another type).
Expected<std::pair<Val, Val>> BroadcastPair(NodeContext& cx, const Shape& out) {
  VT_ASSIGN_OR_RETURN(Val a, cx.In(0));
  VT_ASSIGN_OR_RETURN(Val b, cx.In(1));
  b = cx.e().Convert(b, a.dtype);
  return std::make_pair(cx.e().BroadcastTo(a, out), cx.e().BroadcastTo(b, out));
}

template <const char* kOp>
Status BinaryOp(NodeContext& cx) {
  const Shape out = cx.OutShape(0);
  VT_ASSIGN_OR_RETURN(auto ab, BroadcastPair(cx, out));
  cx.Set(0, cx.e().Binary(kOp, ab.first, ab.second));
  return Status::Ok();
}

template <const char* kDir>
Status CompareOp(NodeContext& cx) {
  const Shape out = cx.OutShape(0);
  VT_ASSIGN_OR_RETURN(auto ab, BroadcastPair(cx, out));
  cx.Set(0, cx.e().Compare(kDir, ab.first, ab.second));
  return Status::Ok();
}

template <const char* kOp>
Status UnaryOp(NodeContext& cx) {
  VT_ASSIGN_OR_RETURN(Val x, cx.In(0));
  cx.Set(0, cx.e().Unary(kOp, x));
  return Status::Ok();
}

// Sum / Max / Min / Mean with any number of inputs.
template <const char* kOp>
Status VariadicOp(NodeContext& cx) {
  const Shape out = cx.OutShape(0);
  Val acc;
  size_t n = 0;
  for (size_t i = 0; i < cx.num_inputs(); ++i) {
    if (!cx.has_input(i)) continue;
    VT_ASSIGN_OR_RETURN(Val v, cx.In(i));
    v = cx.e().BroadcastTo(v, out);
    acc = n++ == 0 ? v : cx.e().Binary(kOp, acc, v);
  }
  if (n == 0) return cx.Error("needs at least one input");
  if (cx.node().op_type == "Mean" && n > 1)
    acc = cx.e().Binary("stablehlo.divide", acc, cx.e().Splat(static_cast<double>(n), acc.dtype, out));
  cx.Set(0, acc);
  return Status::Ok();
}

constexpr char kAdd[] = "stablehlo.add";
constexpr char kSub[] = "stablehlo.subtract";
constexpr char kMul[] = "stablehlo.multiply";
constexpr char kDiv[] = "stablehlo.divide";
constexpr char kPow[] = "stablehlo.power";
constexpr char kMax[] = "stablehlo.maximum";
constexpr char kMin[] = "stablehlo.minimum";
constexpr char kAnd[] = "stablehlo.and";
constexpr char kOr[] = "stablehlo.or";
constexpr char kXor[] = "stablehlo.xor";
constexpr char kEQ[] = "EQ";
constexpr char kLT[] = "LT";
constexpr char kLE[] = "LE";
constexpr char kGT[] = "GT";
constexpr char kGE[] = "GE";
constexpr char kLogistic[] = "stablehlo.logistic";
constexpr char kTanh[] = "stablehlo.tanh";
constexpr char kExp[] = "stablehlo.exponential";
constexpr char kLog[] = "stablehlo.log";
constexpr char kSqrt[] = "stablehlo.sqrt";
constexpr char kNeg[] = "stablehlo.negate";
constexpr char kAbs[] = "stablehlo.abs";
constexpr char kNot[] = "stablehlo.not";
constexpr char kFloor[] = "stablehlo.floor";
constexpr char kCeil[] = "stablehlo.ceil";
constexpr char kRound[] = "stablehlo.round_nearest_even";
constexpr char kSign[] = "stablehlo.sign";
constexpr char kSin[] = "stablehlo.sine";
constexpr char kCos[] = "stablehlo.cosine";
constexpr char kErf[] = "chlo.erf";

Status Relu(NodeContext& cx) {
  VT_ASSIGN_OR_RETURN(Val x, cx.In(0));
  cx.Set(0, cx.e().Binary(kMax, x, cx.e().Splat(0, x.dtype, x.shape)));
  return Status::Ok();
}

Status Reciprocal(NodeContext& cx) {
  VT_ASSIGN_OR_RETURN(Val x, cx.In(0));
  cx.Set(0, cx.e().Binary(kDiv, cx.e().Splat(1, x.dtype, x.shape), x));
  return Status::Ok();
}

Status LeakyRelu(NodeContext& cx) {
  VT_ASSIGN_OR_RETURN(Val x, cx.In(0));
  Emitter& e = cx.e();
  const double alpha = cx.node().GetFloat("alpha", 0.01f);
  Val zero = e.Splat(0, x.dtype, x.shape);
  Val scaled = e.Binary(kMul, x, e.Splat(alpha, x.dtype, x.shape));
  cx.Set(0, e.Select(e.Compare("GT", x, zero), x, scaled));
  return Status::Ok();
}

Status Elu(NodeContext& cx) {
  VT_ASSIGN_OR_RETURN(Val x, cx.In(0));
  Emitter& e = cx.e();
  const double alpha = cx.node().GetFloat("alpha", 1.0f);
  Val zero = e.Splat(0, x.dtype, x.shape);
  Val neg = e.Binary(kMul, e.Unary("stablehlo.exponential_minus_one", x), e.Splat(alpha, x.dtype, x.shape));
  cx.Set(0, e.Select(e.Compare("GT", x, zero), x, neg));
  return Status::Ok();
}

// clamp(0, alpha * x + beta, 1)
Val HardSigmoidOf(Emitter& e, const Val& x, double alpha, double beta) {
  Val lin = e.Binary(kAdd, e.Binary(kMul, x, e.Splat(alpha, x.dtype, x.shape)),
                     e.Splat(beta, x.dtype, x.shape));
  return e.Clamp(e.Scalar(0, x.dtype), lin, e.Scalar(1, x.dtype));
}

Status HardSigmoid(NodeContext& cx) {
  VT_ASSIGN_OR_RETURN(Val x, cx.In(0));
  cx.Set(0, HardSigmoidOf(cx.e(), x, cx.node().GetFloat("alpha", 0.2f), cx.node().GetFloat("beta", 0.5f)));
  return Status::Ok();
}

Status HardSwish(NodeContext& cx) {
  VT_ASSIGN_OR_RETURN(Val x, cx.In(0));
  // The schema's definition: x * HardSigmoid(x, alpha = 1/6, beta = 0.5).
  Val hs = HardSigmoidOf(cx.e(), x, static_cast<double>(1.0f / 6.0f), 0.5);
  cx.Set(0, cx.e().Binary(kMul, x, hs));
  return Status::Ok();
}

Status Softplus(NodeContext& cx) {
  VT_ASSIGN_OR_RETURN(Val x, cx.In(0));
  cx.Set(0, cx.e().Unary("stablehlo.log_plus_one", cx.e().Unary(kExp, x)));
  return Status::Ok();
}

// Clip: min/max from inputs 1 and 2 (opset >= 11) or attributes (older); absent bounds are
// the dtype's extremes. stablehlo.clamp takes rank-0 bounds.
Status Clip(NodeContext& cx) {
  VT_ASSIGN_OR_RETURN(Val x, cx.In(0));
  Emitter& e = cx.e();
  const double inf = std::numeric_limits<double>::infinity();
  Val lo, hi;
  if (cx.node().opset < 11) {
    lo = e.Scalar(cx.node().GetFloat("min", -std::numeric_limits<float>::infinity()), x.dtype);
    hi = e.Scalar(cx.node().GetFloat("max", std::numeric_limits<float>::infinity()), x.dtype);
  } else {
    if (cx.has_input(1)) {
      VT_ASSIGN_OR_RETURN(lo, cx.In(1));
      lo = e.Reshape(lo, {});
    } else {
      lo = e.Scalar(-inf, x.dtype);
    }
    if (cx.has_input(2)) {
      VT_ASSIGN_OR_RETURN(hi, cx.In(2));
      hi = e.Reshape(hi, {});
    } else {
      hi = e.Scalar(inf, x.dtype);
    }
  }
  cx.Set(0, e.Clamp(lo, x, hi));
  return Status::Ok();
}

// Casts into the small types (docs/dtypes.md): stablehlo.convert leaves their overflow to the
// implementation, so only the saturating float8e4m3fn / float8e5m2 casts from a float are
// exported (clamped to +-max first, which is what saturate=1 gives them, Inf included);
// casts out of the small types are exact and convert directly.
Status CastToSmall(NodeContext& cx, const Val& x, DType to) {
  const bool saturate = cx.node().GetInt("saturate", 1) != 0;
  if (!(to == DType::kFloat8E4M3FN || to == DType::kFloat8E5M2) || !saturate ||
      !(IsFloatDType(x.dtype) || IsFloat8DType(x.dtype)))
    return Unimplemented(std::string("Cast from ") + DTypeName(x.dtype) + " to " + DTypeName(to) +
                         (saturate ? "" : " with saturate=0") +
                         " is not exported (only saturating float -> float8e4m3fn / float8e5m2)");
  const double max = to == DType::kFloat8E4M3FN ? 448.0 : 57344.0;
  Val c = cx.e().Clamp(cx.e().Splat(-max, x.dtype, x.shape), x, cx.e().Splat(max, x.dtype, x.shape));
  cx.Set(0, cx.e().Convert(c, to));
  return Status::Ok();
}

Status Cast(NodeContext& cx) {
  VT_ASSIGN_OR_RETURN(Val x, cx.In(0));
  const DType to = cx.OutDType(0);
  if (to != x.dtype && (IsFloat8DType(to) || IsSubByteDType(to))) return CastToSmall(cx, x, to);
  if (to == DType::kBool && x.dtype != DType::kBool) {
    cx.Set(0, cx.e().Compare("NE", x, cx.e().Splat(0, x.dtype, x.shape)));
  } else {
    cx.Set(0, cx.e().Convert(x, to));
  }
  return Status::Ok();
}

Status IdentityOp(NodeContext& cx) {
  VT_ASSIGN_OR_RETURN(Val x, cx.In(0));
  cx.Set(0, x);
  if (cx.node().op_type == "Dropout" && cx.node().outputs.size() > 1 && !cx.node().outputs[1].empty())
    cx.Set(1, cx.e().Splat(1, DType::kBool, x.shape));  // inference: nothing is dropped
  return Status::Ok();
}

Status Where(NodeContext& cx) {
  const Shape out = cx.OutShape(0);
  VT_ASSIGN_OR_RETURN(Val c, cx.In(0));
  VT_ASSIGN_OR_RETURN(Val a, cx.In(1));
  VT_ASSIGN_OR_RETURN(Val b, cx.In(2));
  Emitter& e = cx.e();
  cx.Set(0, e.Select(e.BroadcastTo(c, out), e.BroadcastTo(a, out), e.BroadcastTo(b, out)));
  return Status::Ok();
}

Status IsNaN(NodeContext& cx) {
  VT_ASSIGN_OR_RETURN(Val x, cx.In(0));
  cx.Set(0, cx.e().Compare("NE", x, x));
  return Status::Ok();
}

}  // namespace

void AddElementwiseConverters(std::map<std::string, Converter>& m) {
  m["Add"] = BinaryOp<kAdd>;
  m["Sub"] = BinaryOp<kSub>;
  m["Mul"] = BinaryOp<kMul>;
  m["Div"] = BinaryOp<kDiv>;
  m["Pow"] = BinaryOp<kPow>;
  m["And"] = BinaryOp<kAnd>;
  m["Or"] = BinaryOp<kOr>;
  m["Xor"] = BinaryOp<kXor>;
  m["Equal"] = CompareOp<kEQ>;
  m["Less"] = CompareOp<kLT>;
  m["LessOrEqual"] = CompareOp<kLE>;
  m["Greater"] = CompareOp<kGT>;
  m["GreaterOrEqual"] = CompareOp<kGE>;
  m["Sum"] = VariadicOp<kAdd>;
  m["Mean"] = VariadicOp<kAdd>;
  m["Max"] = VariadicOp<kMax>;
  m["Min"] = VariadicOp<kMin>;
  m["Sigmoid"] = UnaryOp<kLogistic>;
  m["Tanh"] = UnaryOp<kTanh>;
  m["Exp"] = UnaryOp<kExp>;
  m["Log"] = UnaryOp<kLog>;
  m["Sqrt"] = UnaryOp<kSqrt>;
  m["Neg"] = UnaryOp<kNeg>;
  m["Abs"] = UnaryOp<kAbs>;
  m["Not"] = UnaryOp<kNot>;
  m["Floor"] = UnaryOp<kFloor>;
  m["Ceil"] = UnaryOp<kCeil>;
  m["Round"] = UnaryOp<kRound>;
  m["Sign"] = UnaryOp<kSign>;
  m["Sin"] = UnaryOp<kSin>;
  m["Cos"] = UnaryOp<kCos>;
  m["Erf"] = UnaryOp<kErf>;
  m["Relu"] = Relu;
  m["Reciprocal"] = Reciprocal;
  m["LeakyRelu"] = LeakyRelu;
  m["Elu"] = Elu;
  m["HardSigmoid"] = HardSigmoid;
  m["HardSwish"] = HardSwish;
  m["Softplus"] = Softplus;
  m["Clip"] = Clip;
  m["Cast"] = Cast;
  m["Identity"] = IdentityOp;
  m["Dropout"] = IdentityOp;
  m["Where"] = Where;
  m["IsNaN"] = IsNaN;
}

}  // namespace vt::hlo
