// `vtensor compile -o OUT`: a clear error for an OUT that cannot be written (before any work),
// and crash-safe writes: a compile killed with SIGKILL at any point of its writes leaves neither
// a partial output nor a temporary file, and the source model intact (base/temp_file.h).
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "cli_test_base.h"

namespace vt::testing {
namespace {

class CompileWrite : public CliTest {
 protected:
  // y = MatMul(x, w), w float[64,128]: one weight that compile packs into OUT.vtpack.
  std::string WriteMatMulModel() { return WriteModel(MatMulModel()); }
  static std::string ReadAll(const std::string& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }
  std::set<std::string> Listing() const {
    std::set<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(dir_))
      out.insert(e.path().filename().string());
    return out;
  }
  // `vtensor compile` with VTENSOR_TEST_KILL_AFTER_BYTES=kill_after (and the named-temporary
  // fallback when `no_tmpfile`).
  ProcessResult CompileKilledAfter(long long kill_after, bool no_tmpfile = false) {
    if (kill_after >= 0) setenv("VTENSOR_TEST_KILL_AFTER_BYTES", std::to_string(kill_after).c_str(), 1);
    if (no_tmpfile) setenv("VTENSOR_TEST_NO_TMPFILE", "1", 1);
    auto r = Vtensor({"compile", Path("model.onnx"), "-o", Path("out.onnx"), "--no-progress"});
    unsetenv("VTENSOR_TEST_KILL_AFTER_BYTES");
    unsetenv("VTENSOR_TEST_NO_TMPFILE");
    return r;
  }
};

TEST_F(CompileWrite, MissingDirectoryNamesPathAndReason) {
  WriteMatMulModel();
  auto r = Vtensor({"compile", Path("model.onnx"), "-o", Path("no/such/x.onnx")});
  EXPECT_EXIT_WITH(r, 2, "cannot write '" + Path("no/such/x.onnx") + "': directory '" +
                             Path("no/such") + "' does not exist");
  EXPECT_EQ(r.output.find(".tmp"), std::string::npos) << r.output;
}

TEST_F(CompileWrite, OutputDirectoryFailsBeforeAnyWork) {
  WriteMatMulModel();
  std::filesystem::create_directories(Path("outdir"));
  auto r = Vtensor({"compile", Path("model.onnx"), "-o", Path("outdir")});
  EXPECT_EXIT_WITH(r, 2, "-o '" + Path("outdir") + "' is a directory");
  EXPECT_EQ(Listing(), (std::set<std::string>{"model.onnx", "outdir"}));
  EXPECT_TRUE(std::filesystem::is_empty(Path("outdir")));
}

TEST_F(CompileWrite, KilledAtAnyPointLeavesNoLitter) {
  WriteMatMulModel();
  const std::string source = ReadAll(Path("model.onnx"));
  // Payload (32 KiB at offset 0) then the model: kill inside each and right at their edges.
  for (long long n : {1LL, 4096LL, 32767LL, 32768LL, 32769LL, 40000LL, 60000LL}) {
    auto r = CompileKilledAfter(n);
    EXPECT_EQ(r.Describe(), "signal 9 (Killed)") << "after " << n << " bytes:\n" << r.output;
    EXPECT_EQ(Listing(), std::set<std::string>{"model.onnx"}) << "after " << n << " bytes";
    EXPECT_EQ(ReadAll(Path("model.onnx")), source);
  }
  // A finished compile, then a killed recompile: the first outputs stay whole.
  EXPECT_EXIT_WITH(CompileKilledAfter(-1), 0, "1 compiled tensors");
  const std::string out = ReadAll(Path("out.onnx")), pack = ReadAll(Path("out.onnx.vtpack"));
  for (long long n : {1LL, 32769LL}) {
    EXPECT_EQ(CompileKilledAfter(n).Describe(), "signal 9 (Killed)");
    EXPECT_EQ(Listing(), (std::set<std::string>{"model.onnx", "out.onnx", "out.onnx.vtpack"}));
    EXPECT_EQ(ReadAll(Path("out.onnx")), out);
    EXPECT_EQ(ReadAll(Path("out.onnx.vtpack")), pack);
  }
}

TEST_F(CompileWrite, NamedFallbackIsSweptByTheNextWriter) {
  WriteMatMulModel();
  EXPECT_EQ(CompileKilledAfter(100, /*no_tmpfile=*/true).Describe(), "signal 9 (Killed)");
  // The dead writer's named temporary is there...
  int litter = 0;
  for (const auto& name : Listing()) litter += name.rfind("out.onnx.vtpack.tmp.", 0) == 0;
  EXPECT_EQ(litter, 1);
  // ...until the next write to that destination removes it (its writer's PID is gone).
  EXPECT_EXIT_WITH(CompileKilledAfter(-1, /*no_tmpfile=*/true), 0, "1 compiled tensors");
  EXPECT_EQ(Listing(), (std::set<std::string>{"model.onnx", "out.onnx", "out.onnx.vtpack"}));
}

}  // namespace
}  // namespace vt::testing
