#include "graph/plan_wire.h"

#include <cstring>

#include "format/wire_varint.h"

namespace vt::plan_wire {

using wire::ReadVarint;

bool Reader::Next(Field* f) {
  if (bad_ || p_ == end_) return false;
  uint64_t tag = 0;
  bad_ = true;  // until the field is whole
  if (!ReadVarint(p_, end_, &tag) || (tag >> 3) == 0 || (tag >> 3) > 0x1FFFFFFF) return false;
  f->number = static_cast<uint32_t>(tag >> 3);
  f->type = static_cast<uint8_t>(tag & 7);
  f->data = nullptr;
  f->size = 0;
  f->value = 0;
  switch (f->type) {
    case kVarint:
      if (!ReadVarint(p_, end_, &f->value)) return false;
      break;
    case kFixed64:
      if (end_ - p_ < 8) return false;
      std::memcpy(&f->value, p_, 8);
      p_ += 8;
      break;
    case kFixed32: {
      if (end_ - p_ < 4) return false;
      uint32_t v = 0;
      std::memcpy(&v, p_, 4);
      f->value = v;
      p_ += 4;
      break;
    }
    case kLen: {
      uint64_t n = 0;
      if (!ReadVarint(p_, end_, &n) || n > static_cast<uint64_t>(end_ - p_)) return false;
      f->data = p_;
      f->size = static_cast<size_t>(n);
      p_ += n;
      break;
    }
    default: return false;  // groups and unknown wire types
  }
  bad_ = false;
  return true;
}

bool AppendInt64s(const Field& f, std::vector<int64_t>* out) {
  if (f.type == kVarint) {
    out->push_back(static_cast<int64_t>(f.value));
    return true;
  }
  if (f.type != kLen) return false;
  const uint8_t* p = f.data;
  const uint8_t* end = f.data + f.size;
  while (p != end) {
    uint64_t v = 0;
    if (!ReadVarint(p, end, &v)) return false;
    out->push_back(static_cast<int64_t>(v));
  }
  return true;
}

bool AppendFloats(const Field& f, std::vector<float>* out) {
  auto bits = [](uint32_t b) {
    float x = 0;
    std::memcpy(&x, &b, sizeof x);
    return x;
  };
  if (f.type == kFixed32) {
    out->push_back(bits(static_cast<uint32_t>(f.value)));
    return true;
  }
  if (f.type != kLen || f.size % 4 != 0) return false;
  out->reserve(out->size() + f.size / 4);
  for (size_t i = 0; i < f.size; i += 4) {
    uint32_t b = 0;
    std::memcpy(&b, f.data + i, 4);
    out->push_back(bits(b));
  }
  return true;
}

double AsDouble(const Field& f) {
  double d = 0;
  std::memcpy(&d, &f.value, sizeof d);
  return d;
}

}  // namespace vt::plan_wire
