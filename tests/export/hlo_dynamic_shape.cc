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
  if (n == "stablehlo.transpose") {
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
  for (size_t d = 0; d < declared.size(); ++d) {
    if (declared[d] < 0) declared[d] = from[d];
    else if (n != "stablehlo.convolution" && n != "stablehlo.reduce_window" && n != "stablehlo.concatenate" &&
             declared[d] != from[d])
      return InvalidArgument(n + ": static result dim " + std::to_string(d) + " differs from the operands'");
  }
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
