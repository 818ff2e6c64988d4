// Fault injection: a model compiled by CompileModel (MatMul, Gemm transB=1 and Conv
// f32 weights; external and inline payloads) loads with every entry HIT and computes outputs
// bit-identical to the same model without the cache. Each fault (stale source, wrong device,
// ABI bump, unknown type, format version bump, truncated / flipped / missing payload, device
// index out of range, duplicate keys, unknown source, garbage extension bytes) must turn the
// affected entries into MISS with the documented reason code (forms/weight_cache.h) and
// leave the outputs bit-identical to a run without the cache. The verification memo is tested in
// verify_memo_e2e_test.cc.
#include "tools/compile_model.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

#include "passes/test_model_builder.h"
#include "tools/synthetic_transformer.h"
#include "base/scoped_temp_dir_test_util.h"
#include "vtensor/base/file.h"
#include "vtensor/format/compiled_model.h"
#include "vtensor/format/tensor_proto.h"
#include "vtensor/runtime/session.h"

namespace vt {
namespace {

namespace fs = std::filesystem;

// One fresh directory per test, removed afterwards.
class TempDir : public testing::ScopedTempDir {
 public:
  TempDir() : ScopedTempDir("compile") {}
};

// x [1,4,6,6] -> Conv(W_conv [8,4,3,3], pads 1, channel-major packed filter) -> y [1,8,6,6]
// m [3,64] -> MatMul(W_mm [64,24]) -> Gemm(W_gemm [10,24], transB=1, bias) -> z [3,10]
onnx::ModelProto SmallModel() {
  testing::OnnxBuilder b;
  b.Input("x", {1, 4, 6, 6}).Input("m", {3, 64});
  b.Output("y", {1, 8, 6, 6}).Output("z", {3, 10});
  b.RandomInit("W_conv", {8, 4, 3, 3}, 11);
  b.RandomInit("B_conv", {8}, 12);
  b.RandomInit("W_mm", {64, 24}, 13);
  b.RandomInit("W_gemm", {10, 24}, 14);
  b.RandomInit("B_gemm", {10}, 15);
  auto& conv = b.Node("Conv", {"x", "W_conv", "B_conv"}, {"y"});
  testing::OnnxBuilder::AttrInts(conv, "pads", {1, 1, 1, 1});
  testing::OnnxBuilder::AttrInts(conv, "kernel_shape", {3, 3});
  b.Node("MatMul", {"m", "W_mm"}, {"h"});
  auto& gemm = b.Node("Gemm", {"h", "W_gemm", "B_gemm"}, {"z"});
  testing::OnnxBuilder::AttrI(gemm, "transB", 1);
  return b.proto();
}

std::vector<Value> Inputs() {
  std::vector<float> x(1 * 4 * 6 * 6), m(3 * 64);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 37) % 29) / 7.0f - 2.0f;
  for (size_t i = 0; i < m.size(); ++i) m[i] = static_cast<float>((i * 13) % 17) / 5.0f - 1.5f;
  return {Value(Tensor::FromF32(x, {1, 4, 6, 6})), Value(Tensor::FromF32(m, {3, 64}))};
}

struct Outcome {
  std::vector<std::string> outputs;  // raw bytes of each output
  std::vector<CacheEntryReport> report;
  std::string extension_error;
};

Outcome LoadAndRun(const std::string& path, CacheOptions cache, WeightProfile profile = WeightProfile::kExact) {
  SessionOptions so;
  so.cache = std::move(cache);
  so.profile = profile;
  Outcome o;
  auto s = Session::Load(path, so);
  EXPECT_TRUE(s.ok()) << path << ": " << s.status().ToString();
  if (!s.ok()) return o;
  auto out = (*s)->Run(Inputs());
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  if (out.ok())
    for (const Value& v : *out) {
      const Tensor t = v.tensor().Contiguous();
      o.outputs.emplace_back(static_cast<const char*>(t.raw_data()), t.nbytes());
    }
  o.report = (*s)->cache_report();
  o.extension_error = (*s)->extension_error();
  return o;
}

CacheOptions Verify(VerifyPolicy p, const std::string& memo_dir = "") {
  CacheOptions c;
  c.verify = p;
  c.memo_dir = memo_dir;
  return c;
}

CacheOptions NoCache() {
  CacheOptions c;
  c.enabled = false;
  return c;
}

