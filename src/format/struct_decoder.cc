#include "vtensor/format/struct_decoder.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <numeric>

#include "vtensor/layout/layout_pack.h"

namespace vt {

namespace {

// Adds `name = Constant(value: int64[values])`.
void ConstI64(onnx::FunctionProto& f, const std::string& name, const std::vector<int64_t>& v) {
  auto* n = f.add_node();
  n->set_op_type("Constant");
  n->add_output(name);
  auto* a = n->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  auto* t = a->mutable_t();
  t->set_data_type(onnx::TensorProto::INT64);
  t->add_dims(static_cast<int64_t>(v.size()));
  for (int64_t x : v) t->add_int64_data(x);
}

onnx::NodeProto* Node(onnx::FunctionProto& f, const char* op, std::vector<std::string> in,
                      const std::string& out) {
  auto* n = f.add_node();
  n->set_op_type(op);
  for (auto& s : in) n->add_input(s);
  n->add_output(out);
  return n;
}

}  // namespace

Expected<std::string> BuildLayoutDecoder(const Layout& l, const std::string& name) {
  const auto& t = GetEncodingTraits(l.encoding());
  if (t.block_bytes == 0 || t.block_elems != 1)
    return Unimplemented("decoder: encoding " + std::string(t.name) +
                         " has no standard ONNX element type");
  // Digit counts per level (canonical order is outermost first), and density.
  const auto levels = l.levels();
  const Shape padded = l.padded_shape();
  std::vector<int64_t> counts(levels.size());
  for (size_t i = 0; i < levels.size(); ++i) {
    int64_t parent = 0;
    for (const auto& o : levels)
      if (o.dim == levels[i].dim && o.tile > levels[i].tile && (parent == 0 || o.tile < parent))
        parent = o.tile;
    counts[i] = parent ? parent / levels[i].tile
                       : (padded[static_cast<size_t>(levels[i].dim)] + levels[i].tile - 1) / levels[i].tile;
  }
  int64_t inner = 1;
  for (size_t i = levels.size(); i-- > 0;) {
    if (levels[i].stride != inner)
      return Unimplemented("decoder: level " + std::to_string(i) + " is not densely nested");
    inner *= counts[i];
  }
  // Target order: logical dims in order, each dim's levels from largest tile to smallest.
  std::vector<int64_t> perm(levels.size());
  std::iota(perm.begin(), perm.end(), 0);
  std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
    const auto& x = levels[static_cast<size_t>(a)];
    const auto& y = levels[static_cast<size_t>(b)];
    return x.dim != y.dim ? x.dim < y.dim : x.tile > y.tile;
  });

  onnx::FunctionProto f;
  f.set_name(name);
  f.set_domain(kDecoderDomain);
  f.add_input("data");
  f.add_output("value");
  auto* os = f.add_opset_import();
  os->set_domain("");
  os->set_version(13);
  std::string cur = "data";
  const int64_t total = inner;
  if (l.offset() != 0 || PhysicalElements(l) != total) {
    ConstI64(f, "flat_start", {l.offset()});
    ConstI64(f, "flat_end", {l.offset() + total});
    Node(f, "Slice", {cur, "flat_start", "flat_end"}, "flat");
    cur = "flat";
  }
  if (levels.empty()) {
    ConstI64(f, "logical_shape", l.shape());
    Node(f, "Reshape", {cur, "logical_shape"}, "value");
  } else {
    ConstI64(f, "digits", counts);
    Node(f, "Reshape", {cur, "digits"}, "by_level");
    auto* tr = Node(f, "Transpose", {"by_level"}, "by_dim");
    auto* a = tr->add_attribute();
    a->set_name("perm");
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t p : perm) a->add_ints(p);
    const bool slice = padded != l.shape();
    ConstI64(f, "padded_shape", padded);
    Node(f, "Reshape", {"by_dim", "padded_shape"}, slice ? "padded" : "value");
    if (slice) {
      ConstI64(f, "starts", std::vector<int64_t>(l.shape().size(), 0));
      ConstI64(f, "ends", l.shape());
      Node(f, "Slice", {"padded", "starts", "ends"}, "value");
    }
  }
  return f.SerializeAsString();
}

}  // namespace vt
