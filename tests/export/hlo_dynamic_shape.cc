#include "hlo_dynamic_shape.h"

#include <algorithm>

namespace vt::testing {

// The run-time shape of a result whose type has dynamic dims, from the operands (StableHLO's
// shape functions for the ops the export writes with dynamic types): the shape operand of the
// dynamic_* ops, the permuted / reduced / contracted operand shape, and otherwise the first
// tensor operand's extent at each dynamic position (element-wise ops, and the batch dim of
// convolution, reduce_window and batch_norm_inference, the only dim those may leave dynamic).
Expected<Shape> RunTimeShape(const HOp& op, const std::vector<const HValue*>& in, Shape declared) {
  const std::string& n = op.name;
  if (n == "stablehlo.dynamic_broadcast_in_dim" || n == "stablehlo.dynamic_reshape") {
    Shape s;
    for (double d : in.at(1)->v) s.push_back(static_cast<int64_t>(d));
    return s;
  }
  Shape from;
  if (n == "stablehlo.real_dynamic_slice") {
    for (size_t d = 0; d < in.at(0)->shape.size(); ++d) {
      const int64_t b = static_cast<int64_t>(in.at(1)->v.at(d)), l = static_cast<int64_t>(in.at(2)->v.at(d)),
                    st = static_cast<int64_t>(in.at(3)->v.at(d));
      from.push_back(l <= b ? 0 : (l - b + st - 1) / st);
    }
  } else if (n == "stablehlo.gather" || n == "stablehlo.dynamic_gather") {
    // The export's gathers collapse one axis and append the indices' dims in its place.
    const auto collapsed = ListAttr(op.attrs, "collapsed_slice_dims");
    if (collapsed.size() != 1) return InvalidArgument("gather: one collapsed dim expected");
    const size_t axis = static_cast<size_t>(collapsed[0]);
    const Shape& x = in.at(0)->shape;
    from.assign(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(axis));
    from.insert(from.end(), in.at(1)->shape.begin(), in.at(1)->shape.end());
    from.insert(from.end(), x.begin() + static_cast<std::ptrdiff_t>(axis) + 1, x.end());
  } else if (n == "stablehlo.transpose") {
    for (int64_t p : ArrayAttr(op.attrs, "permutation")) from.push_back(in.at(0)->shape[static_cast<size_t>(p)]);
  } else if (n == "stablehlo.reduce") {
    const auto dims = ArrayAttr(op.attrs, "dimensions");
    for (size_t d = 0; d < in.at(0)->shape.size(); ++d)
      if (std::find(dims.begin(), dims.end(), static_cast<int64_t>(d)) == dims.end()) from.push_back(in[0]->shape[d]);
  } else if (n == "stablehlo.dot_general") {
    const auto lb = ListAttr(op.attrs, "lhs_batching_dimensions"), lc = ListAttr(op.attrs, "lhs_contracting_dimensions"),
               rb = ListAttr(op.attrs, "rhs_batching_dimensions"), rc = ListAttr(op.attrs, "rhs_contracting_dimensions");
    for (int64_t d : lb) from.push_back(in.at(0)->shape[static_cast<size_t>(d)]);
    for (size_t side = 0; side < 2; ++side) {
      const auto& b = side ? rb : lb;
      const auto& c = side ? rc : lc;
      for (int64_t d = 0; d < static_cast<int64_t>(in.at(side)->shape.size()); ++d)
        if (std::find(b.begin(), b.end(), d) == b.end() && std::find(c.begin(), c.end(), d) == c.end())
          from.push_back(in[side]->shape[static_cast<size_t>(d)]);
    }
  } else if (n == "stablehlo.select" || n == "stablehlo.clamp") {
    from = in.at(1)->shape;
  } else {
    if (in.empty()) return InvalidArgument(n + ": a dynamic result without operands");
    from = in[0]->shape;
  }
  if (from.size() != declared.size()) return InvalidArgument(n + ": cannot infer the dynamic result shape");
  // Only the dynamic dims are taken: a static one may differ from the operand's (the padded or
  // pooled spatial dims, a concatenation's axis).
  for (size_t d = 0; d < declared.size(); ++d)
    if (declared[d] < 0) declared[d] = from[d];
  return declared;
}

// `type` with its dynamic dims replaced by `shape`'s.
std::string StaticType(const std::string& type, const Shape& shape) {
  const size_t open = type.find('<') + 1;
  size_t p = open;
  std::string dims;
  for (int64_t d : shape) {
    p = type.find('x', p) + 1;
    dims += std::to_string(d) + "x";
  }
  return type.substr(0, open) + dims + type.substr(p);
}

}  // namespace vt::testing