int CountState(const Outcome& o, EntryState s) {
  int n = 0;
  for (const auto& r : o.report) n += r.state == s;
  return n;
}

class CompiledCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    src_ = dir_.path() + "/src.onnx";
    compiled_ = dir_.path() + "/c.onnx";
    pack_ = compiled_ + ".vtpack";
    {
      std::ofstream f(src_, std::ios::binary);
      ASSERT_TRUE(SmallModel().SerializeToOstream(&f));
    }
    Compile(compiled_, /*external=*/true);
    reference_ = LoadAndRun(src_, NoCache());
    ASSERT_EQ(reference_.outputs.size(), 2u);
  }

  void Compile(const std::string& out, bool external,
               WeightProfile profile = WeightProfile::kExact) {
    CompileModelOptions o;
    o.devices = {HostIsa()};
    o.external_payload = external;
    o.profile = profile;
    CompileModelSummary sum;
    Status st = CompileModel(src_, out, o, &sum);
    ASSERT_TRUE(st.ok()) << st.ToString();
    ASSERT_EQ(sum.entries, 3u);  // W_conv, W_mm, W_gemm (biases are read in place)
    ASSERT_EQ(sum.payload_file.empty(), !external);
  }

  // Reads the compiled model, lets `edit` change it, writes it back under the same name.
  void Edit(const std::function<void(CompiledModel&)>& edit, const std::string& path = "") {
    const std::string p = path.empty() ? compiled_ : path;
    auto cm = ReadCompiledModel(p);
    ASSERT_TRUE(cm.ok()) << cm.status().ToString();
    edit(*cm);
    Status st = WriteCompiledModel(*cm, p);
    ASSERT_TRUE(st.ok()) << st.ToString();
  }

  int EntryOf(const CompiledModel& cm, const std::string& source) {
    for (int i = 0; i < cm.ext.compiled_tensors_size(); ++i)
      if (cm.ext.compiled_tensors(i).source_name() == source) return i;
    ADD_FAILURE() << "no entry for " << source;
    return 0;
  }
  int EntryOf(const std::string& source) {
    auto cm = ReadCompiledModel(compiled_);
    EXPECT_TRUE(cm.ok());
    return cm.ok() ? EntryOf(*cm, source) : 0;
  }

  // Outputs bit for bit equal to the reference (no-cache) run.
  void ExpectSameOutputs(const Outcome& o, const Outcome& ref) {
    ASSERT_EQ(o.outputs.size(), ref.outputs.size());
    for (size_t i = 0; i < o.outputs.size(); ++i) {
      ASSERT_EQ(o.outputs[i].size(), ref.outputs[i].size());
      EXPECT_EQ(std::memcmp(o.outputs[i].data(), ref.outputs[i].data(), o.outputs[i].size()), 0)
          << "output " << i << " differs from the run without the cache";
    }
  }
  void ExpectSameOutputs(const Outcome& o) { ExpectSameOutputs(o, reference_); }

  // Entry `i` is MISS(reason); every other entry is HIT unless `others_hit` is false.
  void ExpectMiss(const Outcome& o, int i, const std::string& reason, bool others_hit = true) {
    ASSERT_EQ(o.report.size(), 3u);
    for (const auto& r : o.report) {
      if (r.index == i) {
        EXPECT_EQ(r.state, EntryState::kMiss) << "entry " << i << " " << r.source_name;
        EXPECT_EQ(MissReasonCode(r.reason), reason) << "entry " << i << ": " << r.detail;
        EXPECT_FALSE(r.detail.empty());
      } else if (others_hit) {
        EXPECT_EQ(r.state, EntryState::kHit) << "entry " << r.index << ": " << EntryStateText(r)
                                             << " " << r.detail;
      }
    }
  }

  // Offset and length of entry `i`'s external payload.
  std::pair<int64_t, int64_t> PayloadRange(int i) {
    auto cm = ReadCompiledModel(compiled_);
    EXPECT_TRUE(cm.ok());
    const auto& ex = cm->ext.compiled_tensors(i).value().external();
    return {ex.offset(), ex.length()};
  }

  void FlipPayloadByte(int entry) {
    const auto [off, len] = PayloadRange(entry);
    ASSERT_GT(len, 0);
    int fd = ::open(pack_.c_str(), O_RDWR);
    ASSERT_GE(fd, 0);
    uint8_t b = 0;
    const off_t at = static_cast<off_t>(off + len / 2);
    ASSERT_EQ(::pread(fd, &b, 1, at), 1);
    b ^= 0x40;
    ASSERT_EQ(::pwrite(fd, &b, 1, at), 1);
    ::close(fd);
  }

  TempDir dir_;
  std::string src_, compiled_, pack_;
  Outcome reference_;
};

