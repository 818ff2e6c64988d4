// Session plans (runtime/session_plan.h, docs/compiled-tensors.md "Session plans"). On the five
// real models (model cache, inputs from tests/data/refcases) and the transformer test models
// (tests/transformers, generated into the model cache; each case skipped when absent): a
// compiled model's session takes its plan (HIT, no pass runs) and computes byte for byte what a
// session without the cache computes. Fault injection on one model: a stale graph, another
// version, other options, damaged or truncated plan bytes each give a MISS with its reason, the
// warning line and the outputs of a session without the plan; a source list that does not read
// (a range outside the file, another type or size, an entry missing) is not used: the load
// reads the graph after all and computes the same; plans with random byte flips
// (their payload digest recomputed, so the plan parser sees them) never crash a load or a run.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <ostream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tools/compile_model.h"
#include "vtensor/base/file.h"
#include "vtensor/format/compiled_model.h"
#include "vtensor/format/payload_digest.h"
#include "vtensor/graph/onnx_import.h"
#include "vtensor/graph/plan_graph.h"
#include "vtensor/runtime/session.h"
#include "vtensor/forms/verify_memo.h"
#include "vtensor/runtime/session_plan.h"

namespace vt {
namespace {

namespace fs = std::filesystem;

std::string ModelCache() {
  const char* env = std::getenv("VTENSOR_MODEL_CACHE");
  const char* home = std::getenv("HOME");
  return env ? env : std::string(home ? home : "") + "/.cache/vtensor/models";
}

struct Case {
  std::string name, model, data;
};

std::vector<Case> Cases() {
  std::vector<Case> c;
  for (const char* n : {"ch_PP-OCRv4_det_infer", "ch_PP-OCRv4_rec_infer",
                        "ch_ppocr_mobile_v2.0_cls_infer", "silero_vad_16k_op15", "silero_vad_v5"})
    c.push_back({n, ModelCache() + "/" + n + "/model.onnx",
                 std::string(VTENSOR_SOURCE_DIR) + "/tests/data/refcases/" + n + "/test_data_set_0"});
  for (const char* n : {"bert", "bert_ln17_tanh", "llama_decode", "llama_prefill"}) {
    const std::string dir = ModelCache() + "/transformers-L0/" + n;
    c.push_back({std::string("transformer_") + n, dir + "/model.onnx", dir + "/test_data_set_0"});
  }
  return c;
}

// A scratch directory removed at the end of the test.
struct TempDir {
  TempDir() {
    std::string t = (fs::temp_directory_path() / "vt_plan_test_XXXXXX").string();
    path = ::mkdtemp(t.data()) ? t : "";
  }
  ~TempDir() {
    if (!path.empty()) fs::remove_all(path);
  }
  std::string path;
};

std::vector<std::string> OutputBytes(const std::vector<Value>& outs) {
  std::vector<std::string> r;
  auto add = [&](const Tensor& t) {
    const Tensor c = t.Contiguous();
    std::string s = ShapeToString(c.shape()) + DTypeName(c.dtype()) + ":";
    if (c.dtype() == DType::kString) {
      for (int64_t i = 0; i < c.numel(); ++i) s += c.data<std::string>()[i] + '\0';
    } else {
      s.append(static_cast<const char*>(c.raw_data()), c.nbytes());
    }
    r.push_back(std::move(s));
  };
  for (const Value& v : outs) {
    if (v.is_tensor()) add(v.tensor());
    if (v.is_sequence())
      for (const Tensor& t : v.sequence()) add(t);
    if (v.is_none()) r.push_back("none");
  }
  return r;
}

// What one load did: the plan's report, the warning lines and the outputs on `data`'s inputs.
struct Loaded {
  CacheEntryReport plan;
  std::vector<std::string> warnings;
  std::vector<std::string> outputs;
  int entry_hits = 0;    // compiled entries HIT
  int folded_hits = 0;   // ... of them for tensors the passes make (docs/compiled-tensors.md)
  int entry_misses = 0;  // compiled entries MISS
  bool parsed_whole = false;  // the sources-only parse did not do: the whole model was parsed
  bool read_no_graph = false;  // the plan's source list stood for the source graph
};

SessionOptions Options(const std::string& memo_dir, std::vector<std::string>* warnings) {
  SessionOptions so;
  so.cache.memo_dir = memo_dir;
  so.cache_warning = [warnings](const std::string& line) { warnings->push_back(line); };
  return so;
}

void LoadAndRun(const std::string& model, const std::string& data, SessionOptions so, Loaded* out) {
  so.cache_warning = [out](const std::string& line) { out->warnings.push_back(line); };
  auto s = Session::Load(model, so);
  ASSERT_TRUE(s.ok()) << s.status().message();
  out->plan = (*s)->plan_report();
  bool graph = false, model_only = false;
  for (const LoadPhase& p : (*s)->load_phases()) {
    out->parsed_whole |= p.name == "parse (whole)";
    graph |= p.name.starts_with("parse (") || p.name.starts_with("import sources");
    model_only |= p.name == "import model";
  }
  out->read_no_graph = model_only && !graph;
  for (const CacheEntryReport& r : (*s)->cache_report()) {
    out->entry_hits += r.state == EntryState::kHit;
    out->folded_hits += r.state == EntryState::kHit && r.source_name.ends_with(".vt_folded_w");
    out->entry_misses += r.state == EntryState::kMiss;
  }
  std::vector<Value> in;
  const auto ios = (*s)->inputs();
  for (size_t i = 0; i < ios.size(); ++i) {
    auto v = LoadValueFile(data + "/input_" + std::to_string(i) + ".pb", ios[i]->spec.type());
    ASSERT_TRUE(v.ok()) << v.status().message();
    in.push_back(std::move(*v));
  }
  auto r = (*s)->Run(in);
  ASSERT_TRUE(r.ok()) << r.status().message();
  out->outputs = OutputBytes(*r);
}

Status Compile(const std::string& model, const std::string& out, bool external) {
  CompileModelOptions o;
  o.devices = {HostIsa()};
  o.external_payload = external;
  CompileModelSummary sum;
  VT_RETURN_IF_ERROR(CompileModel(model, out, o, &sum));
  if (sum.plans != 1) return Internal("compile wrote " + std::to_string(sum.plans) + " plans");
  return Status::Ok();
}

// gtest prints the parameter in test listings: the model's name, not its bytes.
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class PlanOnModels : public ::testing::TestWithParam<Case> {};

TEST_P(PlanOnModels, HitComputesWhatTheGraphPassesCompute) {
  const Case& c = GetParam();
  if (::access(c.model.c_str(), R_OK) != 0) GTEST_SKIP() << c.model << " not in the model cache";
  TempDir tmp;
  const std::string out = tmp.path + "/m.onnx";
  ASSERT_TRUE(Compile(c.model, out, true).ok());
  // Files younger than the racy margin are never memoized (forms/verify_memo.h): age them.
  std::this_thread::sleep_for(std::chrono::nanoseconds(kMemoRacyMarginNs + 100'000'000));
  std::vector<std::string> unused;
  Loaded hit, miss;
  LoadAndRun(out, c.data, Options(tmp.path + "/memo", &unused), &hit);
  EXPECT_EQ(hit.plan.state, EntryState::kHit) << hit.plan.detail;
  EXPECT_TRUE(hit.plan.verified);
  EXPECT_TRUE(hit.warnings.empty()) << hit.warnings[0];
  SessionOptions off = Options(tmp.path + "/memo", &unused);
  off.cache.enabled = false;
  LoadAndRun(out, c.data, off, &miss);
  EXPECT_EQ(miss.plan.state, EntryState::kPending) << "the cache off: no plan is read";
  EXPECT_EQ(hit.outputs, miss.outputs) << "plan HIT and the passes at load differ";
  // A later load under the memo reads only the source tensors of the graph; every compiled
  // entry, those of the tensors the passes make included, is used.
  Loaded memo;
  LoadAndRun(out, c.data, Options(tmp.path + "/memo", &unused), &memo);
  EXPECT_EQ(memo.plan.state, EntryState::kHit) << memo.plan.detail;
  EXPECT_TRUE(memo.plan.memo);
  EXPECT_FALSE(memo.parsed_whole) << "the plan did not hit on the sources-only parse";
  EXPECT_TRUE(memo.read_no_graph) << "the plan's source list did not stand for the graph";
  EXPECT_EQ(memo.entry_misses, 0);
  EXPECT_EQ(memo.entry_hits, hit.entry_hits);
  EXPECT_EQ(memo.outputs, miss.outputs) << "plan HIT under the memo and the passes differ";
  // The passes at load with the compiled entries (no plan): the same entries, the same outputs.
  SessionOptions no_plan = Options(tmp.path + "/memo", &unused);
  no_plan.cache.verify = VerifyPolicy::kAlways;
  auto cm = ReadCompiledModel(out);
  ASSERT_TRUE(cm.ok());
  cm->ext.clear_session_plans();
  const std::string planless = tmp.path + "/planless.onnx";
  ASSERT_TRUE(WriteCompiledModel(*cm, planless).ok());
  Loaded passes;
  LoadAndRun(planless, c.data, no_plan, &passes);
  EXPECT_EQ(passes.entry_misses, 0);
  EXPECT_EQ(passes.folded_hits, hit.folded_hits);
  // The PP-OCR models fold BatchNormalization into their Conv filters.
  if (c.name.starts_with("ch_")) {
    EXPECT_GT(hit.folded_hits, 0);
  }
  EXPECT_EQ(passes.outputs, miss.outputs);
}

INSTANTIATE_TEST_SUITE_P(Models, PlanOnModels, ::testing::ValuesIn(Cases()),
                         [](const auto& info) {
                           std::string n = info.param.name;  // gtest names: [A-Za-z0-9_]
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

// A plan hit under the memo on a model whose weight is a Constant inside a local function:
// the call is kept by the sources-only parse, so the inlined Constant is a source the plan
// refers to.
TEST(PlanWithLocalFunction, MemoHitResolvesTheInlinedConstant) {
  TempDir tmp;
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* local = m.add_opset_import();
  local->set_domain("local");
  local->set_version(1);
  auto* f = m.add_functions();
  f->set_name("AddW");
  f->set_domain("local");
  f->add_opset_import()->set_version(17);
  f->add_input("a");
  f->add_output("b");
  auto* c = f->add_node();
  c->set_op_type("Constant");
  c->add_output("w");
  auto* value = c->add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  auto* t = value->mutable_t();
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_dims(4);
  for (float v : {0.5f, -1.0f, 2.0f, 3.5f}) t->add_float_data(v);
  auto* add = f->add_node();
  add->set_op_type("Add");
  add->add_input("a");
  add->add_input("w");
  add->add_output("b");
  auto* g = m.mutable_graph();
  g->set_name("main");
  auto* x = g->add_input();
  x->set_name("x");
  x->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  x->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(4);
  auto* y = g->add_output();
  *y = *x;
  y->set_name("y");
  auto* call = g->add_node();
  call->set_op_type("AddW");
  call->set_domain("local");
  call->add_input("x");
  call->add_output("h");
  auto* relu = g->add_node();
  relu->set_op_type("Relu");
  relu->add_input("h");
  relu->add_output("y");
  const std::string src = tmp.path + "/src.onnx", out = tmp.path + "/m.onnx";
  ASSERT_TRUE(WriteFileAtomic(src, m.SerializeAsString()).ok());
  ASSERT_TRUE(Compile(src, out, true).ok());
  const std::string data = tmp.path + "/data";
  fs::create_directories(data);
  onnx::TensorProto in;
  in.set_data_type(onnx::TensorProto::FLOAT);
  in.add_dims(4);
  for (float v : {1.0f, 1.0f, -3.0f, 0.25f}) in.add_float_data(v);
  ASSERT_TRUE(WriteFileAtomic(data + "/input_0.pb", in.SerializeAsString()).ok());
  std::this_thread::sleep_for(std::chrono::nanoseconds(kMemoRacyMarginNs + 100'000'000));
  std::vector<std::string> unused;
  Loaded first, memo, off;
  LoadAndRun(out, data, Options(tmp.path + "/memo", &unused), &first);
  EXPECT_EQ(first.plan.state, EntryState::kHit) << first.plan.detail;
  LoadAndRun(out, data, Options(tmp.path + "/memo", &unused), &memo);
  EXPECT_EQ(memo.plan.state, EntryState::kHit) << memo.plan.detail;
  EXPECT_TRUE(memo.plan.memo);
  EXPECT_FALSE(memo.parsed_whole) << "the plan did not hit on the sources-only parse";
  EXPECT_TRUE(memo.read_no_graph) << "the plan's source list did not stand for the graph";
  SessionOptions no_cache = Options(tmp.path + "/memo", &unused);
  no_cache.cache.enabled = false;
  LoadAndRun(out, data, no_cache, &off);
  EXPECT_EQ(memo.outputs, off.outputs);
  EXPECT_EQ(first.outputs, off.outputs);
}

// An If whose then branch multiplies x by W, W an initializer of the branch kept in the
// external data file w.bin (written by the caller).
onnx::ModelProto BranchWeightModel() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("main");
  auto io = [](onnx::ValueInfoProto* v, const std::string& name, int type,
               const std::vector<int>& dims) {
    v->set_name(name);
    v->mutable_type()->mutable_tensor_type()->set_elem_type(type);
    auto* shape = v->mutable_type()->mutable_tensor_type()->mutable_shape();
    for (int d : dims) shape->add_dim()->set_dim_value(d);
  };
  io(g->add_input(), "cond", onnx::TensorProto::BOOL, {});
  io(g->add_input(), "x", onnx::TensorProto::FLOAT, {1, 8});
  io(g->add_output(), "y", onnx::TensorProto::FLOAT, {1, 8});
  auto* iff = g->add_node();
  iff->set_op_type("If");
  iff->add_input("cond");
  iff->add_output("y");
  auto branch = [&](const char* name, const char* op) {
    auto* a = iff->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::GRAPH);
    auto* b = a->mutable_g();
    b->set_name(name);
    io(b->add_output(), std::string(name) + "_y", onnx::TensorProto::FLOAT, {1, 8});
    auto* n = b->add_node();
    n->set_op_type(op);
    n->add_input("x");
    if (std::string(op) == "MatMul") n->add_input("W");
    n->add_output(std::string(name) + "_y");
    return b;
  };
  auto* w = branch("then_branch", "MatMul")->add_initializer();
  w->set_name("W");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(8);
  w->add_dims(8);
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* loc = w->add_external_data();
  loc->set_key("location");
  loc->set_value("w.bin");
  branch("else_branch", "Identity");
  return m;
}

std::string Floats(float first) {
  std::string b(64 * sizeof(float), '\0');
  for (int i = 0; i < 64; ++i) {
    const float v = first + 0.25f * static_cast<float>(i % 9);
    std::memcpy(b.data() + i * sizeof(float), &v, sizeof v);
  }
  return b;
}

// A branch's weight is no source tensor: the plan stores it. Its external data file keys the
// memo all the same (runtime/session_plan.h MemoSourceFiles), so that a new file there is a
// plan miss with the new weight, never the plan's old copy.
TEST(PlanWithBranchWeight, NewExternalDataFileIsNotCoveredByTheMemo) {
  TempDir tmp;
  const std::string src = tmp.path + "/src.onnx", out = tmp.path + "/m.onnx";
  ASSERT_TRUE(WriteFileAtomic(tmp.path + "/w.bin", Floats(1.0f)).ok());
  ASSERT_TRUE(WriteFileAtomic(src, BranchWeightModel().SerializeAsString()).ok());
  ASSERT_TRUE(Compile(src, out, true).ok());
  {  // the compiled model still reads W from w.bin
    auto cm = ReadCompiledModel(out);
    ASSERT_TRUE(cm.ok());
    const auto& w = cm->model->graph().node(0).attribute(0).g().initializer(0);
    ASSERT_EQ(w.data_location(), onnx::TensorProto::EXTERNAL);
  }
  const std::string data = tmp.path + "/data";
  fs::create_directories(data);
  onnx::TensorProto cond, x;
  cond.set_data_type(onnx::TensorProto::BOOL);
  cond.add_int32_data(1);
  x.set_data_type(onnx::TensorProto::FLOAT);
  x.add_dims(1);
  x.add_dims(8);
  for (int i = 0; i < 8; ++i) x.add_float_data(0.5f * static_cast<float>(i) - 1.0f);
  ASSERT_TRUE(WriteFileAtomic(data + "/input_0.pb", cond.SerializeAsString()).ok());
  ASSERT_TRUE(WriteFileAtomic(data + "/input_1.pb", x.SerializeAsString()).ok());
  std::this_thread::sleep_for(std::chrono::nanoseconds(kMemoRacyMarginNs + 100'000'000));
  std::vector<std::string> unused;
  const SessionOptions memo_opts = Options(tmp.path + "/memo", &unused);
  Loaded first, memo;
  LoadAndRun(out, data, memo_opts, &first);
  EXPECT_EQ(first.plan.state, EntryState::kHit) << first.plan.detail;
  EXPECT_TRUE(first.plan.verified);
  LoadAndRun(out, data, memo_opts, &memo);
  EXPECT_EQ(memo.plan.state, EntryState::kHit) << memo.plan.detail;
  EXPECT_TRUE(memo.plan.memo) << "the sources-only parse lists the files the whole one did";
  EXPECT_FALSE(memo.parsed_whole);
  EXPECT_EQ(memo.outputs, first.outputs);
  {  // A session created from a Model knows no files to key a memo on: it reads none.
    auto m = LoadModel(out);
    auto cm = ReadCompiledModel(out);
    ASSERT_TRUE(m.ok() && cm.ok());
    auto ext = std::make_shared<const vtensor::ModelExtension>(cm->ext);
    auto s = Session::Create(std::move(*m), memo_opts, ext);
    ASSERT_TRUE(s.ok()) << s.status().message();
    EXPECT_EQ((*s)->plan_report().state, EntryState::kHit);
    EXPECT_FALSE((*s)->plan_report().memo);
    EXPECT_TRUE((*s)->plan_report().verified);
  }
  // Other weights of the same size in a new w.bin (renamed over the old one); the model file
  // and the payload file are untouched.
  ASSERT_TRUE(WriteFileAtomic(tmp.path + "/w.bin", Floats(-2.0f)).ok());
  Loaded changed, off;
  LoadAndRun(out, data, memo_opts, &changed);
  EXPECT_FALSE(changed.plan.memo);
  EXPECT_EQ(changed.plan.state, EntryState::kMiss);
  EXPECT_EQ(changed.plan.reason, MissReason::kStaleGraph) << changed.plan.detail;
  SessionOptions no_cache = memo_opts;
  no_cache.cache.enabled = false;
  LoadAndRun(out, data, no_cache, &off);
  EXPECT_NE(off.outputs, first.outputs) << "the new weights change the output";
  EXPECT_EQ(changed.outputs, off.outputs) << "the memo let the plan's old weights through";
}

// ---- fault injection, on the PP-OCR classifier (small, folds and fuses) ----

class PlanFaults : public ::testing::Test {
 protected:
  void SetUp() override {
    c_ = Cases()[2];
    if (::access(c_.model.c_str(), R_OK) != 0) GTEST_SKIP() << c_.model << " not in the model cache";
    out_ = tmp_.path + "/m.onnx";
    ASSERT_TRUE(Compile(c_.model, out_, true).ok());
    auto cm = ReadCompiledModel(out_);
    ASSERT_TRUE(cm.ok());
    ASSERT_EQ(cm->ext.session_plans_size(), 1);
    plan_ = cm->ext.session_plans(0);
    ASSERT_TRUE(plan_.has_external());
    SessionOptions off;
    off.cache.enabled = false;
    LoadAndRun(out_, c_.data, off, &reference_);
  }
  // Loads `model` and expects a plan MISS(reason), the warning naming its code, and the
  // outputs of `want`.
  void ExpectMiss(const std::string& model, MissReason reason, const Loaded& want,
                  SessionOptions so = {}) {
    so.cache.memo_dir = tmp_.path + "/memo";
    Loaded got;
    LoadAndRun(model, c_.data, so, &got);
    EXPECT_EQ(got.plan.state, EntryState::kMiss);
    EXPECT_EQ(got.plan.reason, reason) << MissReasonCode(got.plan.reason) << ": " << got.plan.detail;
    ASSERT_EQ(got.warnings.size(), 1u);
    EXPECT_NE(got.warnings[0].find(std::string("the session plan was not used (") +
                                   MissReasonCode(reason) + ")"),
              std::string::npos)
        << got.warnings[0];
    EXPECT_EQ(got.outputs, want.outputs);
  }
  // Rewrites the compiled model's plan with `edit`.
  void EditPlan(const std::function<void(vtensor::SessionPlanProto*)>& edit) {
    auto cm = ReadCompiledModel(out_);
    ASSERT_TRUE(cm.ok());
    edit(cm->ext.mutable_session_plans(0));
    ASSERT_TRUE(WriteCompiledModel(*cm, out_).ok());
  }
  void PatchPayload(const std::function<void(std::fstream&, int64_t off, int64_t len)>& patch) {
    std::fstream f(out_ + ".vtpack", std::ios::in | std::ios::out | std::ios::binary);
    ASSERT_TRUE(f.good());
    patch(f, plan_.external().offset(), plan_.external().length());
  }

