#include "vtensor/format/tensor_digest.h"

#include <gtest/gtest.h>
#include <link.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <filesystem>

#include "vtensor/base/blake3.h"
#include "vtensor/base/file.h"
#include "vtensor/format/tensor_proto.h"
#include "vtensor/tensor/tensor.h"

namespace vt {
namespace {

std::string Hex(const std::string& s) {
  return ToHex(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

std::string Stream(const onnx::TensorProto& tp, ExternalDataResolver* ext = nullptr) {
  std::string out;
  Status st = CanonicalTensorStream(tp, ext, "test.onnx", [&](const void* p, size_t n) {
    out.append(static_cast<const char*>(p), n);
  });
  EXPECT_TRUE(st.ok()) << st.ToString();
  return out;
}

std::string Digest(const onnx::TensorProto& tp, DigestAlgorithm a = DigestAlgorithm::kBlake3,
                   ExternalDataResolver* ext = nullptr) {
  auto d = TensorProtoDigest(tp, a, ext, "test.onnx");
  EXPECT_TRUE(d.ok()) << d.status().ToString();
  return d.ok() ? Hex(*d) : "";
}

onnx::TensorProto FloatTensor(const std::string& name, const std::vector<int64_t>& dims,
                              std::vector<float> v, bool raw) {
  onnx::TensorProto tp;
  tp.set_name(name);
  tp.set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) tp.add_dims(d);
  if (raw) {
    tp.set_raw_data(std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4));
  } else {
    for (float f : v) tp.add_float_data(f);
  }
  return tp;
}

// DT_NEEDED entries of this program (the test binary, linked like every vtensor program).
std::vector<std::string> NeededLibraries() {
  std::vector<std::string> out;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0') return 0;  // not the program
        const ElfW(Dyn)* dyn = nullptr;
        for (int i = 0; i < info->dlpi_phnum; ++i)
          if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
        if (dyn == nullptr) return 1;
        const char* strtab = nullptr;
        for (const ElfW(Dyn)* d = dyn; d->d_tag != DT_NULL; ++d)
          if (d->d_tag == DT_STRTAB) strtab = reinterpret_cast<const char*>(d->d_un.d_ptr);
        for (const ElfW(Dyn)* d = dyn; d->d_tag != DT_NULL && strtab != nullptr; ++d)
          if (d->d_tag == DT_NEEDED)
            static_cast<std::vector<std::string>*>(data)->push_back(strtab + d->d_un.d_val);
        return 1;
      },
      &out);
  return out;
}