TEST_F(CompiledCacheTest, ExternalPayloadAllHitAndBitIdentical) {
  const Outcome hit = LoadAndRun(compiled_, Verify(VerifyPolicy::kAlways));
  EXPECT_EQ(CountState(hit, EntryState::kHit), 3);
  for (const auto& r : hit.report) {
    EXPECT_TRUE(r.verified) << r.source_name;
    EXPECT_EQ(r.location, "c.onnx.vtpack");
    EXPECT_GT(r.payload_bytes, 0);
  }
  ExpectSameOutputs(hit);
  // The compiled model without its cache computes the same, with every entry not-selected.
  const Outcome off = LoadAndRun(compiled_, NoCache());
  ExpectSameOutputs(off);
  for (const auto& r : off.report) EXPECT_STREQ(MissReasonCode(r.reason), "not-selected");
  // Payloads are 4096-aligned in the payload file (mmap-able).
  auto cm = ReadCompiledModel(compiled_);
  ASSERT_TRUE(cm.ok());
  for (const auto& ct : cm->ext.compiled_tensors())
    EXPECT_EQ(ct.value().external().offset() % 4096, 0) << ct.source_name();
}

// Compiling parses the whole source (loading parses a skeleton that leaves large payloads in
// the file, format/model_skeleton.h): the compiled model's graph is the source's byte for byte,
// and so is that of a model compiled again from the compiled one.
TEST_F(CompiledCacheTest, CompiledGraphCarriesEverySourceByte) {
  auto src = ParseModelFile(src_);
  ASSERT_TRUE(src.ok()) << src.status().ToString();
  const std::string want = (*src)->graph().SerializeAsString();
  ASSERT_GT(want.size(), 6144u);  // W_mm's raw_data is large enough to be elided at load
  auto cm = ReadCompiledModel(compiled_);
  ASSERT_TRUE(cm.ok()) << cm.status().ToString();
  EXPECT_EQ(cm->model->graph().SerializeAsString(), want);
  const std::string again = dir_.path() + "/again.onnx";
  CompileModelOptions o;
  o.devices = {HostIsa()};
  CompileModelSummary sum;
  ASSERT_TRUE(CompileModel(compiled_, again, o, &sum).ok());
  auto cm2 = ReadCompiledModel(again);
  ASSERT_TRUE(cm2.ok()) << cm2.status().ToString();
  EXPECT_EQ(cm2->model->graph().SerializeAsString(), want);
}

TEST_F(CompiledCacheTest, InlinePayloadAllHitAndBitIdentical) {
  const std::string inl = dir_.path() + "/inline.onnx";
  Compile(inl, /*external=*/false);
  EXPECT_FALSE(fs::exists(inl + ".vtpack"));
  const Outcome hit = LoadAndRun(inl, Verify(VerifyPolicy::kAlways));
  EXPECT_EQ(CountState(hit, EntryState::kHit), 3);
  for (const auto& r : hit.report) EXPECT_TRUE(r.location.empty());
  {
    SCOPED_TRACE("inline, all HIT");
    ExpectSameOutputs(hit);
  }
  // A flipped inline payload byte is caught by the payload digest.
  Edit([](CompiledModel& cm) {
    std::string* raw = cm.ext.mutable_compiled_tensors(1)->mutable_value()->mutable_raw_data();
    (*raw)[raw->size() / 3] ^= 0x01;
  }, inl);
  const Outcome flipped = LoadAndRun(inl, Verify(VerifyPolicy::kAlways));
  ExpectMiss(flipped, 1, "payload-digest");
  {
    SCOPED_TRACE("inline, flipped payload byte");
    ExpectSameOutputs(flipped);
  }
  // A shortened inline payload is a size mismatch, found without hashing (the flip above is
  // undone first: verify never would use it).
  Edit([](CompiledModel& cm) {
    std::string* raw = cm.ext.mutable_compiled_tensors(1)->mutable_value()->mutable_raw_data();
    (*raw)[raw->size() / 3] ^= 0x01;
    raw = cm.ext.mutable_compiled_tensors(2)->mutable_value()->mutable_raw_data();
    raw->resize(raw->size() - 4);
  }, inl);
  const Outcome shortened = LoadAndRun(inl, Verify(VerifyPolicy::kNever));
  ExpectMiss(shortened, 2, "payload-size");
  {
    SCOPED_TRACE("inline, shortened payload");
    ExpectSameOutputs(shortened);
  }
}

