// vtensor-gemm-accuracy: float32 error of MatMul against float64 sums, vtensor next to ONNX
// Runtime on the same inputs (docs/accuracy.md). An accuracy benchmark, not a timed one.
//
// Cases: A [M, K] x B [K, N] with B a constant initializer (the runtime's prepacked-weight
// path), K = 256, 4096, 16384, M = 1 (decode tiles) and 64, N = 256; inputs uniform in [-1, 1)
// ("random") or in [0, 1) ("positive": no cancellation, the worst case for long sums). For each
// runtime the table gives, against Ref summed in float64:
//   bound  max |c - ref| / sum_k |a_k b_k|   (the error against what the sum's terms allow; for
//                                             positive inputs the largest relative error)
//   norm   ||C - Ref|| / ||Ref||              (Frobenius)
// The largest plain relative error |c - ref| / |ref| is left out: with random signs it is set
// by the few elements whose terms nearly cancel. "f32 in k order" is a plain float32 loop over
// k (one rounding per product and per sum), for scale.
//
// usage: vtensor-gemm-accuracy --write DIR    writes DIR/<case>/{model.onnx, input_0.pb}
//        vtensor-gemm-accuracy --report DIR   runs vtensor on each case and prints the table,
//                                             with a column for every DIR/<case>/<NAME>/
//                                             output_0.pb present (scripts/gemm_accuracy.sh
//                                             writes "ort", ONNX Runtime's outputs, and
//                                             "baseline", another vtensor build's)
// Exit status: 0 done, 2 usage or I/O error.
#include <dirent.h>
#include <onnx/onnx_pb.h>
#include <sys/stat.h>

#include <algorithm>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tools/test_data.h"
#include "vtensor/base/file.h"
#include "vtensor/runtime/session.h"

namespace {

struct Case {
  size_t m, k, n;
  bool positive;
  std::string Name() const {
    return "M" + std::to_string(m) + "_K" + std::to_string(k) + (positive ? "_positive" : "_random");
  }
};

std::vector<Case> Cases() {
  std::vector<Case> out;
  for (size_t k : {256, 4096, 16384})
    for (bool positive : {false, true})
      for (size_t m : {1, 64}) out.push_back({m, k, 256, positive});
  return out;
}

// A and B of a case, from a generator seeded by the case (the same on every run).
void Operands(const Case& c, std::vector<float>* a, std::vector<float>* b) {
  std::mt19937 g(static_cast<uint32_t>(c.k * 131 + c.m * 7 + (c.positive ? 1 : 0)));
  std::uniform_real_distribution<float> d(c.positive ? 0.0f : -1.0f, 1.0f);
  a->resize(c.m * c.k);
  b->resize(c.k * c.n);
  for (auto& x : *a) x = d(g);
  for (auto& x : *b) x = d(g);
}

onnx::TensorProto FloatTensor(const std::string& name, const std::vector<int64_t>& dims,
                              const std::vector<float>& v) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t.add_dims(d);
  t.set_raw_data(std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float)));
  return t;
}

void AddIO(onnx::ValueInfoProto* vi, const std::string& name, const std::vector<int64_t>& dims) {
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
}

int Write(const std::string& dir) {
  for (const Case& c : Cases()) {
    std::vector<float> a, b;
    Operands(c, &a, &b);
    const auto M = static_cast<int64_t>(c.m), K = static_cast<int64_t>(c.k),
               N = static_cast<int64_t>(c.n);
    onnx::ModelProto m;
    m.set_ir_version(8);
    m.set_producer_name("vtensor-gemm-accuracy");
    m.add_opset_import()->set_version(13);
    auto* g = m.mutable_graph();
    g->set_name("matmul");
    AddIO(g->add_input(), "a", {M, K});
    AddIO(g->add_output(), "c", {M, N});
    *g->add_initializer() = FloatTensor("b", {K, N}, b);
    auto* node = g->add_node();
    node->set_op_type("MatMul");
    node->add_input("a");
    node->add_input("b");
    node->add_output("c");
    const std::string cd = dir + "/" + c.Name();
    ::mkdir(dir.c_str(), 0755);
    ::mkdir(cd.c_str(), 0755);
    vt::Status st = vt::WriteFileAtomic(cd + "/model.onnx", m.SerializeAsString());
    if (st.ok())
      st = vt::WriteFileAtomic(cd + "/input_0.pb", FloatTensor("a", {M, K}, a).SerializeAsString());
    if (!st.ok()) {
      std::fprintf(stderr, "error: %s\n", st.message().c_str());
      return 2;
    }
  }
  return 0;
}