// libcrypto is loaded by the first sha256 digest, not at every process start
// (docs/benchmarks.md, "Process start"); sha256 digests still work.
TEST(TensorDigestTest, LibcryptoIsLoadedOnFirstSha256DigestOnly) {
  const std::vector<std::string> needed = NeededLibraries();
  ASSERT_FALSE(needed.empty());
  bool links_stdcxx = false;
  for (const std::string& lib : needed) {
    EXPECT_NE(lib.rfind("libcrypto", 0), 0u) << lib;
    links_stdcxx |= lib.rfind("libstdc++", 0) == 0;
  }
  EXPECT_TRUE(links_stdcxx);  // the reading of the dynamic section works
  Digester d(DigestAlgorithm::kSha256);
  d.Update("abc", 3);
  Expected<std::string> raw = d.Finish();
  ASSERT_TRUE(raw.ok()) << raw.status().ToString();
  EXPECT_EQ(Hex(*raw), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

// The vectors of docs/digest.md (hashes cross-checked with b3sum and sha256sum).
TEST(TensorDigestTest, DocumentedVectors) {
  auto v1 = FloatTensor("w", {2, 3}, {0, 1, 2, 3, 4, 5}, true);
  EXPECT_EQ(Hex(Stream(v1)),
            "0100000000000000020000000000000002000000000000000300000000000000"
            "000000000000803f0000004000004040000080400000a040");
  EXPECT_EQ(Digest(v1), "b504bedc034b018d4b1dde324b5e1286bf56ae9b734a25b57eb6b3aa98977ac5");
  EXPECT_EQ(Digest(v1, DigestAlgorithm::kSha256),
            "01dcb0e48a82053f7e5caece24b04094970fc6d1cfade7e426a5883806ffd8a2");

  onnx::TensorProto v2;
  v2.set_data_type(onnx::TensorProto::INT64);
  v2.add_int64_data(-1);
  EXPECT_EQ(Digest(v2), "b44ced454a5118780725effae271ada55bc7ea865a34846fb29cc8d2348fbc24");

  onnx::TensorProto v3;
  v3.set_data_type(onnx::TensorProto::STRING);
  v3.add_dims(2);
  v3.add_string_data("a");
  v3.add_string_data("");
  EXPECT_EQ(Digest(v3), "bb907c2246b8143aee6f505750bb71c0e1c90dad4da0ad72ec00fda3f471156f");

  onnx::TensorProto v4;
  v4.set_data_type(22);  // INT4: [1, -2, 3] packed low nibble first; garbage in the unused nibble
  v4.add_dims(3);
  v4.set_raw_data(std::string("\xE1\xF3", 2));
  EXPECT_EQ(Digest(v4), "76313127d40b92014589cc988aef47589998d5349ae5780ac6963301c17795e6");
  v4.clear_raw_data();
  v4.add_int32_data(0xE1);
  v4.add_int32_data(0x03);
  EXPECT_EQ(Digest(v4), "76313127d40b92014589cc988aef47589998d5349ae5780ac6963301c17795e6");

  onnx::TensorProto v5;
  v5.set_data_type(onnx::TensorProto::BOOL);
  v5.add_dims(0);
  v5.add_dims(4);
  EXPECT_EQ(Digest(v5), "05fda8c8622446974a71e215ce00fd55dc544818d995f5aae2f86d868f6b33f2");
}

TEST(TensorDigestTest, IndependentOfStorageAndName) {
  std::vector<float> v(1000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = 0.25f * static_cast<float>(i) - 7.0f;
  auto raw = FloatTensor("a", {10, 100}, v, true);
  auto typed = FloatTensor("a", {10, 100}, v, false);
  auto renamed = FloatTensor("completely.different.name", {10, 100}, v, true);

  const auto dir = std::filesystem::temp_directory_path() / ("vt_digest_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string blob(64, 'x');  // data at a non-zero offset
  blob.append(reinterpret_cast<const char*>(v.data()), v.size() * 4);
  ASSERT_TRUE(WriteFileAtomic((dir / "weights.bin").string(), blob).ok());
  onnx::TensorProto ext = FloatTensor("a", {10, 100}, {}, false);
  ext.set_data_location(onnx::TensorProto::EXTERNAL);
  auto* kv = ext.add_external_data();
  kv->set_key("location");
  kv->set_value("weights.bin");
  kv = ext.add_external_data();
  kv->set_key("offset");
  kv->set_value("64");
  ExternalDataResolver resolver(dir.string());

  for (auto a : {DigestAlgorithm::kBlake3, DigestAlgorithm::kSha256}) {
    const std::string want = Digest(raw, a);
    EXPECT_EQ(Digest(typed, a), want);
    EXPECT_EQ(Digest(renamed, a), want);
    EXPECT_EQ(Digest(ext, a, &resolver), want);
    // The runtime tensor loaded from the proto, and a transposed-back strided view, agree.
    TensorContext ctx;
    ctx.file = "test.onnx";
    auto t = TensorFromProto(raw, ctx);
    ASSERT_TRUE(t.ok());
    auto td = TensorDigest(*t, a);
    ASSERT_TRUE(td.ok());
    EXPECT_EQ(Hex(*td), want);
    Tensor tr = t->WithLayout(*t->layout().Transpose({1, 0})).Contiguous();
    Tensor back = tr.WithLayout(*tr.layout().Transpose({1, 0}));
    EXPECT_EQ(Hex(*TensorDigest(back, a)), want);

    // One dim or one element changed gives another digest.
    auto reshaped = FloatTensor("a", {100, 10}, v, true);
    EXPECT_NE(Digest(reshaped, a), want);
    auto flat = FloatTensor("a", {1000}, v, true);
    EXPECT_NE(Digest(flat, a), want);
    auto changed = v;
    changed[517] = std::nextafter(changed[517], 1e9f);
    EXPECT_NE(Digest(FloatTensor("a", {10, 100}, changed, true), a), want);
    // Same bytes, another element type.
    auto as_int = raw;
    as_int.set_data_type(onnx::TensorProto::INT32);
    EXPECT_NE(Digest(as_int, a), want);
  }
  std::filesystem::remove_all(dir);
}

TEST(TensorDigestTest, TypedFieldsMatchRawForEveryType) {
  // float16 in int32_data, uint8/int8/bool in int32_data, uint32 in uint64_data, double.
  struct Case {
    int32_t dt;
    std::string raw;
    std::function<void(onnx::TensorProto&)> fill;
  };
  std::vector<Case> cases = {
      {onnx::TensorProto::FLOAT16, std::string("\x00\x3c\x00\xc0", 4),
       [](onnx::TensorProto& t) { t.add_int32_data(0x3c00); t.add_int32_data(0xc000); }},
      {onnx::TensorProto::INT8, std::string("\x7f\x80", 2),
       [](onnx::TensorProto& t) { t.add_int32_data(127); t.add_int32_data(-128); }},
      {onnx::TensorProto::BOOL, std::string("\x01\x00", 2),
       [](onnx::TensorProto& t) { t.add_int32_data(1); t.add_int32_data(0); }},
      {onnx::TensorProto::UINT32, std::string("\x01\x00\x00\x00\xff\xff\xff\xff", 8),
       [](onnx::TensorProto& t) { t.add_uint64_data(1); t.add_uint64_data(0xffffffffu); }},
      {onnx::TensorProto::DOUBLE, std::string("\x00\x00\x00\x00\x00\x00\xf0\x3f\x00\x00\x00\x00\x00\x00\x00\x00", 16),
       [](onnx::TensorProto& t) { t.add_double_data(1.0); t.add_double_data(0.0); }},
  };
  for (const auto& c : cases) {
    onnx::TensorProto raw, typed;
    raw.set_data_type(c.dt);
    raw.add_dims(2);
    typed = raw;
    raw.set_raw_data(c.raw);
    c.fill(typed);
    EXPECT_EQ(Digest(raw), Digest(typed)) << c.dt;
  }
}

TEST(TensorDigestTest, MalformedTensorsAreErrors) {
  auto short_raw = FloatTensor("w", {2, 3}, {1, 2}, true);
  auto d = TensorProtoDigest(short_raw, DigestAlgorithm::kBlake3, nullptr, "m.onnx");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("m.onnx: tensor 'w': field raw_data"), std::string::npos);
  onnx::TensorProto bad_type;
  bad_type.set_data_type(0);
  EXPECT_FALSE(TensorProtoDigest(bad_type, DigestAlgorithm::kBlake3, nullptr, "m").ok());
  auto ext = FloatTensor("w", {2}, {}, false);
  ext.set_data_location(onnx::TensorProto::EXTERNAL);
  EXPECT_FALSE(TensorProtoDigest(ext, DigestAlgorithm::kBlake3, nullptr, "m").ok());
  EXPECT_EQ(DigestAlgorithmFromName("blake3"), DigestAlgorithm::kBlake3);
  EXPECT_FALSE(DigestAlgorithmFromName("md5").has_value());
}

}  // namespace
}  // namespace vt