TEST_F(CompiledCacheTest, StaleSourceInitializerIsDigestMismatch) {
  // Change one element of W_mm in the model, keeping fields 27-29 as compiled.
  Edit([](CompiledModel& cm) {
    for (auto& t : *cm.model->mutable_graph()->mutable_initializer())
      if (t.name() == "W_mm") {
        float v;
        std::memcpy(&v, t.raw_data().data() + 20, 4);
        v += 0.25f;
        std::memcpy(t.mutable_raw_data()->data() + 20, &v, 4);
      }
  });
  const Outcome stale = LoadAndRun(compiled_, Verify(VerifyPolicy::kAlways));
  ExpectMiss(stale, EntryOf("W_mm"), "digest-mismatch");
  const Outcome fresh = LoadAndRun(compiled_, NoCache());
  ExpectSameOutputs(stale, fresh);
  // The edit really changed the computation (so the hit/miss comparison can fail).
  EXPECT_NE(fresh.outputs[1], reference_.outputs[1]);
}

TEST_F(CompiledCacheTest, WrongArchitectureIsIncompatibleDevice) {
  Edit([](CompiledModel& cm) {
    cm.ext.mutable_devices(0)->set_architecture(
        HostIsa() == IsaLevel::kBaseline ? "x86_64-avx2" : "x86_64-baseline");
  });
  const Outcome o = LoadAndRun(compiled_, Verify(VerifyPolicy::kAlways));
  for (int i = 0; i < 3; ++i) ExpectMiss(o, i, "incompatible-device", false);
  ExpectSameOutputs(o);
}

TEST_F(CompiledCacheTest, RuntimeVersionBumpIsIncompatibleDevice) {
  Edit([](CompiledModel& cm) {
    cm.ext.mutable_devices(0)->set_runtime_version(std::to_string(std::atoi(kPackedAbiVersion) + 1));
  });
  const Outcome o = LoadAndRun(compiled_, Verify(VerifyPolicy::kAlways));
  for (int i = 0; i < 3; ++i) ExpectMiss(o, i, "incompatible-device", false);
  ExpectSameOutputs(o);
}

TEST_F(CompiledCacheTest, RenamedStructTypeIsUnknownPhysicalType) {
  int entry = 0;
  Edit([&](CompiledModel& cm) {
    entry = EntryOf(cm, "W_gemm");
    const int ti = static_cast<int>(cm.ext.compiled_tensors(entry).value().type_index());
    cm.ext.mutable_struct_types(ti)->set_name("vt.no_such_form");
  });
  const Outcome o = LoadAndRun(compiled_, Verify(VerifyPolicy::kAlways));
  ExpectMiss(o, entry, "unknown-physical-type");
  ExpectSameOutputs(o);
}

TEST_F(CompiledCacheTest, FormatVersionBumpIsUnknownFormatVersion) {
  int entry = 0;
  Edit([&](CompiledModel& cm) {
    entry = EntryOf(cm, "W_conv");
    const int ti = static_cast<int>(cm.ext.compiled_tensors(entry).value().type_index());
    auto* t = cm.ext.mutable_struct_types(ti);
    t->set_format_version(t->format_version() + 1);
  });
  const Outcome o = LoadAndRun(compiled_, Verify(VerifyPolicy::kAlways));
  ExpectMiss(o, entry, "unknown-format-version");
  ExpectSameOutputs(o);
}

TEST_F(CompiledCacheTest, TruncatedPayloadFileIsPayloadSize) {
  // Cut the file in the middle of the last payload: that entry misses, earlier ones hit.
  int last = 0;
  int64_t end = 0;
  for (int i = 0; i < 3; ++i) {
    const auto [off, len] = PayloadRange(i);
    if (off + len > end) end = off + len, last = i;
  }
  ASSERT_EQ(::truncate(pack_.c_str(), static_cast<off_t>(end - 8)), 0);
  const Outcome o = LoadAndRun(compiled_, Verify(VerifyPolicy::kAlways));
  ExpectMiss(o, last, "payload-size");
  ExpectSameOutputs(o);
}

