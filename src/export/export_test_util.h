// Test-only helpers for the export tests: golden files (tests/golden/, regenerated with
// VT_UPDATE_GOLDEN=1), small models, and an optional mlir-opt-16 parse check.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "passes/test_model_builder.h"
#include "vtensor/base/file.h"

namespace vt::testing {

inline std::string GoldenPath(const std::string& name) {
  return std::string(VTENSOR_SOURCE_DIR) + "/tests/golden/" + name;
}

// Compares `actual` with tests/golden/<name> byte for byte (first differing line reported).
inline void ExpectGolden(const std::string& name, const std::string& actual) {
  const std::string path = GoldenPath(name);
  if (std::getenv("VT_UPDATE_GOLDEN") != nullptr) {
    ASSERT_TRUE(WriteFileAtomic(path, actual).ok()) << path;
    return;
  }
  auto expected = ReadFileToString(path);
  ASSERT_TRUE(expected.ok()) << path << " is missing; run with VT_UPDATE_GOLDEN=1 to create it";
  if (*expected == actual) return;
  std::istringstream a(actual), e(*expected);
  std::string la, le;
  int line = 1;
  while (std::getline(e, le)) {
    if (!std::getline(a, la) || la != le) break;
    ++line;
  }
  ADD_FAILURE() << name << " differs from the golden file at line " << line << "\n expected: " << le
                << "\n actual:   " << la;
}

// True when mlir-opt-16 is installed.
inline bool HaveMlirOpt() { return access("/usr/bin/mlir-opt-16", X_OK) == 0; }

// Parses `mlir` with `mlir-opt-16 --allow-unregistered-dialect`; returns its diagnostics
// ("" on success). `reprinted`, when given, receives mlir-opt's re-printed module.
inline std::string MlirOptParse(const std::string& mlir, std::string* reprinted = nullptr) {
  static int n = 0;
  const std::string base = ::testing::TempDir() + "/vt_mlir_" + std::to_string(::getpid()) + "_" +
                           std::to_string(n++);
  if (!WriteFileAtomic(base + ".mlir", mlir).ok()) return "cannot write " + base + ".mlir";
  const std::string cmd = "/usr/bin/mlir-opt-16 --allow-unregistered-dialect " + base + ".mlir -o " +
                          base + ".out 2> " + base + ".err";
  const int rc = std::system(cmd.c_str());
  auto err = ReadFileToString(base + ".err");
  if (reprinted) {
    auto out = ReadFileToString(base + ".out");
    if (out.ok()) *reprinted = *out;
  }
  std::remove((base + ".mlir").c_str());
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  if (rc == 0) return "";
  return err.ok() && !err->empty() ? *err : "mlir-opt-16 failed";
}

// The golden model: Y[1,10] = Softmax(MatMul(Flatten(MaxPool(Relu(Conv(X[1,3,8,8], W1, B1)))),
// W2) + B2), conv 4x3x3x3 pad 1, pool 2x2 stride 2.
inline OnnxBuilder SmallConvNet() {
  OnnxBuilder b(13);
  b.Input("X", {1, 3, 8, 8}).Output("Y", {1, 10});
  b.RandomInit("W1", {4, 3, 3, 3}, 11).RandomInit("B1", {4}, 12);
  b.RandomInit("W2", {64, 10}, 13).RandomInit("B2", {10}, 14);
  auto& conv = b.Node("Conv", {"X", "W1", "B1"}, {"c"}, "conv");
  OnnxBuilder::AttrInts(conv, "pads", {1, 1, 1, 1});
  OnnxBuilder::AttrInts(conv, "kernel_shape", {3, 3});
  b.Node("Relu", {"c"}, {"r"}, "relu");
  auto& pool = b.Node("MaxPool", {"r"}, {"p"}, "pool");
  OnnxBuilder::AttrInts(pool, "kernel_shape", {2, 2});
  OnnxBuilder::AttrInts(pool, "strides", {2, 2});
  b.Node("Flatten", {"p"}, {"f"}, "flatten");
  b.Node("MatMul", {"f", "W2"}, {"m"}, "fc");
  b.Node("Add", {"m", "B2"}, {"a"}, "bias");
  b.Node("Softmax", {"a"}, {"Y"}, "softmax");
  return b;
}

}  // namespace vt::testing
