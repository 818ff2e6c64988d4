// RandomUniform, RandomNormal, RandomUniformLike, RandomNormalLike, Bernoulli, Multinomial
// (ONNX Operators.md). Outputs are pseudo-random: with the `seed` attribute the generator is
// seeded once per node at session creation and advances across runs (so a session replays the
// same stream); without it, each node draws its seed from std::random_device. Values cannot
// match another runtime's generator bit for bit. Concurrent runs of one session share the
// node's stream: a mutex gives each call a contiguous stretch of it, in the order the calls
// take the lock.
#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <random>

#include "ops/common/op_util.h"

namespace vt::ops {
namespace {

// Refuse outputs beyond this many elements: attribute shapes come straight from the model,
// and an allocation that cannot succeed must become an error, not an exception.
constexpr int64_t kMaxRandomElements = int64_t{1} << 28;

enum class Dist { kUniform, kNormal, kBernoulli, kMultinomial };

class RandomKernel : public OpKernel {
 public:
  RandomKernel(const Node& node, Dist dist, bool like) : dist_(dist), like_(like) {
    if (const Attribute* s = node.FindAttr("seed")) {
      // The seed is a float attribute; its value (not its bits) picks the stream.
      gen_.seed(static_cast<uint64_t>(static_cast<int64_t>(s->f)));
    } else {
      std::random_device rd;
      gen_.seed((static_cast<uint64_t>(rd()) << 32) ^ rd());
    }
  }

  Status Compute(KernelContext& ctx) const override {
    const Node& n = ctx.node();
    std::lock_guard<std::mutex> lock(mu_);
    switch (dist_) {
      case Dist::kUniform:
      case Dist::kNormal: return Continuous(ctx, n);
      case Dist::kBernoulli: return Bernoulli(ctx, n);
      case Dist::kMultinomial: return Multinomial(ctx, n);
    }
    return Status::Ok();
  }

 private:
  // Output dtype from the `dtype` attribute, else `def`. Errors: unknown value.
  static Expected<DType> OutDType(KernelContext& ctx, DType def) {
    const Attribute* a = ctx.node().FindAttr("dtype");
    if (a == nullptr) return def;
    if (a->i == 0 || !IsKnownDType(static_cast<int32_t>(a->i)))
      return ctx.Error("unknown dtype " + std::to_string(a->i));
    return static_cast<DType>(a->i);
  }

  // Writes v[i] (double) as `dt`.
  static Status Store(KernelContext& ctx, DType dt, const Shape& shape,
                      const std::vector<double>& v) {
    Tensor out = ctx.AllocOutput(0, dt, shape);
    if (dt == DType::kFloat16 || dt == DType::kBFloat16) {
      uint16_t* o = out.mutable_data<uint16_t>();
      for (size_t i = 0; i < v.size(); ++i)
        o[i] = dt == DType::kFloat16 ? FloatToHalf(static_cast<float>(v[i]))
                                     : FloatToBFloat16(static_cast<float>(v[i]));
      return Status::Ok();
    }
    if (dt == DType::kBool) {
      uint8_t* o = out.mutable_data<uint8_t>();
      for (size_t i = 0; i < v.size(); ++i) o[i] = v[i] != 0;
      return Status::Ok();
    }
    Status st = DispatchElem<kSetFloatInt>(dt, [&](auto tag) -> Status {
      using T = decltype(tag);
      T* o = out.mutable_data<T>();
      for (size_t i = 0; i < v.size(); ++i) o[i] = static_cast<T>(v[i]);
      return Status::Ok();
    });
    if (!st.ok()) return ctx.Annotate(std::move(st));
    return Status::Ok();
  }

  Status Continuous(KernelContext& ctx, const Node& n) const {
    Shape shape;
    DType def = DType::kFloat32;
    if (like_) {
      VT_ASSIGN_OR_RETURN(Tensor in, ctx.RequireTensor(0));
      shape = in.shape();
      def = in.dtype();
    } else {
      shape = n.GetInts("shape");
      if (n.FindAttr("shape") == nullptr) return ctx.Error("attribute 'shape' is required");
      double count = 1;
      for (int64_t d : shape) {
        if (d < 0) return ctx.Error("negative dim in shape " + ShapeToString(shape));
        count *= static_cast<double>(d);
      }
      if (count > static_cast<double>(kMaxRandomElements))
        return ctx.Error("shape " + ShapeToString(shape) + " is too large");
    }
    VT_ASSIGN_OR_RETURN(DType dt, OutDType(ctx, def));
    if (!IsFloatDType(dt)) return ctx.Error(std::string("dtype must be floating point, got ") + DTypeName(dt));
    std::vector<double> v(static_cast<size_t>(NumElements(shape)));
    if (dist_ == Dist::kUniform) {
      const double lo = n.GetFloat("low", 0.0f), hi = n.GetFloat("high", 1.0f);
      if (!(hi >= lo)) return ctx.Error("high must be >= low");
      std::uniform_real_distribution<double> d(lo, hi);
      for (double& x : v) x = d(gen_);
    } else {
      const double mean = n.GetFloat("mean", 0.0f), scale = n.GetFloat("scale", 1.0f);
      if (!(scale >= 0)) return ctx.Error("scale must be >= 0");
      std::normal_distribution<double> d(mean, scale);
      for (double& x : v) x = d(gen_);
    }
    return Store(ctx, dt, shape, v);
  }