TEST_F(CompiledCacheTest, FlippedPayloadByteIsPayloadDigestUnderVerifyAlways) {
  const int entry = EntryOf("W_mm");
  FlipPayloadByte(entry);
  const Outcome o = LoadAndRun(compiled_, Verify(VerifyPolicy::kAlways));
  ExpectMiss(o, entry, "payload-digest");
  ExpectSameOutputs(o);
}

// verify=never is the trusted-deployment trade-off: no hashing at load, so a flipped payload
// byte is not detected and the entry HITs (its outputs may differ; that is the point of the
// policy, which only suits payloads whose integrity the deployment itself guarantees).
TEST_F(CompiledCacheTest, FlippedPayloadByteIsUndetectedUnderVerifyNever) {
  const int entry = EntryOf("W_mm");
  FlipPayloadByte(entry);
  const Outcome o = LoadAndRun(compiled_, Verify(VerifyPolicy::kNever));
  ASSERT_EQ(o.report.size(), 3u);
  EXPECT_EQ(CountState(o, EntryState::kHit), 3);
  EXPECT_FALSE(o.report[static_cast<size_t>(entry)].verified);
  EXPECT_FALSE(o.report[static_cast<size_t>(entry)].memo);
}

TEST_F(CompiledCacheTest, DeviceIndexOutOfRange) {
  Edit([](CompiledModel& cm) { cm.ext.mutable_compiled_tensors(0)->set_device(7); });
  const Outcome o = LoadAndRun(compiled_, Verify(VerifyPolicy::kAlways));
  ExpectMiss(o, 0, "device-out-of-range");
  ExpectSameOutputs(o);
}

TEST_F(CompiledCacheTest, DuplicateKeysAreMalformed) {
  int entry = 0;
  Edit([&](CompiledModel& cm) {
    entry = EntryOf(cm, "W_conv");
    *cm.ext.add_compiled_tensors() = cm.ext.compiled_tensors(entry);
  });
  const Outcome o = LoadAndRun(compiled_, Verify(VerifyPolicy::kAlways));
  ASSERT_EQ(o.report.size(), 4u);
  for (const auto& r : o.report) {
    if (r.source_name == "W_conv") {
      EXPECT_EQ(r.state, EntryState::kMiss) << r.index;
      EXPECT_STREQ(MissReasonCode(r.reason), "malformed") << r.index << ": " << r.detail;
    } else {
      EXPECT_EQ(r.state, EntryState::kHit) << r.index << ": " << r.detail;
    }
  }
  ExpectSameOutputs(o);
}

TEST_F(CompiledCacheTest, MissingPayloadFileIsPayloadMissing) {
  ASSERT_EQ(::unlink(pack_.c_str()), 0);
  const Outcome o = LoadAndRun(compiled_, Verify(VerifyPolicy::kAlways));
  for (int i = 0; i < 3; ++i) ExpectMiss(o, i, "payload-missing", false);
  ExpectSameOutputs(o);
}

TEST_F(CompiledCacheTest, UnknownSourceNameIsNoSuchInitializer) {
  Edit([](CompiledModel& cm) { cm.ext.mutable_compiled_tensors(2)->set_source_name("W_nope"); });
  const Outcome o = LoadAndRun(compiled_, Verify(VerifyPolicy::kAlways));
  ExpectMiss(o, 2, "no-such-initializer");
  ExpectSameOutputs(o);
}