struct Error {
  double bound = 0, norm = 0;
};

// Errors of `got` [M, N] against the float64 sums `ref` and the sums of |terms| `mag`.
Error Measure(const float* got, const std::vector<double>& ref, const std::vector<double>& mag) {
  Error e;
  double num = 0, den = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    const double d = static_cast<double>(got[i]) - ref[i];
    if (mag[i] != 0) e.bound = std::max(e.bound, std::fabs(d) / mag[i]);
    num += d * d;
    den += ref[i] * ref[i];
  }
  e.norm = den > 0 ? std::sqrt(num / den) : 0;
  return e;
}

std::string Cell(const Error& e) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%9.2e %9.2e", e.bound, e.norm);
  return buf;
}

// The columns after vtensor's: the subdirectories of a case holding output_0.pb, sorted.
std::vector<std::string> OtherColumns(const std::string& case_dir) {
  std::vector<std::string> out;
  DIR* d = ::opendir(case_dir.c_str());
  if (d == nullptr) return out;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    struct stat st {};
    if (name[0] != '.' && ::stat((case_dir + "/" + name + "/output_0.pb").c_str(), &st) == 0)
      out.push_back(name);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

int Report(const std::string& dir) {
  const std::vector<Case> cases = Cases();
  const std::vector<std::string> others = OtherColumns(dir + "/" + cases[0].Name());
  std::printf("MatMul A[M,K] x B[K,N] (B a constant initializer), N = 256, one thread; errors "
              "against float64 sums, per runtime: max |c-ref| / sum|a*b|, then ||C-Ref|| / "
              "||Ref||\n\n");
  std::printf("%-22s %-20s", "case", "vtensor");
  for (const std::string& o : others) std::printf(" %-20s", o == "ort" ? "ONNX Runtime" : o.c_str());
  std::printf(" %-20s\n", "f32 in k order");
  for (const Case& c : cases) {
    std::vector<float> a, b;
    Operands(c, &a, &b);
    std::vector<double> ref(c.m * c.n, 0.0), mag(c.m * c.n, 0.0);
    std::vector<float> seq(c.m * c.n, 0.0f);
    for (size_t i = 0; i < c.m; ++i)
      for (size_t k = 0; k < c.k; ++k) {
        const float x = a[i * c.k + k];
        for (size_t j = 0; j < c.n; ++j) {
          const double t = static_cast<double>(x) * b[k * c.n + j];
          ref[i * c.n + j] += t;
          mag[i * c.n + j] += std::fabs(t);
          const float p = x * b[k * c.n + j];
          seq[i * c.n + j] = seq[i * c.n + j] + p;
        }
      }
    const std::string cd = dir + "/" + c.Name();
    auto s = vt::Session::Load(cd + "/model.onnx");
    if (!s.ok()) {
      std::fprintf(stderr, "error: %s\n", s.status().message().c_str());
      return 2;
    }
    auto in = vt::LoadInputs(**s, cd);
    if (!in.ok()) {
      std::fprintf(stderr, "error: %s\n", in.status().message().c_str());
      return 2;
    }
    auto out = (*s)->Run(*in);
    if (!out.ok()) {
      std::fprintf(stderr, "error: %s: %s\n", cd.c_str(), out.status().message().c_str());
      return 2;
    }
    std::printf("%-22s %s ", c.Name().c_str(),
                Cell(Measure((*out)[0].tensor().Contiguous().data<float>(), ref, mag)).c_str());
    for (const std::string& o : others) {
      auto v = vt::LoadExpectedOutputs(**s, cd + "/" + o);
      if (!v.ok() || v->empty() || !(*v)[0]) {
        std::fprintf(stderr, "error: %s/%s/output_0.pb: %s\n", cd.c_str(), o.c_str(),
                     v.ok() ? "missing" : v.status().message().c_str());
        return 2;
      }
      std::printf("%s ", Cell(Measure((*v)[0]->tensor().Contiguous().data<float>(), ref, mag)).c_str());
    }
    std::printf("%s\n", Cell(Measure(seq.data(), ref, mag)).c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--write") == 0) return Write(argv[2]);
  if (argc == 3 && std::strcmp(argv[1], "--report") == 0) return Report(argv[2]);
  std::fprintf(stderr, "usage: vtensor-gemm-accuracy --write DIR | --report DIR\n");
  return 2;
}
