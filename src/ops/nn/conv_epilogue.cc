#include "ops/nn/conv_epilogue.h"

#include <limits>
#include <string>

#include "kernels/conv/f32_conv_act.h"
#include "ops/elementwise/binary_broadcast.h"
#include "ops/elementwise/unary_fast_math.h"
#include "vtensor/graph/fused_attributes.h"
#include "vtensor/graph/node_status.h"

namespace vt::ops {
namespace {

// Sigmoid (then the affine step) over y[0, n), the loop of the elementwise Sigmoid operator:
// one branch-free vectorisable loop per variant (with `affine` tested per element the compiler
// left it scalar), and on x86-64 the AVX2 clone when the CPU has AVX2, so a fused Sigmoid gives
// the bits of the unfused one and runs as fast (ops/elementwise/binary_broadcast.h).
template <bool kAffine>
void SigmoidLoop(float* y, size_t n, float s, float t) {
#pragma omp simd
  for (size_t i = 0; i < n; ++i) {
    const float v = fastmath::Sigmoid(y[i]);
    y[i] = kAffine ? v * s + t : v;
  }
}
template <bool kAffine>
VT_TARGET_AVX2 void SigmoidLoopAvx2(float* y, size_t n, float s, float t) {
#pragma omp simd
  for (size_t i = 0; i < n; ++i) {
    const float v = fastmath::Sigmoid(y[i]);
    y[i] = kAffine ? v * s + t : v;
  }
}
template <bool kAffine>
void SigmoidRow(float* y, size_t n, float s, float t) {
  if (VT_ELEMENTWISE_AVX2_CLONES && UseElementwiseAvx2()) return SigmoidLoopAvx2<kAffine>(y, n, s, t);
  SigmoidLoop<kAffine>(y, n, s, t);
}

}  // namespace

void ConvEpilogue::ApplyRow(float* y, size_t n, int64_t m) const {
  const size_t c = static_cast<size_t>(m);
  const bool affine = !scale.empty() || !shift.empty();
  const float s = scale.empty() ? 1.0f : scale[scale.size() == 1 ? 0 : c];
  const float t = shift.empty() ? 0.0f : shift[shift.size() == 1 ? 0 : c];
  if (act == Act::kSigmoid) {  // not in the kernel table: the elementwise Sigmoid's loop
    if (affine)
      SigmoidRow<true>(y, n, s, t);
    else
      SigmoidRow<false>(y, n, s, t);
    return;
  }
  static const kernels::F32ConvActFn process_fn = kernels::DefaultF32ConvActKernel().fn;
  const kernels::F32ConvActFn fn = act_fn != nullptr ? act_fn : process_fn;
  kernels::F32ConvActParams p;
  switch (act) {
    case Act::kClamp: p.act = kernels::F32ConvAct::kClamp; break;
    case Act::kLeakyRelu: p.act = kernels::F32ConvAct::kLeakyRelu; break;
    case Act::kHardSigmoid: p.act = kernels::F32ConvAct::kHardSigmoid; break;
    case Act::kHardSwish: p.act = kernels::F32ConvAct::kHardSwish; break;
    default: p.act = kernels::F32ConvAct::kIdentity; break;
  }
  p.p0 = p0;
  p.p1 = p1;
  p.affine = affine;
  p.scale = s;
  p.shift = t;
  fn(&p, y, n);
}

const ConvEpilogueAttrs kConvEpilogueAttrs = {kConvActAttr, kConvActParamsAttr, kConvActScaleAttr,
                                               kConvActShiftAttr};
const ConvEpilogueAttrs kConvDwEpilogueAttrs = {kConvDwActAttr, kConvDwActParamsAttr,
                                                 kConvDwActScaleAttr, kConvDwActShiftAttr};

Expected<ConvEpilogue> ParseConvEpilogue(const Node& node, int64_t channels,
                                         const ConvEpilogueAttrs& attrs) {
  ConvEpilogue e;
  const Attribute* a = node.FindAttr(attrs.act);
  if (a == nullptr) return e;
  const std::vector<float> p = node.GetFloats(attrs.params);
  const std::string& act = a->s;
  size_t want = 0;
  if (act == "Relu") {
    e.act = ConvEpilogue::Act::kClamp;
    e.p0 = 0.0f;
    e.p1 = std::numeric_limits<float>::infinity();
  } else if (act == "Clip") {
    e.act = ConvEpilogue::Act::kClamp;
    want = 2;
  } else if (act == "LeakyRelu") {
    e.act = ConvEpilogue::Act::kLeakyRelu;
    want = 1;
  } else if (act == "HardSigmoid") {
    e.act = ConvEpilogue::Act::kHardSigmoid;
    want = 2;
  } else if (act == "HardSwish") {
    e.act = ConvEpilogue::Act::kHardSwish;
  } else if (act == "Sigmoid") {
    e.act = ConvEpilogue::Act::kSigmoid;
  } else {
    return AnnotateNode(InvalidArgument("unknown fused activation '" + act + "'"), node);
  }
  if (p.size() != want)
    return AnnotateNode(InvalidArgument("fused " + act + " takes " + std::to_string(want) +
                                        " parameters, got " + std::to_string(p.size())),
                        node);
  if (want >= 1) e.p0 = p[0];
  if (want >= 2) e.p1 = p[1];
  e.scale = node.GetFloats(attrs.scale);
  e.shift = node.GetFloats(attrs.shift);
  for (const auto* v : {&e.scale, &e.shift})
    if (channels >= 0 && v->size() > 1 && static_cast<int64_t>(v->size()) != channels)
      return AnnotateNode(InvalidArgument("fused activation scale/shift has " +
                                          std::to_string(v->size()) + " values for " +
                                          std::to_string(channels) + " channels"),
                          node);
  return e;
}

}  // namespace vt::ops