// Bytes that a stock ONNX parser skips (unknown fields) but that are not a valid extension:
// the model must still load, ignore every entry, and compute the same.
TEST_F(CompiledCacheTest, GarbageExtensionFieldsNeverMakeTheModelUnloadable) {
  auto cm = ReadCompiledModel(src_);
  ASSERT_TRUE(cm.ok());
  std::string base;
  ASSERT_TRUE(cm->model->SerializeToString(&base));
  struct Garbage {
    const char* what;
    std::string bytes;
  };
  const std::string junk("\xff\xff\xff\xff\x0f\x08\x01\x12\x05hello", 13);
  auto len = [](const std::string& s) { return std::string(1, static_cast<char>(s.size())); };
  const std::vector<Garbage> cases = {
      // field 29 (compiled_tensors), length-delimited, with an invalid message inside
      {"field 29 invalid message", std::string("\xea\x01", 2) + len(junk) + junk},
      // field 27 (struct_types) with a truncated nested length
      {"field 27 truncated nested", std::string("\xda\x01\x03\x0a\x7f\x01", 6)},
      // field 28 (devices) with wire type varint instead of a message
      {"field 28 wrong wire type", std::string("\xe0\x01\x05", 3)},
      // field 29 entry that parses but points nowhere: device 3 of 0, no type, no payload
      {"field 29 dangling entry", std::string("\xea\x01\x08\x0a\x04W_mm\x10\x03", 11)},
  };
  for (const auto& g : cases) {
    SCOPED_TRACE(g.what);
    const std::string path = dir_.path() + "/garbage.onnx";
    ASSERT_TRUE(WriteFileAtomic(path, base + g.bytes).ok());
    const Outcome o = LoadAndRun(path, Verify(VerifyPolicy::kAlways));
    ExpectSameOutputs(o);
    EXPECT_EQ(CountState(o, EntryState::kHit), 0);
    if (o.extension_error.empty()) {
      for (const auto& r : o.report) EXPECT_EQ(r.state, EntryState::kMiss) << r.index;
    }
  }
}

TEST_F(CompiledCacheTest, CompactProfileHitEqualsMiss) {
  const std::string compact = dir_.path() + "/compact.onnx";
  Compile(compact, /*external=*/true, WeightProfile::kCompact);
  auto cm = ReadCompiledModel(compact);
  ASSERT_TRUE(cm.ok());
  const int mm = EntryOf(*cm, "W_mm");
  for (const auto& ct : cm->ext.compiled_tensors()) {
    bool tagged = false;
    for (const auto& kv : ct.metadata_props())
      tagged |= kv.key() == "vt.profile" && kv.value() == "compact";
    EXPECT_TRUE(tagged) << ct.source_name();
  }
  // The MatMul weight is requantized to int4 blocks in this profile.
  EXPECT_EQ(cm->ext.struct_types(static_cast<int>(cm->ext.compiled_tensors(mm).value().type_index()))
                .name(),
            "vt.q4_0_gemm_b");
  const Outcome hit = LoadAndRun(compact, Verify(VerifyPolicy::kAlways), WeightProfile::kCompact);
  EXPECT_EQ(CountState(hit, EntryState::kHit), 3);
  const Outcome miss = LoadAndRun(compact, NoCache(), WeightProfile::kCompact);
  ExpectSameOutputs(hit, miss);
  EXPECT_NE(hit.outputs[1], reference_.outputs[1]) << "q4_0 should change the MatMul result";
  // The Gemm weight is requantized to int8 per output channel.
  const int gm = EntryOf(*cm, "W_gemm");
  EXPECT_EQ(cm->ext.struct_types(static_cast<int>(cm->ext.compiled_tensors(gm).value().type_index()))
                .name(),
            "vt.s8_per_channel_gemm_b_panels");
  // Loaded under the exact profile, the lossy entries are not selected and results are exact;
  // the conv filter's f32 entry (the same form in both profiles) still hits.
  const Outcome exact = LoadAndRun(compact, Verify(VerifyPolicy::kAlways), WeightProfile::kExact);
  for (const auto& r : exact.report) {
    if (r.index == mm || r.index == gm) {
      EXPECT_EQ(r.state, EntryState::kMiss) << r.source_name;
      EXPECT_STREQ(MissReasonCode(r.reason), "not-selected") << r.source_name;
    } else {
      EXPECT_EQ(r.state, EntryState::kHit) << r.source_name;
    }
  }
  ExpectSameOutputs(exact);
}

