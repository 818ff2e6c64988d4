// `vtensor run` / `bench` inputs without --data: --free-dim, --input-shape, --input NAME=FILE
// (.npy or TensorProto), --random-inputs, and the output flags --print / --save-format npy.
#include <cstring>
#include <fstream>
#include <sstream>

#include "cli_test_base.h"

namespace vt::testing {
namespace {

class Inputs : public CliTest {
 protected:
  // y = x + w with x float[batch,3] and w = {1,2,3}.
  std::string WriteBatchModel() {
    onnx::ModelProto m = AddModel();
    auto* g = m.mutable_graph();
    *g->mutable_initializer(0) = FloatTensor("w", {3}, {1, 2, 3});
    for (auto* vi : {g->mutable_input(0), g->mutable_output(0)}) {
      auto* dim0 = vi->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0);
      dim0->set_dim_param("batch");
    }
    return WriteModel(m);
  }
  // A version 1.0 .npy file of float32 `values` with `shape_text` such as "(2, 3)".
  std::string WriteNpy(const std::string& name, const std::string& shape_text,
                       const std::vector<float>& values, const std::string& descr = "<f4") {
    std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " +
                         shape_text + ", }";
    while ((10 + header.size() + 1) % 64) header += ' ';
    header += '\n';
    std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
    bytes += static_cast<char>(header.size() & 0xff);
    bytes += static_cast<char>(header.size() >> 8);
    bytes += header;
    bytes.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
    WriteBytes(Path(name), bytes);
    return Path(name);
  }
  static std::string ReadAll(const std::string& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }
};

TEST_F(Inputs, UnresolvedSymbolicDimNamesInputDimAndFlags) {
  std::string m = WriteBatchModel();
  const char* want = "input 'x' [batch,3]: dim 0 is the symbolic 'batch': pass --free-dim "
                     "batch=N or --input-shape x=Nx3";
  EXPECT_EXIT_WITH(Vtensor({"run", m}), 2, want);
  EXPECT_EXIT_WITH(Vtensor({"bench", m, "--runs", "1"}), 2, want);
}

TEST_F(Inputs, FreeDimAndInputShapeBindTheDim) {
  std::string m = WriteBatchModel();
  auto r = Vtensor({"run", m, "--free-dim", "batch=4", "--print"});
  EXPECT_EXIT_WITH(r, 0, "y  float32[4,3]");
  EXPECT_NE(r.output.find("[[1. 2. 3.],\n [1. 2. 3.],\n [1. 2. 3.],\n [1. 2. 3.]]"),
            std::string::npos) << r.output;
  EXPECT_EXIT_WITH(Vtensor({"run", m, "--input-shape", "x=2x3"}), 0, "y  float32[2,3]");
  EXPECT_EXIT_WITH(Vtensor({"run", m, "--input-shape", "x=2x4"}), 2,
                   "--input-shape x: dim 1 is 4 but input 'x' is declared [batch,3]");
  EXPECT_EXIT_WITH(Vtensor({"run", m, "--input-shape", "x=2x3x1"}), 2, "rank 3");
  EXPECT_EXIT_WITH(Vtensor({"run", m, "--input-shape", "z=2x3"}), 2,
                   "--input-shape names 'z', which is not a model input (inputs: x)");
  EXPECT_EXIT_WITH(Vtensor({"run", m, "--input-shape", "x=2xq"}), 2, "dim 'q'");
  EXPECT_EXIT_WITH(Vtensor({"run", m, "--free-dim", "batch=-1"}), 2, "--free-dim 'batch=-1'");
}

TEST_F(Inputs, RandomInputsFollowTheSeed) {
  std::string m = WriteBatchModel();
  auto a = Vtensor({"run", m, "--free-dim", "batch=2", "--random-inputs", "--print"});
  auto b = Vtensor({"run", m, "--free-dim", "batch=2", "--random-inputs", "--print"});
  auto c = Vtensor({"run", m, "--free-dim", "batch=2", "--random-inputs", "--seed", "7", "--print"});
  EXPECT_EXIT_WITH(a, 0, "y  float32[2,3]");
  EXPECT_EQ(a.output, b.output);
  EXPECT_NE(a.output, c.output);
  EXPECT_EQ(a.output.find("[[1. 2. 3.]"), std::string::npos) << "inputs were zeros:\n" << a.output;
}

TEST_F(Inputs, NpyAndTensorProtoFiles) {
  std::string m = WriteBatchModel();
  std::string npy = WriteNpy("x.npy", "(2, 3)", {10, 20, 30, 40, 50, 60});
  auto r = Vtensor({"run", m, "--input", "x=" + npy, "--print"});
  EXPECT_EXIT_WITH(r, 0, "[[11. 22. 33.],\n [41. 52. 63.]]");
  WriteProto(Path("x.pb"), FloatTensor("x", {1, 3}, {0, 0, 1}));
  EXPECT_EXIT_WITH(Vtensor({"run", m, "--input", "x=" + Path("x.pb"), "--print"}), 0,
                   "[[1. 2. 4.]]");
  // A bad header names the file and the field; a wrong dtype names both types.
  std::string bad = WriteNpy("bad.npy", "(2, 4)", {10, 20, 30, 40, 50, 60});
  EXPECT_EXIT_WITH(Vtensor({"run", m, "--input", "x=" + bad}), 2, "bad.npy: .npy data size");
  std::string i4 = WriteNpy("i4.npy", "(2, 3)", {0, 0, 0, 0, 0, 0}, "<i4");
  EXPECT_EXIT_WITH(Vtensor({"run", m, "--input", "x=" + i4}), 2,
                   "i4.npy: holds int32 but input 'x' is float32");
  EXPECT_EXIT_WITH(Vtensor({"run", m, "--input", "y=" + npy}), 2, "not a model input");
  EXPECT_EXIT_WITH(Vtensor({"run", m, "--input", "x"}), 2, "expected NAME=FILE");
}

TEST_F(Inputs, SaveOutputsAsNpy) {
  std::string m = WriteBatchModel();
  EXPECT_EXIT_WITH(Vtensor({"run", m, "--free-dim", "batch=1", "--save-outputs", Path("out"),
                            "--save-format", "npy"}),
                   0, "y  float32[1,3]");
  const std::string bytes = ReadAll(Path("out/output_0.npy"));
  ASSERT_GE(bytes.size(), 64u + 12u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_NE(bytes.find("'descr': '<f4', 'fortran_order': False, 'shape': (1, 3)"),
            std::string::npos);
  float tail[3];
  std::memcpy(tail, bytes.data() + bytes.size() - 12, 12);
  EXPECT_EQ(tail[0], 1.f);
  EXPECT_EQ(tail[2], 3.f);
  EXPECT_EQ(Vtensor({"run", m, "--save-outputs", Path("o"), "--save-format", "csv"}).Describe(),
            "exit 2");
}

TEST_F(Inputs, BenchPrintsPercentiles) {
  std::string m = WriteBatchModel();
  auto r = Vtensor({"bench", m, "--free-dim", "batch=2", "--random-inputs", "--runs", "5"});
  for (const char* key : {"p50_ms:", "p90_ms:", "p99_ms:", "min_ms:", "mean_ms:", "median_ms:"})
    EXPECT_NE(r.output.find(key), std::string::npos) << "missing '" << key << "' in:\n" << r.output;
  EXPECT_EQ(r.Describe(), "exit 0") << r.output;
}

}  // namespace
}  // namespace vt::testing
