// Shared fixture for tests that drive the `vtensor` binary: a scratch directory per test and
// a runner with a time limit, so a hang fails the test instead of the whole suite.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "model_builder.h"
#include "subprocess.h"

#ifndef VTENSOR_BIN
#error "VTENSOR_BIN must name the vtensor executable"
#endif

namespace vt::testing {

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  std::string Path(const std::string& rel) const { return dir_ + "/" + rel; }

  // Runs `vtensor args...`; 60 s is far above any case here (all take milliseconds).
  static ProcessResult Vtensor(const std::vector<std::string>& args) {
    std::vector<std::string> argv{VTENSOR_BIN};
    argv.insert(argv.end(), args.begin(), args.end());
    ProcessResult r = RunProcess(argv, 60.0);
    // VTENSOR_CLI_TEST_SHOW=1 prints every invocation, to review the messages by eye.
    if (std::getenv("VTENSOR_CLI_TEST_SHOW")) {
      std::string cmd;
      for (const auto& a : args) cmd += " " + a;
      std::fprintf(stderr, "$ vtensor%s\n%s[%s]\n", cmd.c_str(), r.output.c_str(),
                   r.Describe().c_str());
    }
    return r;
  }

  // Writes `model` to DIR/model.onnx and returns the path.
  std::string WriteModel(const onnx::ModelProto& model, const std::string& name = "model.onnx") {
    std::string p = Path(name);
    WriteProto(p, model);
    return p;
  }

  std::string dir_;
};

// Asserts a clean exit with `code` and that the output names the cause.
#define EXPECT_EXIT_WITH(result, code, substring)                                  \
  do {                                                                             \
    const ::vt::testing::ProcessResult& _r = (result);                             \
    EXPECT_EQ(_r.Describe(), "exit " + std::to_string(code)) << _r.output;         \
    EXPECT_NE(_r.output.find(substring), std::string::npos)                        \
        << "expected output to contain \"" << (substring) << "\", got:\n"          \
        << _r.output;                                                              \
  } while (0)

}  // namespace vt::testing