// com.microsoft MatMulNBits: each plane (codes,
// scales, zero points) is its own entry whose source digest covers only that initializer, so
// a stale scales tensor misses alone while the codes and zero points of the same node still
// hit; a flipped codes byte is a payload-digest miss; outputs are always bit-identical to a
// run without the cache of the same model file.
TEST(CompiledCacheNBitsTest, PlanesHitAndFaultsMissPerPlane) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  TransformerConfig c;
  c.hidden = 64;
  c.ffn = 172;  // ragged last block of w_down
  c.heads = 4;
  c.layers = 1;
  c.seq = 3;
  c.seed = 9;
  c.nbits_block = 32;
  c.nbits_zero_points = true;
  const std::string src = dir.path() + "/nb.onnx", out = dir.path() + "/nbc.onnx";
  ASSERT_TRUE(WriteSyntheticTransformer(c, src, WeightStorage::kInline).ok());
  CompileModelOptions o;
  o.devices = {HostIsa()};
  CompileModelSummary sum;
  ASSERT_TRUE(CompileModel(src, out, o, &sum).ok());
  ASSERT_EQ(sum.entries, 21u);  // 7 projections x (codes, scales, zero points)
  std::vector<float> x(static_cast<size_t>(c.seq * c.hidden));
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.37f * static_cast<float>(i) + 0.1f);
  auto run = [&](const std::string& path, CacheOptions cache) {
    SessionOptions so;
    so.cache = std::move(cache);
    Outcome r;
    auto s = Session::Load(path, so);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    if (!s.ok()) return r;
    auto y = (*s)->Run({Value(Tensor::FromF32(x, {1, c.seq, c.hidden}))});
    EXPECT_TRUE(y.ok()) << y.status().ToString();
    if (y.ok()) {
      const Tensor t = (*y)[0].tensor().Contiguous();
      r.outputs.emplace_back(static_cast<const char*>(t.raw_data()), t.nbytes());
    }
    r.report = (*s)->cache_report();
    return r;
  };
  const Outcome ref = run(src, NoCache());
  const Outcome hit = run(out, Verify(VerifyPolicy::kAlways));
  EXPECT_EQ(CountState(hit, EntryState::kHit), 21);
  ASSERT_EQ(hit.outputs, ref.outputs);

  auto edit = [&](const std::function<void(CompiledModel&)>& f) {
    auto cm = ReadCompiledModel(out);
    ASSERT_TRUE(cm.ok()) << cm.status().ToString();
    f(*cm);
    ASSERT_TRUE(WriteCompiledModel(*cm, out).ok());
  };
  const std::string stale_name = "layers.0.ffn.w_up.scales";
  edit([&](CompiledModel& cm) {
    for (auto& t : *cm.model->mutable_graph()->mutable_initializer())
      if (t.name() == stale_name) {
        float v;
        std::memcpy(&v, t.raw_data().data() + 8, 4);
        v *= 1.5f;
        std::memcpy(t.mutable_raw_data()->data() + 8, &v, 4);
      }
  });
  const Outcome stale = run(out, Verify(VerifyPolicy::kAlways));
  for (const auto& r : stale.report) {
    if (r.source_name == stale_name) {
      EXPECT_EQ(r.state, EntryState::kMiss);
      EXPECT_STREQ(MissReasonCode(r.reason), "digest-mismatch") << r.detail;
    } else {
      EXPECT_EQ(r.state, EntryState::kHit) << r.source_name << " " << r.detail;
    }
  }
  const Outcome fresh = run(out, NoCache());
  EXPECT_EQ(stale.outputs, fresh.outputs);
  EXPECT_NE(fresh.outputs, ref.outputs) << "the edited scale must change the result";

  // A flipped byte inside the codes payload of another projection.
  int codes = -1;
  {
    auto cm = ReadCompiledModel(out);
    ASSERT_TRUE(cm.ok());
    for (int i = 0; i < cm->ext.compiled_tensors_size(); ++i)
      if (cm->ext.compiled_tensors(i).source_name() == "layers.0.attn.wv.q") codes = i;
    ASSERT_GE(codes, 0);
    const auto& ex = cm->ext.compiled_tensors(codes).value().external();
    int fd = ::open((out + ".vtpack").c_str(), O_RDWR);
    ASSERT_GE(fd, 0);
    uint8_t b = 0;
    const off_t at = static_cast<off_t>(ex.offset() + ex.length() / 2);
    ASSERT_EQ(::pread(fd, &b, 1, at), 1);
    b ^= 0x21;
    ASSERT_EQ(::pwrite(fd, &b, 1, at), 1);
    ::close(fd);
  }
  const Outcome flipped = run(out, Verify(VerifyPolicy::kAlways));
  for (const auto& r : flipped.report) {
    if (r.index == codes) {
      EXPECT_STREQ(MissReasonCode(r.reason), "payload-digest") << r.detail;
    }
  }
  EXPECT_EQ(flipped.outputs, fresh.outputs);
}

}  // namespace
}  // namespace vt
