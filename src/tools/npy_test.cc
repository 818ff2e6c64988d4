#include "tools/npy.h"

#include <gtest/gtest.h>

#include <cstring>

namespace vt {
namespace {

// A .npy file of version MAJOR with `header` (padded to 16 bytes) and `data`.
std::string Npy(int major, std::string header, const std::string& data) {
  const size_t len_bytes = major == 1 ? 2 : 4;
  while ((6 + 2 + len_bytes + header.size() + 1) % 16) header += ' ';
  header += '\n';
  std::string out = std::string("\x93NUMPY", 6) + static_cast<char>(major) + '\0';
  for (size_t i = 0; i < len_bytes; ++i) out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return out + header + data;
}

template <typename T>
std::string Bytes(std::initializer_list<T> v) {
  std::string s(v.size() * sizeof(T), '\0');
  std::memcpy(s.data(), std::data(v), s.size());
  return s;
}

TEST(Npy, ParsesEachVersion) {
  const std::string data = Bytes<float>({1, 2, 3, 4, 5, 6});
  for (int major : {1, 2, 3}) {
    auto t = ParseNpy(Npy(major, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", data), "a.npy");
    ASSERT_TRUE(t.ok()) << t.status().message();
    EXPECT_EQ(t->dtype(), DType::kFloat32);
    EXPECT_EQ(t->shape(), (Shape{2, 3}));
    EXPECT_EQ(t->data<float>()[5], 6.0f);
  }
}

TEST(Npy, ScalarsOneDimAndKeyOrder) {
  auto s = ParseNpy(Npy(1, "{'shape': (), 'fortran_order': False, 'descr': '<i8'}", Bytes<int64_t>({-7})), "s.npy");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->rank(), 0);
  EXPECT_EQ(s->data<int64_t>()[0], -7);
  auto v = ParseNpy(Npy(1, "{\"descr\": \"|b1\", \"fortran_order\": False, \"shape\": (3,)}", std::string("\1\0\1", 3)), "v.npy");
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(v->dtype(), DType::kBool);
  EXPECT_EQ(v->shape(), (Shape{3}));
}

TEST(Npy, BigEndianIsSwapped) {
  std::string be = {0, 0, 1, 2, 0x7f, 0, 0, 0};  // >i4: 258, 0x7f000000
  auto t = ParseNpy(Npy(1, "{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }", be), "b.npy");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->data<int32_t>()[0], 258);
  EXPECT_EQ(t->data<int32_t>()[1], 0x7f000000);
}

TEST(Npy, FortranOrderIsTransposedToRowMajor) {
  // Column-major [[1,2,3],[4,5,6]] is stored 1,4,2,5,3,6.
  auto t = ParseNpy(Npy(1, "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }",
                        Bytes<double>({1, 4, 2, 5, 3, 6})), "f.npy");
  ASSERT_TRUE(t.ok()) << t.status().message();
  for (int i = 0; i < 6; ++i) EXPECT_EQ(t->data<double>()[i], i + 1) << i;
}

TEST(Npy, RoundTripsThroughSerialize) {
  Tensor t = Tensor::FromF32({1.5f, -2, 3, 4, 5, 6}, {3, 2});
  auto bytes = SerializeNpy(t);
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ((bytes->size() - t.nbytes()) % 64, 0u);  // header aligned as NumPy writes it
  EXPECT_NE(bytes->find("'shape': (3, 2)"), std::string::npos);
  auto back = ParseNpy(*bytes, "r.npy");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->shape(), (Shape{3, 2}));
  EXPECT_EQ(std::memcmp(back->raw_data(), t.raw_data(), t.nbytes()), 0);
  auto one = SerializeNpy(Tensor::FromI64({1, 2}));
  ASSERT_TRUE(one.ok());
  EXPECT_NE(one->find("'descr': '<i8', 'fortran_order': False, 'shape': (2,)"), std::string::npos);
  EXPECT_FALSE(SerializeNpy(Tensor::Zeros(DType::kString, {1})).ok());
}

// Each malformed file fails naming the file and the field.
TEST(Npy, BadFilesNameFileAndField) {
  const std::string f4 = Bytes<float>({1, 2});
  struct Case {
    std::string bytes, field;
  } cases[] = {
      {"PK\3\4 not numpy", "magic"},
      {std::string("\x93NUMPY\x04\x00", 8) + "xxxx", "version"},
      {std::string("\x93NUMPY\x01\x00\xff\x7f", 10) + "{}", "header length"},
      {Npy(1, "['descr', '<f4']", f4), "'header'"},
      {Npy(1, "{'descr': '<f4', 'fortran_order': False}", f4), "'shape': missing"},
      {Npy(1, "{'descr': '<f4', 'shape': (2,)}", f4), "'fortran_order': missing"},
      {Npy(1, "{'descr': '<U4', 'fortran_order': False, 'shape': (2,)}", f4), "'descr' is '<U4'"},
      {Npy(1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,)}", f4), "'descr'"},
      {Npy(1, "{'descr': '<f4', 'fortran_order': maybe, 'shape': (2,)}", f4), "'fortran_order'"},
      {Npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, -1)}", f4), "'shape'"},
      {Npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,)}", f4), "data size"},
      {Npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", f4), "'x'"},
  };
  for (const Case& c : cases) {
    auto t = ParseNpy(c.bytes, "dir/bad.npy");
    ASSERT_FALSE(t.ok()) << c.field;
    EXPECT_EQ(t.status().message().rfind("dir/bad.npy: ", 0), 0u) << t.status().message();
    EXPECT_NE(t.status().message().find(c.field), std::string::npos) << t.status().message();
  }
}

TEST(Npy, MissingFileIsNotFound) {
  auto t = ReadNpy("/nonexistent/x.npy");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("/nonexistent/x.npy"), std::string::npos);
}

}  // namespace
}  // namespace vt