  // Bernoulli (opset 15): y = 1 with probability x (each x in [0, 1]), else 0.
  Status Bernoulli(KernelContext& ctx, const Node& n) const {
    VT_ASSIGN_OR_RETURN(Tensor in, ctx.RequireTensor(0));
    if (!IsFloatDType(in.dtype())) return ctx.Error("input must be floating point");
    VT_ASSIGN_OR_RETURN(DType dt, OutDType(ctx, in.dtype()));
    std::vector<double> v(static_cast<size_t>(in.numel()));
    std::uniform_real_distribution<double> d(0.0, 1.0);
    for (int64_t i = 0; i < in.numel(); ++i) {
      const double p = in.GetDouble(i);
      if (!(p >= 0 && p <= 1))
        return ctx.Error("probability " + std::to_string(p) + " outside [0, 1]");
      v[static_cast<size_t>(i)] = d(gen_) < p ? 1.0 : 0.0;
    }
    return Store(ctx, dt, in.shape(), v);
  }

  // Multinomial (opset 7): input [batch, classes] unnormalised log-probabilities; output
  // [batch, sample_size] class indices (int32 default, or int64).
  Status Multinomial(KernelContext& ctx, const Node& n) const {
    VT_ASSIGN_OR_RETURN(Tensor in, ctx.RequireTensor(0));
    if (!IsFloatDType(in.dtype()) || in.rank() != 2)
      return ctx.Error("input must be a floating-point [batch, classes] tensor");
    VT_ASSIGN_OR_RETURN(DType dt, OutDType(ctx, DType::kInt32));
    if (dt != DType::kInt32 && dt != DType::kInt64) return ctx.Error("dtype must be int32 or int64");
    const int64_t samples = n.GetInt("sample_size", 1);
    const int64_t batch = in.dim(0), classes = in.dim(1);
    if (samples < 0 || static_cast<double>(samples) * static_cast<double>(batch) >
                           static_cast<double>(kMaxRandomElements))
      return ctx.Error("sample_size " + std::to_string(samples) + " invalid");
    if (classes == 0 && samples > 0 && batch > 0) return ctx.Error("no classes to sample from");
    std::vector<double> v(static_cast<size_t>(batch * samples));
    std::vector<double> cdf(static_cast<size_t>(classes));
    for (int64_t b = 0; b < batch; ++b) {
      double mx = -std::numeric_limits<double>::infinity();
      for (int64_t c = 0; c < classes; ++c) mx = std::max(mx, in.GetDouble(b * classes + c));
      double acc = 0;
      for (int64_t c = 0; c < classes; ++c) {
        acc += std::isfinite(mx) ? std::exp(in.GetDouble(b * classes + c) - mx) : 1.0;
        cdf[static_cast<size_t>(c)] = acc;
      }
      std::uniform_real_distribution<double> d(0.0, acc);
      for (int64_t s = 0; s < samples; ++s) {
        const double u = d(gen_);
        int64_t k = std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin();
        v[static_cast<size_t>(b * samples + s)] = static_cast<double>(std::min(k, classes - 1));
      }
    }
    return Store(ctx, dt, {batch, samples}, v);
  }

  Dist dist_;
  bool like_;
  mutable std::mutex mu_;
  mutable std::mt19937_64 gen_;  // guarded by mu_
};

KernelFactory Make(Dist dist, bool like) {
  return [dist, like](const KernelInit& init) -> Expected<std::unique_ptr<OpKernel>> {
    return std::unique_ptr<OpKernel>(new RandomKernel(init.node, dist, like));
  };
}

VT_REGISTER_OP("", "RandomUniform", 1, kMaxOpset, Make(Dist::kUniform, false));
VT_REGISTER_OP("", "RandomNormal", 1, kMaxOpset, Make(Dist::kNormal, false));
VT_REGISTER_OP("", "RandomUniformLike", 1, kMaxOpset, Make(Dist::kUniform, true));
VT_REGISTER_OP("", "RandomNormalLike", 1, kMaxOpset, Make(Dist::kNormal, true));
VT_REGISTER_OP("", "Bernoulli", 15, kMaxOpset, Make(Dist::kBernoulli, false));
VT_REGISTER_OP("", "Multinomial", 7, kMaxOpset, Make(Dist::kMultinomial, false));

}  // namespace
}  // namespace vt::ops