  TempDir tmp_;
  Case c_;
  std::string out_;
  vtensor::SessionPlanProto plan_;
  Loaded reference_;
};

TEST_F(PlanFaults, StaleGraphAfterTheModelWasEdited) {
  // One float of a small initializer no compiled entry caches changes: the model the session
  // loads is another one, and its outputs are those of the edited model without a plan.
  auto cm = ReadCompiledModel(out_);
  ASSERT_TRUE(cm.ok());
  std::set<std::string> cached;
  for (const auto& ct : cm->ext.compiled_tensors()) cached.insert(ct.source_name());
  // The model keeps its small constants in initializers or Constant nodes.
  std::vector<onnx::TensorProto*> candidates;
  for (auto& t : *cm->model->mutable_graph()->mutable_initializer()) candidates.push_back(&t);
  for (auto& n : *cm->model->mutable_graph()->mutable_node())
    if (n.op_type() == "Constant" && n.output_size() == 1)
      for (auto& a : *n.mutable_attribute())
        if (a.name() == "value" && a.has_t()) {
          a.mutable_t()->set_name(n.output(0));  // compiled entries name it after the output
          candidates.push_back(a.mutable_t());
        }
  bool edited = false;
  for (onnx::TensorProto* t : candidates) {
    if (cached.count(t->name()) || t->data_type() != onnx::TensorProto::FLOAT ||
        t->raw_data().size() < 4 || t->raw_data().size() > 4096)
      continue;
    std::string raw = t->raw_data();
    float v;
    std::memcpy(&v, raw.data(), 4);
    v = v * 1.5f + 0.25f;
    std::memcpy(raw.data(), &v, 4);
    t->set_raw_data(raw);
    edited = true;
    break;
  }
  ASSERT_TRUE(edited);
  ASSERT_TRUE(WriteCompiledModel(*cm, out_).ok());
  SessionOptions off;
  off.cache.enabled = false;
  Loaded edited_ref;
  LoadAndRun(out_, c_.data, off, &edited_ref);
  ASSERT_NE(edited_ref.outputs, reference_.outputs) << "the edit must change the outputs";
  ExpectMiss(out_, MissReason::kStaleGraph, edited_ref);
}

TEST_F(PlanFaults, OtherVersions) {
  EditPlan([](vtensor::SessionPlanProto* p) { p->set_runtime_version("passes-0 packed-1"); });
  ExpectMiss(out_, MissReason::kOtherPlanVersion, reference_);
  EditPlan([](vtensor::SessionPlanProto* p) {
    p->set_runtime_version(SessionPlanRuntimeVersion());
    p->set_format_version(kSessionPlanFormatVersion + 1);
  });
  ExpectMiss(out_, MissReason::kOtherPlanVersion, reference_);
}

TEST_F(PlanFaults, OtherOptions) {
  SessionOptions no_fuse;
  no_fuse.fuse = false;
  Loaded want;
  SessionOptions off = no_fuse;
  off.cache.enabled = false;
  LoadAndRun(out_, c_.data, off, &want);
  ExpectMiss(out_, MissReason::kOtherOptions, want, no_fuse);
}

TEST_F(PlanFaults, DamagedPlanBytes) {
  PatchPayload([](std::fstream& f, int64_t off, int64_t len) {
    f.seekg(off + len / 2);
    char b = 0;
    f.read(&b, 1);
    b = static_cast<char>(b ^ 0x5a);
    f.seekp(off + len / 2);
    f.write(&b, 1);
  });
  ExpectMiss(out_, MissReason::kPayloadDigest, reference_);
}

TEST_F(PlanFaults, TruncatedPayload) {
  fs::resize_file(out_ + ".vtpack", static_cast<uintmax_t>(plan_.external().offset() + 10));
  // The compiled tensors before the plan keep their bytes; only the plan misses.
  ExpectMiss(out_, MissReason::kTruncatedPayload, reference_);
}

TEST_F(PlanFaults, PayloadFileMissing) {
  fs::remove(out_ + ".vtpack");
  SessionOptions so;
  so.cache.memo_dir = tmp_.path + "/memo";
  Loaded got;
  LoadAndRun(out_, c_.data, so, &got);
  EXPECT_EQ(got.plan.reason, MissReason::kMissingPayloadFile);
  ASSERT_EQ(got.warnings.size(), 1u);
  EXPECT_NE(got.warnings[0].find("the session plan was not used (payload-missing)"), std::string::npos);
  EXPECT_EQ(got.outputs, reference_.outputs);
}

// The plan of the inline-payload compiled model at `path` with its source list rewritten by
// `edit` and its metadata by `edit_plan` (payload, graph_offset and digest made to match).
void EditSourceList(const std::string& path,
                    const std::function<void(vtensor::PlanGraphProto*)>& edit,
                    const std::function<void(vtensor::SessionPlanProto*)>& edit_plan) {
  auto cm = ReadCompiledModel(path);
  ASSERT_TRUE(cm.ok());
  auto* p = cm->ext.mutable_session_plans(0);
  ASSERT_TRUE(p->has_raw_data());
  vtensor::StringStringEntry* kv = nullptr;
  for (auto& e : *p->mutable_metadata_props())
    if (e.key() == kPlanSourcesKey) kv = &e;
  ASSERT_NE(kv, nullptr) << "the plan has no source list";
  std::istringstream span(kv->value());
  size_t at = 0, len = 0;
  span >> at >> len;
  const std::string old = p->raw_data();
  ASSERT_LE(at + len, static_cast<size_t>(p->graph_offset()));
  vtensor::PlanGraphProto list;
  ASSERT_TRUE(list.ParseFromString(old.substr(at, len)));
  edit(&list);
  std::string bytes = old.substr(0, at);
  const std::string l = list.SerializeAsString();
  bytes += l;
  bytes.resize((bytes.size() + kPlanBlobAlign - 1) / kPlanBlobAlign * kPlanBlobAlign, '\0');
  const size_t graph_at = bytes.size();
  bytes += old.substr(static_cast<size_t>(p->graph_offset()));
  kv->set_value(std::to_string(at) + " " + std::to_string(l.size()));
  p->set_graph_offset(static_cast<int64_t>(graph_at));
  p->set_payload_digest(PayloadDigest(bytes.data(), bytes.size()));
  p->set_raw_data(std::move(bytes));
  if (edit_plan) edit_plan(p);
  ASSERT_TRUE(WriteCompiledModel(*cm, path).ok());
}

// The first source-list entry whose bytes stand in the model file (a blob of it).
vtensor::PlanTensorProto* FirstInFile(vtensor::PlanGraphProto* list) {
  for (auto& t : *list->mutable_initializer())
    if (t.has_blob() && t.elem() == static_cast<int32_t>(DType::kFloat32)) return &t;
  return nullptr;
}

TEST_F(PlanFaults, SourceListThatDoesNotReadIsNotUsed) {
  const std::string inl = tmp_.path + "/inline.onnx";
  ASSERT_TRUE(Compile(c_.model, inl, false).ok());
  using List = vtensor::PlanGraphProto;
  const std::vector<std::pair<std::string, std::function<void(List*)>>> edits = {
      {"range outside the file",
       [](List* l) { FirstInFile(l)->mutable_blob()->set_offset(int64_t{1} << 40); }},
      {"range past the end of the file",
       [](List* l) { FirstInFile(l)->mutable_blob()->set_offset(int64_t{1} << 22); }},
      {"size not its type's", [](List* l) {
         FirstInFile(l)->set_elem(static_cast<int32_t>(DType::kFloat64));
       }},
      {"another type of the same size", [](List* l) {
         FirstInFile(l)->set_elem(static_cast<int32_t>(DType::kInt32));
       }},
      {"other dims", [](List* l) {
         auto* t = FirstInFile(l);
         t->clear_dims();
         t->add_dims(t->blob().length() / 4);
         t->add_dims(1);
       }},
      {"truncated list", [](List* l) { l->mutable_initializer()->RemoveLast(); }},
      {"empty list", [](List* l) { l->clear_initializer(); }},
  };
  std::vector<std::string> files;
  for (size_t i = 0; i < edits.size(); ++i) {
    files.push_back(tmp_.path + "/edit" + std::to_string(i) + ".onnx");
    fs::copy_file(inl, files.back());
    EditSourceList(files.back(), edits[i].second, nullptr);
  }
  // The list's place itself: not two numbers, outside the payload.
  const std::vector<std::string> places = {"12 x", "7", "0 99999999999", "99999999 8"};
  for (const std::string& v : places) {
    files.push_back(tmp_.path + "/place" + std::to_string(files.size()) + ".onnx");
    fs::copy_file(inl, files.back());
    EditSourceList(files.back(), [](List*) {}, [&v](vtensor::SessionPlanProto* p) {
      for (auto& e : *p->mutable_metadata_props())
        if (e.key() == kPlanSourcesKey) e.set_value(v);
    });
  }
  std::this_thread::sleep_for(std::chrono::nanoseconds(kMemoRacyMarginNs + 100'000'000));
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string what = i < edits.size() ? edits[i].first : "place '" + places[i - edits.size()] + "'";
    SCOPED_TRACE(what);
    SessionOptions so;
    so.cache.memo_dir = tmp_.path + "/memo" + std::to_string(i);
    Loaded first, memo;
    LoadAndRun(files[i], c_.data, so, &first);  // verifies the plan, records the memo
    EXPECT_EQ(first.plan.state, EntryState::kHit) << first.plan.detail;
    LoadAndRun(files[i], c_.data, so, &memo);
    EXPECT_TRUE(memo.plan.memo);
    EXPECT_FALSE(memo.read_no_graph);
    EXPECT_TRUE(memo.parsed_whole);
    EXPECT_EQ(memo.plan.state, EntryState::kHit) << memo.plan.detail;
    EXPECT_EQ(memo.outputs, reference_.outputs);
  }
  // The unedited list stands for the graph.
  SessionOptions so;
  so.cache.memo_dir = tmp_.path + "/memo";
  Loaded first, memo;
  LoadAndRun(inl, c_.data, so, &first);
  LoadAndRun(inl, c_.data, so, &memo);
  EXPECT_TRUE(memo.read_no_graph);
  EXPECT_EQ(memo.outputs, reference_.outputs);
}

TEST_F(PlanFaults, ByteFlipsNeverCrash) {
  // Inline plans whose payload digest is recomputed after the flips: the plan parser and the
  // plan graph reader see every damaged plan. A load either fails with an error, misses, or
  // hits a graph that then runs or fails with an error; none may crash.
  TempDir t;
  const std::string inl = t.path + "/inline.onnx";
  ASSERT_TRUE(Compile(c_.model, inl, false).ok());
  auto cm = ReadCompiledModel(inl);
  ASSERT_TRUE(cm.ok());
  const std::string good = cm->ext.session_plans(0).raw_data();
  std::mt19937 rng(7);
  int hits = 0, misses = 0, errors = 0;
  for (int iter = 0; iter < 60; ++iter) {
    std::string bad = good;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < flips; ++k) bad[rng() % bad.size()] ^= static_cast<char>(1 + rng() % 255);
    auto* p = cm->ext.mutable_session_plans(0);
    p->set_raw_data(bad);
    p->set_payload_digest(PayloadDigest(bad.data(), bad.size()));
    auto bytes = SerializeCompiledModel(*cm);
    ASSERT_TRUE(bytes.ok());
    SessionOptions so;
    so.cache_warning = nullptr;
    auto s = Session::LoadFromBytes(bytes->data(), bytes->size(), DirName(c_.model), so);
    if (!s.ok()) {
      ++errors;
      continue;
    }
    ((*s)->plan_report().state == EntryState::kHit ? hits : misses)++;
    std::vector<Value> in;
    const auto ios = (*s)->inputs();
    for (size_t i = 0; i < ios.size(); ++i) {
      auto v = LoadValueFile(c_.data + "/input_" + std::to_string(i) + ".pb", ios[i]->spec.type());
      if (v.ok()) in.push_back(std::move(*v));
    }
    if (in.size() == ios.size()) (void)(*s)->Run(in);
  }
  EXPECT_EQ(hits + misses + errors, 60);
  EXPECT_GT(misses, 0);
}

}  // namespace
}  // namespace vt
