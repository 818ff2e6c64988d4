// `run --profile-ops FILE` / `bench --profile-ops FILE --top K`: a Chrome trace with one event
// per node run, and the slowest op types (tools/op_trace.h).
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_test_base.h"

namespace vt::testing {
namespace {

class ProfileOps : public CliTest {
 protected:
  // y = Relu(MatMul(x, w) + w2): three nodes. x float[4,16], w float[16,32], w2 float[32].
  std::string WriteModel3() {
    onnx::ModelProto m = AddModel();
    onnx::GraphProto* g = ClearedGraph(&m, {4, 16}, {4, 32});
    *g->add_initializer() = FloatTensor("w", {16, 32}, std::vector<float>(16 * 32, 0.25f));
    *g->add_initializer() = FloatTensor("w2", {32}, std::vector<float>(32, -1.f));
    AddNode(g, "mm", "MatMul", {"x", "w"}, "h");
    AddNode(g, "bias", "Add", {"h", "w2"}, "a");
    AddNode(g, "act", "Relu", {"a"}, "y");
    return WriteModel(m);
  }
  // The model's graph emptied, with one float input x and one float output y of these shapes.
  static onnx::GraphProto* ClearedGraph(onnx::ModelProto* m, const std::vector<int64_t>& x_shape,
                                        const std::vector<int64_t>& y_shape) {
    auto* g = m->mutable_graph();
    g->clear_input();
    g->clear_output();
    g->clear_initializer();
    g->clear_node();
    AddFloatIO(g->add_input(), "x", x_shape);
    AddFloatIO(g->add_output(), "y", y_shape);
    return g;
  }
  static void AddNode(onnx::GraphProto* g, const char* name, const char* op,
                      const std::vector<const char*>& in, const char* out) {
    auto* n = g->add_node();
    n->set_name(name);
    n->set_op_type(op);
    for (const char* i : in) n->add_input(i);
    n->add_output(out);
  }
  static nlohmann::json ReadJson(const std::string& p) {
    std::ifstream f(p);
    std::stringstream ss;
    ss << f.rdbuf();
    return nlohmann::json::parse(ss.str(), nullptr, false);
  }
};

TEST_F(ProfileOps, RunWritesOneTraceEventPerNode) {
  std::string m = WriteModel3();
  EXPECT_EXIT_WITH(Vtensor({"run", m, "--profile-ops", Path("trace.json")}), 0, "y  float32[4,32]");
  const nlohmann::json t = ReadJson(Path("trace.json"));
  ASSERT_FALSE(t.is_discarded());
  ASSERT_TRUE(t["traceEvents"].is_array());
  ASSERT_GE(t["traceEvents"].size(), 1u);
  ASSERT_LE(t["traceEvents"].size(), 3u);  // the session may fuse the three nodes
  double end = 0;
  for (const auto& e : t["traceEvents"]) {
    EXPECT_EQ(e["ph"], "X");
    EXPECT_TRUE(e["name"].is_string());
    EXPECT_TRUE(e["cat"].is_string());
    EXPECT_GE(e["ts"].get<double>(), end);  // one after the other on one thread
    EXPECT_GE(e["dur"].get<double>(), 0.0);
    end = e["ts"].get<double>() + e["dur"].get<double>();
    EXPECT_TRUE(e["tid"].is_number());
    EXPECT_EQ(e["args"]["depth"], 0);
  }
  EXPECT_EQ(t["traceEvents"].front()["args"]["inputs"][0], "float32[4,16]");
  EXPECT_EQ(t["traceEvents"].back()["args"]["outputs"][0], "float32[4,32]");
  EXPECT_EXIT_WITH(Vtensor({"run", m, "--profile-ops", Path("no/dir/t.json")}), 2,
                   "directory '" + Path("no/dir") + "' does not exist");
}

TEST_F(ProfileOps, BenchTopAndTrace) {
  std::string m = WriteModel3();
  auto r = Vtensor({"bench", m, "--runs", "5", "--top", "2", "--profile-ops", Path("b.json")});
  EXPECT_EXIT_WITH(r, 0, "top 2 op types by self time over 5 runs");
  EXPECT_NE(r.output.find("total_ms"), std::string::npos) << r.output;
  const nlohmann::json t = ReadJson(Path("b.json"));
  ASSERT_FALSE(t.is_discarded());
  EXPECT_EQ(t["traceEvents"].size() % 5, 0u);  // the same nodes in each timed run
  auto j = Vtensor({"bench", m, "--runs", "4", "--top", "1", "--json"});
  const nlohmann::json b = nlohmann::json::parse(j.output, nullptr, false);
  ASSERT_FALSE(b.is_discarded()) << j.output;
  ASSERT_EQ(b["top_op_types"].size(), 1u);
  EXPECT_EQ(b["top_op_types"][0]["count"].get<int>() % 4, 0);
  EXPECT_GT(b["top_op_types"][0]["percent"].get<double>(), 0.0);
  EXPECT_LE(b["top_op_types"][0]["percent"].get<double>(), 100.0);
  EXPECT_EQ(Vtensor({"bench", m, "--top", "0"}).Describe(), "exit 2");
}

// The first run profiled on its own: its trace holds one run's nodes, the first-run table and
// its JSON list op types seen in both profiles.
TEST_F(ProfileOps, BenchFirstRunTableAndTrace) {
  std::string m = WriteModel3();
  auto r = Vtensor({"bench", m, "--runs", "3", "--top", "3", "--profile-first", Path("f.json")});
  EXPECT_EXIT_WITH(r, 0, "self time above the timed runs' mean");
  EXPECT_NE(r.output.find("extra_ms"), std::string::npos) << r.output;
  const nlohmann::json t = ReadJson(Path("f.json"));
  ASSERT_FALSE(t.is_discarded());
  ASSERT_GE(t["traceEvents"].size(), 1u);
  EXPECT_LE(t["traceEvents"].size(), 3u);  // one run of at most three nodes
  auto j = Vtensor({"bench", m, "--runs", "2", "--top", "5", "--json"});
  const nlohmann::json b = nlohmann::json::parse(j.output, nullptr, false);
  ASSERT_FALSE(b.is_discarded()) << j.output;
  ASSERT_EQ(b["first_run_op_types"].size(), b["top_op_types"].size());
  for (const auto& e : b["first_run_op_types"]) {
    EXPECT_EQ(e["count"].get<int>() * 2, [&] {
      for (const auto& top : b["top_op_types"])
        if (top["op_type"] == e["op_type"]) return top["count"].get<int>();
      return -1;
    }()) << e.dump();
    EXPECT_GE(e["first_ms"].get<double>(), 0.0);
    EXPECT_GE(e["steady_ms"].get<double>(), 0.0);
  }
  // Tick-sampled (tools/process_clock.h): only its presence and sign are certain.
  EXPECT_GE(b["first_run_sys_ms"].get<double>(), 0.0);
  EXPECT_GE(b["first_run_fresh_mib"].get<double>(), 0.0);
  // The process's CPU time from exec to the first result covers at least the first run's.
  EXPECT_GE(b["first_result_cpu_ms"].get<double>(), b["first_run_cpu_ms"].get<double>());
  auto plain = Vtensor({"bench", m, "--runs", "2", "--json"});
  const nlohmann::json p = nlohmann::json::parse(plain.output, nullptr, false);
  ASSERT_FALSE(p.is_discarded()) << plain.output;
  EXPECT_TRUE(p["first_run_op_types"].empty());
}

// first_run_peak_live_mib: the arena's live bytes at their peak in the first run, above those
// live before it. y = Add(Relu(x), Relu(x)), x float[64,64]: the two Relu outputs (16 KiB each,
// arena sized) are live together when Add runs.
TEST_F(ProfileOps, BenchFirstRunPeakOfLiveArenaBytes) {
  if (const char* a = std::getenv("VTENSOR_HOST_ARENA"); a && (std::string(a) == "off" || std::string(a) == "0"))
    GTEST_SKIP() << "VTENSOR_HOST_ARENA=off";
  onnx::ModelProto m = AddModel();
  onnx::GraphProto* g = ClearedGraph(&m, {64, 64}, {64, 64});
  AddNode(g, "r1", "Relu", {"x"}, "h1");
  AddNode(g, "r2", "Relu", {"x"}, "h2");
  AddNode(g, "sum", "Add", {"h1", "h2"}, "y");
  auto r = Vtensor({"bench", WriteModel(m), "--runs", "1", "--json"});
  const nlohmann::json b = nlohmann::json::parse(r.output, nullptr, false);
  ASSERT_FALSE(b.is_discarded()) << r.output;
  const double live = b["first_run_peak_live_mib"].get<double>() * (1 << 20);
  EXPECT_GE(live, 2 * 64 * 64 * 4);
  EXPECT_LT(live, 1 << 20) << "no other arena-sized buffer in this run";
}

}  // namespace
}  // namespace vt::testing
