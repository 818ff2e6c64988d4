#include "vtensor/layout/layout_pack.h"

namespace vt {

namespace {

template <typename F>
void ForEachLogical(const Layout& l, F f) {
  const Shape& s = l.shape();
  const int64_t n = l.numel();
  std::vector<int64_t> idx(s.size(), 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    f(flat, l.ElementIndex(idx.data()));
    for (size_t d = s.size(); d-- > 0;) {
      if (++idx[d] < s[d]) break;
      idx[d] = 0;
    }
  }
}

}  // namespace

int64_t PhysicalElements(const Layout& l) {
  const auto& t = GetEncodingTraits(l.encoding());
  if (t.block_bytes == 0) return l.StorageBytes();
  return l.StorageBytes() / t.block_bytes * t.block_elems;
}

Expected<std::vector<uint8_t>> PackFloats(const float* logical, const Layout& l) {
  const auto& t = GetEncodingTraits(l.encoding());
  if (t.block_bytes == 0) return InvalidArgument("pack: layout has no encoding");
  const int64_t slots = PhysicalElements(l);
  std::vector<float> phys(static_cast<size_t>(slots), 0.0f);
  std::vector<uint8_t> used(static_cast<size_t>(slots), 0);
  bool clash = false;
  ForEachLogical(l, [&](int64_t flat, int64_t e) {
    if (used[static_cast<size_t>(e)]++) clash = true;
    phys[static_cast<size_t>(e)] = logical[flat];
  });
  if (clash) return InvalidArgument("pack: two logical elements share a physical slot");
  std::vector<uint8_t> out(static_cast<size_t>(l.StorageBytes()));
  t.from_float(phys.data(), out.data(), slots);
  return out;
}

Expected<std::vector<float>> UnpackFloats(const uint8_t* bytes, size_t n, const Layout& l) {
  const auto& t = GetEncodingTraits(l.encoding());
  if (t.block_bytes == 0) return InvalidArgument("unpack: layout has no encoding");
  if (n < static_cast<size_t>(l.StorageBytes()))
    return InvalidArgument("unpack: " + std::to_string(n) + " bytes, layout needs " +
                           std::to_string(l.StorageBytes()));
  const int64_t slots = PhysicalElements(l);
  std::vector<float> phys(static_cast<size_t>(slots));
  t.to_float(bytes, phys.data(), slots);
  std::vector<float> out(static_cast<size_t>(l.numel()));
  ForEachLogical(l, [&](int64_t flat, int64_t e) { out[static_cast<size_t>(flat)] = phys[static_cast<size_t>(e)]; });
  return out;
}

}  // namespace vt
