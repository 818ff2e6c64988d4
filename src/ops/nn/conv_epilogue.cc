#include "ops/nn/conv_epilogue.h"

#include <limits>
#include <string>

#include "kernels/conv/f32_conv_act.h"
#include "ops/elementwise/unary_fast_math.h"
#include "vtensor/graph/fused_attributes.h"
#include "vtensor/graph/node_status.h"

namespace vt::ops {

void ConvEpilogue::ApplyRow(float* y, size_t n, int64_t m) const {
  const size_t c = static_cast<size_t>(m);
  const bool affine = !scale.empty() || !shift.empty();
  const float s = scale.empty() ? 1.0f : scale[scale.size() == 1 ? 0 : c];
  const float t = shift.empty() ? 0.0f : shift[shift.size() == 1 ? 0 : c];
  if (act == Act::kSigmoid) {  // not in the kernel table: the vectorisable fast-math form
#pragma omp simd
    for (size_t i = 0; i < n; ++i) {
      const float v = fastmath::Sigmoid(y[i]);
      y[i] = affine ? v * s + t : v;
    }
    return;
  }
  static const kernels::F32ConvActFn fn = kernels::DefaultF32ConvActKernel().fn;
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

Expected<ConvEpilogue> ParseConvEpilogue(const Node& node, int64_t channels) {
  ConvEpilogue e;
  const Attribute* a = node.FindAttr(kConvActAttr);
  if (a == nullptr) return e;
  const std::vector<float> p = node.GetFloats(kConvActParamsAttr);
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
  e.scale = node.GetFloats(kConvActScaleAttr);
  e.shift = node.GetFloats(kConvActShiftAttr);
  for (const auto* v : {&e.scale, &e.shift})
    if (channels >= 0 && v->size() > 1 && static_cast<int64_t>(v->size()) != channels)
      return AnnotateNode(InvalidArgument("fused activation scale/shift has " +
                                          std::to_string(v->size()) + " values for " +
                                          std::to_string(channels) + " channels"),
                          node);
  return e;
}

}  // namespace vt::ops
