// `vtensor bench-load MODEL [--reps N] [--threads T] [--ort PATH|none] [--processes N
// [--verify V]] [--json]`: how long a
// session takes to become ready with and without the compiled-tensor cache, against two floors
// measured in the same run, and against ONNX Runtime's session creation.
//
// Every measurement runs in its own fork()ed child (the parent never loads the model), so each
// starts with the same page-cache state (warm: the parent reads every file once first) and its
// own RSS; the child reports VmHWM / VmRSS from /proc/self/status once its work is done. Each
// repetition is a fresh child; the best (minimum) time is kept. Rows:
//   read     warm raw read of the cached source weights (pread of their file ranges, or a pass
//            over in-memory initializers): the floor for touching the weights at all
//   hash     the source digest (each entry's algorithm, vt::TensorDigest) of every cached source
//            initializer, once: what verify=always must at least do
//   no-cache Session::Load with compiled entries ignored (every weight packed at load); for a
//            profile other than exact also P/no-cache, the baseline of that profile's rows
//   P/V      Session::Load with the cache under profile P (each profile the file's entries
//            carry in metadata vt.profile) and verify policy V (always; memo-first, the first
//            process of a file identity, into a fresh private memo directory each; memo, after
//            one priming load into a private memo directory; never)
//   pack     per profile and weight form: the form's pack function timed alone on every weight
//            a no-cache session packs in that form (source and packed GB/s), its output pages
//            fresh as at load; and their floor, the first touch of as many fresh bytes
//   --processes N (instead of the rows): total proportional set size (Pss, smaps_rollup) of N
//            processes that each hold a session (compiled entries used in place, --verify V)
//            after one run on zero inputs, against one such process: mapped payloads are shared
//            through the page cache, so N processes should cost little more than one
//   ort      ONNX Runtime 1.30 session creation through its C API (vtensor-ort-bench --runs 0:
//            1 intra-op and 1 inter-op thread, all graph optimizations, CPU provider), each
//            repetition a fresh process; skipped with a note when the program is missing
//   --phases  after the rows, the time of each step of session creation (parse, import, each
//            pass, weight cache open, kernel preparation, ...) in the best repetition of each row
// Cache rows also print hits / entries and the HIT payload bytes ("packed bytes in use"), and
// VmHWM / packed bytes.
#include <fcntl.h>
#include <fmt/core.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <thread>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tools/commands.h"
#include "tools/load_phases.h"
#include "vtensor/base/file.h"
#include "vtensor/base/page_memory.h"
#include "vtensor/format/compiled_model.h"
#include "vtensor/graph/onnx_import.h"
#include "vtensor/graph/type_info.h"
#include "vtensor/format/tensor_digest.h"
#include "vtensor/forms/verify_memo.h"
#include "vtensor/forms/weight_form.h"
#include "vtensor/forms/weight_provider.h"
#include "vtensor/passes/constant_folding.h"
#include "vtensor/runtime/session.h"

namespace vt::cli {

namespace {

using Clock = std::chrono::steady_clock;
double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// What a measuring child sends back through its pipe (plain bytes).
struct ChildResult {
  double ms = 0;           // timed part
  int64_t hwm_kb = 0;      // VmHWM after the work
  int64_t rss_kb = 0;      // VmRSS after the work
  int64_t bytes = 0;       // read / hash rows: bytes processed
  int32_t entries = 0;     // session rows: compiled entries
  int32_t hits = 0;
  int32_t verified = 0;    // hits hashed in this load
  int32_t memo = 0;        // hits skipped thanks to the memo
  int64_t hit_bytes = 0;   // sum of HIT payload_bytes
  int64_t faults = 0;      // session rows: minor page faults of the loading thread
  // pack rows: one per weight form (type name), the forms' own pack functions timed alone
  struct PackStat {
    char form[64] = {};
    int32_t weights = 0;
    int64_t src_bytes = 0;  // source initializer bytes read
    int64_t out_bytes = 0;  // packed bytes written
    double ms = 0;
  };
  static constexpr int kMaxPackForms = 12;
  PackStat packs[kMaxPackForms];
  int32_t num_packs = 0;
  double fresh_ms = 0;      // first touch of fresh_bytes of AllocZeroedPages memory
  int64_t fresh_bytes = 0;
  PhaseTimes phases;        // session rows: Session::load_phases()
  int32_t ok = 0;
  char error[512] = {};
};

int64_t StatusKb(const char* key) {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  int64_t v = -1;
  const size_t n = std::strlen(key);
  while (std::fgets(line, sizeof line, f))
    if (std::strncmp(line, key, n) == 0 && line[n] == ':') {
      v = std::atoll(line + n + 1);
      break;
    }
  std::fclose(f);
  return v;
}

void SetError(ChildResult* r, const std::string& msg) {
  std::snprintf(r->error, sizeof r->error, "%s", msg.c_str());
  r->ok = 0;
}

// Runs `work` in a forked child and returns its result (ok = 0 with an error on failure).
ChildResult InChild(const std::function<void(ChildResult*)>& work) {
  ChildResult res;
  int fds[2];
  if (::pipe(fds) != 0) {
    SetError(&res, "pipe() failed");
    return res;
  }
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    SetError(&res, "fork() failed");
    return res;
  }
  if (pid == 0) {
    ::close(fds[0]);
    ChildResult r;
    r.ok = 1;
    try {
      work(&r);
    } catch (const std::exception& e) {
      SetError(&r, std::string("exception: ") + e.what());
    }
    if (r.ok) {
      r.hwm_kb = StatusKb("VmHWM");
      r.rss_kb = StatusKb("VmRSS");
    }
    const char* p = reinterpret_cast<const char*>(&r);
    size_t left = sizeof r;
    while (left > 0) {
      const ssize_t k = ::write(fds[1], p, left);
      if (k <= 0) break;
      p += k;
      left -= static_cast<size_t>(k);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  char* p = reinterpret_cast<char*>(&res);
  size_t got = 0;
  while (got < sizeof res) {
    const ssize_t k = ::read(fds[0], p + got, sizeof res - got);
    if (k <= 0) break;
    got += static_cast<size_t>(k);
  }
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (got != sizeof res) {
    res = ChildResult();
    SetError(&res, WIFSIGNALED(status)
                       ? "measuring child died of signal " + std::to_string(WTERMSIG(status))
                       : "measuring child exited without a result");
  }
  return res;
}

// Best of `reps` children (the one with the minimum time); the first failure aborts.
ChildResult Best(int reps, const std::function<void(ChildResult*)>& work) {
  ChildResult best;
  for (int i = 0; i < reps; ++i) {
    ChildResult r = InChild(work);
    if (!r.ok) return r;
    if (i == 0 || r.ms < best.ms) best = r;
  }
  return best;
}

// Reads every byte of `path` once (pread, 4 MiB buffer): warms the page cache.
Status ReadWholeFile(const std::string& path, uint64_t* bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return NotFound("cannot open '" + path + "'");
  std::vector<char> buf(4 << 20);
  uint64_t total = 0;
  for (;;) {
    const ssize_t k = ::read(fd, buf.data(), buf.size());
    if (k < 0) {
      ::close(fd);
      return IoError("read of '" + path + "' failed");
    }
    if (k == 0) break;
    total += static_cast<uint64_t>(k);
  }
  ::close(fd);
  if (bytes) *bytes += total;
  return Status::Ok();
}

// The cached source initializers: unique source names of entries for this host's kernel
// architecture, with their digest algorithm.
struct Plan {
  std::map<std::string, DigestAlgorithm> sources;
  std::set<std::string> profiles;  // vt.profile of the entries ("exact" when absent)
  std::set<std::string> files;     // model + payload files (for warming)
  int entries = 0;
  int native_entries = 0;
};

Expected<Plan> MakePlan(const std::string& model) {
  VT_ASSIGN_OR_RETURN(auto ext, ReadModelExtension(model));
  Plan p;
  p.files.insert(model);
  p.entries = ext->compiled_tensors_size();
  const std::string arch = IsaArchitecture(HostIsa());
  for (const auto& ct : ext->compiled_tensors()) {
    if (ct.device() < 0 || ct.device() >= ext->devices_size()) continue;
    if (ext->devices(ct.device()).architecture() != arch) continue;
    ++p.native_entries;
    auto algo = DigestAlgorithmFromName(ct.digest_algorithm());
    if (algo) p.sources.emplace(ct.source_name(), *algo);
    std::string profile = "exact";
    for (const auto& kv : ct.metadata_props())
      if (kv.key() == "vt.profile") profile = kv.value();
    p.profiles.insert(profile);
    if (ct.value().has_external() && !ct.value().external().location().empty())
      p.files.insert(JoinPath(DirName(model), ct.value().external().location()));
  }
  return p;
}

// The initializer `name` of the main graph (the one a compiled entry names), or null.
const Tensor* SourceTensor(const Model& m, const std::string& name) {
  auto it = m.graph->initializers.find(name);
  return it == m.graph->initializers.end() ? nullptr : &it->second;
}

// The model as a session sees its weights before kernels are built: imported, then constant
// subgraphs folded (Constant-node weights become initializers), untimed.
Expected<Model> LoadForFloors(const std::string& path) {
  ImportOptions io;
  io.infer_shapes = false;
  VT_ASSIGN_OR_RETURN(Model m, LoadModel(path, io));
  FoldStats stats;
  VT_RETURN_IF_ERROR(FoldConstants(*m.graph, m, FoldOptions{}, &stats));
  return m;
}

// (a) warm raw read of the cached sources' bytes.
void MeasureRead(const std::string& path, const Plan& plan, ChildResult* r) {
  auto m = LoadForFloors(path);
  if (!m.ok()) return SetError(r, m.status().message());
  struct Range {
    int fd = -1;
    off_t offset = 0;
    const uint8_t* mem = nullptr;
    size_t bytes = 0;
  };
  std::map<std::string, int> fds;
  std::vector<Range> ranges;
  for (const auto& [name, algo] : plan.sources) {
    const Tensor* t = SourceTensor(*m, name);
    if (!t || !t->storage()) continue;
    Range rg;
    rg.bytes = t->nbytes();
    const MappedFile* mf = t->storage()->mapped_file();
    if (mf) {
      auto [it, fresh] = fds.emplace(mf->path(), -1);
      if (fresh) it->second = ::open(mf->path().c_str(), O_RDONLY | O_CLOEXEC);
      if (it->second < 0) return SetError(r, "cannot open '" + mf->path() + "'");
      rg.fd = it->second;
      rg.offset = static_cast<const uint8_t*>(t->raw_data()) - mf->data();
    } else {
      rg.mem = static_cast<const uint8_t*>(t->raw_data());
    }
    ranges.push_back(rg);
  }
  std::vector<uint8_t> buf(1 << 20);
  uint64_t sum = 0, total = 0;
  const auto t0 = Clock::now();
  for (const Range& rg : ranges) {
    if (rg.fd >= 0) {
      size_t done = 0;
      while (done < rg.bytes) {
        const size_t want = std::min(buf.size(), rg.bytes - done);
        const ssize_t k = ::pread(rg.fd, buf.data(), want, rg.offset + static_cast<off_t>(done));
        if (k <= 0) return SetError(r, "pread failed");
        sum += buf[0];
        done += static_cast<size_t>(k);
      }
    } else {
      const size_t words = rg.bytes / 8;
      uint64_t s = 0;
      for (size_t i = 0; i < words; ++i) {
        uint64_t w;
        std::memcpy(&w, rg.mem + i * 8, 8);
        s += w;
      }
      sum += s;
    }
    total += rg.bytes;
  }
  r->ms = Ms(Clock::now() - t0);
  for (const auto& [p, fd] : fds) ::close(fd);
  r->bytes = static_cast<int64_t>(total);
  // Keeps the reads observable.
  if (sum == 0x5eed5eed5eed5eedull) std::fputc(' ', stderr);
}

// (b) source digest of every cached source initializer.
void MeasureHash(const std::string& path, const Plan& plan, ChildResult* r) {
  auto m = LoadForFloors(path);
  if (!m.ok()) return SetError(r, m.status().message());
  uint64_t total = 0;
  const auto t0 = Clock::now();
  for (const auto& [name, algo] : plan.sources) {
    const Tensor* t = SourceTensor(*m, name);
    if (!t) continue;
    auto d = TensorDigest(*t, algo);
    if (!d.ok()) return SetError(r, name + ": " + d.status().message());
    total += t->nbytes();
  }
  r->ms = Ms(Clock::now() - t0);
  r->bytes = static_cast<int64_t>(total);
}

// (c, d) Session::Load until it returns.
void MeasureSession(const std::string& path, const SessionOptions& so, ChildResult* r) {
  const int64_t faults0 = ThreadMinorFaults();
  const auto t0 = Clock::now();
  auto s = Session::Load(path, so);
  r->ms = Ms(Clock::now() - t0);
  r->faults = ThreadMinorFaults() - faults0;
  if (!s.ok()) return SetError(r, s.status().message());
  RecordPhases((*s)->load_phases(), &r->phases);
  for (const auto& e : (*s)->cache_report()) {
    ++r->entries;
    if (e.state != EntryState::kHit) continue;
    ++r->hits;
    r->verified += e.verified;
    r->memo += e.memo;
    r->hit_bytes += e.payload_bytes;
  }
}

// Packing speed per weight form: a session without the cache records each weight it packs
// and the form it chose (weight observer); then each weight is packed again with the form's
// own pack function, timed alone (its mapped source pages mapped in first, as the weight
// provider does), and the times are summed per form. `ms` is the sum over all forms.
void MeasurePacks(const std::string& path, const SessionOptions& so, ChildResult* r) {
  struct Packed {
    Tensor w;
    WeightForm form;
  };
  std::vector<Packed> seen;
  SessionOptions o = so;
  o.weight_observer = [&seen](const std::string&, const Tensor& w, const PreparedWeight& p) {
    if (!p.hit) seen.push_back({w, p.form});
  };
  auto s = Session::Load(path, o);
  if (!s.ok()) return SetError(r, s.status().message());
  for (const Packed& p : seen) {
    if (p.w.storage() && p.w.storage()->mapped_file())
      PrefaultMappedPages(p.w.raw_data(), p.w.nbytes());
    const auto t0 = Clock::now();
    auto packed = PackWeightForm(p.w, p.form);
    const double ms = Ms(Clock::now() - t0);
    if (!packed.ok()) return SetError(r, packed.status().message());
    int i = 0;
    while (i < r->num_packs && p.form.type_name != r->packs[i].form) ++i;
    if (i == ChildResult::kMaxPackForms) continue;
    ChildResult::PackStat& st = r->packs[i];
    if (i == r->num_packs) {
      std::snprintf(st.form, sizeof st.form, "%s", p.form.type_name.c_str());
      ++r->num_packs;
    }
    ++st.weights;
    st.src_bytes += static_cast<int64_t>(p.w.nbytes());
    st.out_bytes += static_cast<int64_t>(packed->size);
    st.ms += ms;
    r->ms += ms;
  }
  // The floor under every pack: first touch of as many fresh bytes as were packed (on a VM
  // whose host backs guest memory lazily this alone can run below 1 GB/s).
  int64_t out = 0;
  for (int i = 0; i < r->num_packs; ++i) out += r->packs[i].out_bytes;
  const auto t0 = Clock::now();
  void* fresh = AllocZeroedPages(static_cast<size_t>(out));
  if (fresh == nullptr) return SetError(r, "out of memory for the fresh-pages floor");
  for (int64_t b = 0; b < out; b += 4096) static_cast<volatile char*>(fresh)[b] = 1;
  r->fresh_ms = Ms(Clock::now() - t0);
  r->fresh_bytes = out;
  FreeZeroedPages(fresh, static_cast<size_t>(out));
}

std::string SelfDir() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  buf[n] = '\0';
  return DirName(buf);
}

// vtensor-ort-bench (bench/ort/, built by scripts/build_ort_bench.sh into the build directory):
// the --ort flag when it names a file, else the one next to this binary.
std::string FindOrtBench(const std::string& flag) {
  if (!flag.empty()) return flag;
  const std::string dir = SelfDir();
  return dir.empty() ? "" : JoinPath(dir, "vtensor-ort-bench");
}

std::string ShellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

struct OrtResult {
  bool ran = false;
  double ms = 0;
  int64_t hwm_kb = 0;
  std::string note;
};

// The value of the `key: value` line `key` in `out`, or NaN.
double KeyValue(const std::string& out, const std::string& key) {
  const std::string k = "\n" + key + ": ";
  const size_t at = ("\n" + out).find(k);
  if (at == std::string::npos) return std::nan("");
  return std::atof(out.c_str() + at + k.size() - 1);
}

// ONNX Runtime session creation, each repetition in a fresh vtensor-ort-bench process (as each
// vtensor row is a fresh child), best kept; VmHWM is that process's (ORT and the program only).
OrtResult MeasureOrt(const std::string& model, const std::string& flag, int reps) {
  OrtResult o;
  if (flag == "none") {
    o.note = "skipped (--ort none)";
    return o;
  }
  const std::string bin = FindOrtBench(flag);
  if (bin.empty() || ::access(bin.c_str(), X_OK) != 0) {
    o.note = "skipped: '" + bin + "' not found (scripts/build_ort_bench.sh builds it; or pass --ort PATH)";
    return o;
  }
  const std::string cmd = ShellQuote(bin) + " " + ShellQuote(model) + " --runs 0 2>&1";
  for (int i = 0; i < reps; ++i) {
    std::fflush(stdout);
    FILE* p = ::popen(cmd.c_str(), "r");
    if (!p) {
      o = OrtResult{false, 0, 0, "skipped: cannot start " + bin};
      return o;
    }
    std::string out;
    char buf[4096];
    size_t k;
    while ((k = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, k);
    const int rc = ::pclose(p);
    const double ms = KeyValue(out, "session_create_ms");
    if (rc != 0 || std::isnan(ms)) {
      while (!out.empty() && out.back() == '\n') out.pop_back();
      o = OrtResult{};
      o.note = "skipped: vtensor-ort-bench failed (exit " +
               std::to_string(WIFEXITED(rc) ? WEXITSTATUS(rc) : -1) +
               "): " + out.substr(out.size() > 300 ? out.size() - 300 : 0);
      return o;
    }
    if (!o.ran || ms < o.ms) {
      o.ms = ms;
      o.hwm_kb = static_cast<int64_t>(KeyValue(out, "vm_hwm_kb"));
    }
    o.ran = true;
  }
  return o;
}

double Ratio(double a, double b) { return b > 0 ? a / b : 0; }
double GBps(int64_t bytes, double ms) { return ms > 0 ? bytes / (ms * 1e6) : 0.0; }

// One measured session-ready configuration.
struct Row {
  std::string name;
  ChildResult r;
  double base_ms = 0;  // the no-cache load of the same profile
};

// Everything one bench-load run measured.
struct BenchLoadResults {
  uint64_t warm_bytes = 0;  // read once before measuring
  ChildResult read, hash, miss;
  std::vector<Row> rows;
  std::vector<std::pair<std::string, ChildResult>> packs;  // per profile: pack rows
  OrtResult ort;
};

// Reads every file the runs read (model, payloads, external data) once, in a child, so each
// measurement starts with a warm page cache. Returns the bytes read, or an error message.
Expected<uint64_t> WarmPageCache(const std::string& model, const Plan& plan) {
  ChildResult files = InChild([&](ChildResult* r) {
    auto m = LoadForFloors(model);
    if (!m.ok()) return SetError(r, m.status().message());
    std::set<std::string> all = plan.files;
    for (const auto& [n, t] : m->graph->initializers)
      if (t.storage() && t.storage()->mapped_file()) all.insert(t.storage()->mapped_file()->path());
    uint64_t b = 0;
    for (const auto& f : all)
      if (Status st = ReadWholeFile(f, &b); !st.ok()) return SetError(r, st.message());
    r->bytes = static_cast<int64_t>(b);
  });
  if (!files.ok) return IoError(files.error);
  return static_cast<uint64_t>(files.bytes);
}

// The memo is recorded only for files older than its racy margin (forms/verify_memo.h): a
// model compiled just before the benchmark is waited for, so that the memo rows measure a memo.
void WaitPastMemoRacyMargin(const std::string& model) {
  const MemoKey k = ComputeMemoKey({model, model + ".vtpack"}, "");
  const int64_t wait = k.newest_ns + kMemoRacyMarginNs + 100'000'000 - WallClockNs();
  if (wait > 0) std::this_thread::sleep_for(std::chrono::nanoseconds(wait));
}

// The cache rows of every profile the model holds entries for: a profile other than exact
// packs other forms on a miss (compact: int4 quantization with error-minimising scales), so its
// rows are compared with its own no-cache load. Returns 0, or 2 after printing the error.
int MeasureProfiles(const BenchLoadArgs& a, const Plan& plan, const SessionOptions& nocache,
                    BenchLoadResults* res) {
  auto fail = [](const std::string& what, const ChildResult& r) {
    fmt::print(stderr, "error: {}: {}\n", what, r.error);
    return 2;
  };
  // A private memo directory, removed at the end.
  std::string memo_dir = (std::filesystem::temp_directory_path() / "vt_bench_memo_XXXXXX").string();
  if (::mkdtemp(memo_dir.data()) == nullptr) {
    fmt::print(stderr, "error: cannot create a temp memo directory\n");
    return 2;
  }
  int rc = 0;
  for (const std::string& pname : plan.profiles) {
    auto profile = WeightProfileFromName(pname);
    if (!profile) {
      fmt::print(stderr, "note: entries with unknown vt.profile '{}' skipped\n", pname);
      continue;
    }
    double base_ms = res->miss.ms;
    if (*profile != WeightProfile::kExact) {
      SessionOptions so = nocache;
      so.profile = *profile;
      ChildResult r = Best(a.reps, [&](ChildResult* c) { MeasureSession(a.model, so, c); });
      if (!r.ok) { rc = fail(pname + " no-cache", r); break; }
      base_ms = r.ms;
      res->rows.push_back({pname + "/no-cache", r, base_ms});
    }
    {
      SessionOptions so = nocache;
      so.profile = *profile;
      ChildResult r = Best(a.reps, [&](ChildResult* c) { MeasurePacks(a.model, so, c); });
      if (!r.ok) { rc = fail(pname + " pack", r); break; }
      res->packs.push_back({pname, r});
    }
    for (VerifyPolicy v : {VerifyPolicy::kAlways, VerifyPolicy::kMemo, VerifyPolicy::kNever}) {
      SessionOptions so = nocache;
      so.cache.enabled = true;
      so.profile = *profile;
      so.cache.verify = v;
      so.cache.memo_dir = memo_dir;
      if (v == VerifyPolicy::kMemo) {
        // The first process of a file identity (verifies and records; a fresh memo
        // directory per repetition), then later processes (after one priming load).
        WaitPastMemoRacyMargin(a.model);
        ChildResult f;
        for (int rep = 0; rep < a.reps && (rep == 0 || f.ok); ++rep) {
          SessionOptions first = so;
          first.cache.memo_dir = memo_dir + "/first" + std::to_string(rep);
          ChildResult r = InChild([&](ChildResult* c) { MeasureSession(a.model, first, c); });
          if (rep == 0 || !r.ok || r.ms < f.ms) f = r;
        }
        if (!f.ok) { rc = fail(pname + " memo first", f); break; }
        res->rows.push_back({pname + "/memo-first", f, base_ms});
        ChildResult prime = InChild([&](ChildResult* r) { MeasureSession(a.model, so, r); });
        if (!prime.ok) { rc = fail("memo priming load", prime); break; }
      }
      ChildResult r = Best(a.reps, [&](ChildResult* c) { MeasureSession(a.model, so, c); });
      if (!r.ok) { rc = fail(pname + " " + VerifyPolicyName(v), r); break; }
      res->rows.push_back({pname + "/" + VerifyPolicyName(v), r, base_ms});
    }
    if (rc) break;
  }
  std::filesystem::remove_all(memo_dir);
  return rc;
}

void PrintJson(const BenchLoadArgs& a, const Plan& plan, const BenchLoadResults& res) {
  const ChildResult &read = res.read, &hash = res.hash;
  nlohmann::json j;
  j["model"] = a.model;
  j["reps"] = a.reps;
  j["architecture"] = IsaArchitecture(HostIsa());
  j["warm_bytes"] = res.warm_bytes;
  j["read"] = {{"ms", read.ms}, {"bytes", read.bytes}, {"gb_per_s", GBps(read.bytes, read.ms)}};
  j["hash"] = {{"ms", hash.ms}, {"bytes", hash.bytes}, {"gb_per_s", GBps(hash.bytes, hash.ms)},
               {"sources", plan.sources.size()}};
  nlohmann::json loads = nlohmann::json::array();
  for (const Row& row : res.rows) {
    const double hwm_vs_hit =
        row.r.hit_bytes > 0 ? Ratio(row.r.hwm_kb * 1024.0, static_cast<double>(row.r.hit_bytes))
                            : 0.0;
    loads.push_back({{"name", row.name}, {"ms", row.r.ms}, {"entries", row.r.entries},
                     {"hits", row.r.hits}, {"verified", row.r.verified}, {"memo", row.r.memo},
                     {"hit_bytes", row.r.hit_bytes}, {"faults", row.r.faults},
                     {"vm_hwm_kb", row.r.hwm_kb},
                     {"vm_rss_kb", row.r.rss_kb},
                     {"vs_no_cache", Ratio(row.r.ms, row.base_ms)},
                     {"vs_hash", Ratio(row.r.ms, hash.ms)},
                     {"hwm_vs_hit_bytes", hwm_vs_hit}});
    if (a.phases) {
      nlohmann::json ph = nlohmann::json::array();
      for (int i = 0; i < row.r.phases.count; ++i)
        ph.push_back({{"name", row.r.phases.phases[i].name},
                      {"ms", row.r.phases.phases[i].ms},
                      {"faults", row.r.phases.phases[i].faults}});
      loads.back()["phases"] = ph;
    }
  }
  j["loads"] = loads;
  nlohmann::json packs = nlohmann::json::array();
  for (const auto& [profile, r] : res.packs)
    for (int i = 0; i < r.num_packs; ++i) {
      const ChildResult::PackStat& st = r.packs[i];
      packs.push_back({{"profile", profile}, {"form", st.form}, {"weights", st.weights},
                       {"source_bytes", st.src_bytes}, {"packed_bytes", st.out_bytes},
                       {"ms", st.ms}, {"source_gb_per_s", GBps(st.src_bytes, st.ms)},
                       {"packed_gb_per_s", GBps(st.out_bytes, st.ms)}});
    }
  j["packs"] = packs;
  nlohmann::json fresh = nlohmann::json::array();
  for (const auto& [profile, r] : res.packs)
    fresh.push_back({{"profile", profile}, {"bytes", r.fresh_bytes}, {"ms", r.fresh_ms},
                     {"gb_per_s", GBps(r.fresh_bytes, r.fresh_ms)}});
  j["fresh_pages"] = fresh;
  j["threads"] = a.threads;
  if (res.ort.ran)
    j["ort"] = {{"ms", res.ort.ms}, {"vm_hwm_kb", res.ort.hwm_kb},
                {"vs_no_cache", Ratio(res.ort.ms, res.miss.ms)},
                {"vs_hash", Ratio(res.ort.ms, hash.ms)}};
  else
    j["ort"] = {{"skipped", res.ort.note}};
  fmt::print("{}\n", j.dump(2));
}

void PrintTable(const BenchLoadArgs& a, const Plan& plan, const BenchLoadResults& res) {
  const ChildResult &read = res.read, &hash = res.hash, &miss = res.miss;
  fmt::print("model: {}\narchitecture: {}   reps: {} (best of, each in a fresh process; page cache "
             "warm: {:.1f} MiB read first)\n",
             a.model, IsaArchitecture(HostIsa()), a.reps, res.warm_bytes / 1048576.0);
  fmt::print("cached sources: {} initializers, {:.1f} MiB\n\n", plan.sources.size(),
             hash.bytes / 1048576.0);
  fmt::print("{:<16} {:>10} {:>9} {:>9} {:>10}  {}\n", "", "ms", "/no-cache", "/hash", "GB/s", "");
  fmt::print("{:<16} {:>10.2f} {:>9.3f} {:>9.3f} {:>10.2f}  warm pread of the source weights\n",
             "read (floor)", read.ms, Ratio(read.ms, miss.ms), Ratio(read.ms, hash.ms),
             GBps(read.bytes, read.ms));
  fmt::print("{:<16} {:>10.2f} {:>9.3f} {:>9.3f} {:>10.2f}  source digest of every cached "
             "initializer, once\n",
             "hash", hash.ms, Ratio(hash.ms, miss.ms), 1.0, GBps(hash.bytes, hash.ms));
  fmt::print("\n{:<16} {:>10} {:>9} {:>9} {:>8} {:>12} {:>10} {:>10} {:>11} {:>9}\n",
             "session-ready", "ms", "/no-cache", "/hash", "faults", "hits", "verified",
             "VmHWM MiB", "packed MiB", "HWM/pack");
  for (const Row& row : res.rows) {
    const ChildResult& r = row.r;
    const std::string hits = fmt::format("{}/{}", r.hits, r.entries);
    const std::string ver = r.hits == 0 ? "-" : r.memo ? fmt::format("memo {}", r.memo)
                                                        : fmt::format("{}", r.verified);
    fmt::print("{:<16} {:>10.2f} {:>9.3f} {:>9.3f} {:>8} {:>12} {:>10} {:>10.1f} {:>11.1f} {:>9}\n",
               row.name, r.ms, Ratio(r.ms, row.base_ms), Ratio(r.ms, hash.ms), r.faults, hits, ver,
               r.hwm_kb / 1024.0, r.hit_bytes / 1048576.0,
               r.hit_bytes > 0 ? fmt::format("{:.2f}", r.hwm_kb * 1024.0 / r.hit_bytes) : "-");
  }
  const OrtResult& ort = res.ort;
  if (ort.ran)
    fmt::print("{:<16} {:>10.2f} {:>9.3f} {:>9.3f} {:>8} {:>12} {:>10} {:>10.1f}\n", "ort 1.30",
               ort.ms, Ratio(ort.ms, miss.ms), Ratio(ort.ms, hash.ms), "-", "-", "-",
               ort.hwm_kb / 1024.0);
  else
    fmt::print("ort 1.30: {}\n", ort.note);
  if (!res.packs.empty()) {
    fmt::print("\n{:<40} {:>7} {:>10} {:>10} {:>10} {:>10}\n",
               fmt::format("packing ({} thread{})", a.threads, a.threads == 1 ? "" : "s"),
               "weights", "src MiB", "ms", "src GB/s", "out GB/s");
    for (const auto& [profile, r] : res.packs)
      for (int i = 0; i < r.num_packs; ++i) {
        const ChildResult::PackStat& st = r.packs[i];
        fmt::print("{:<40} {:>7} {:>10.1f} {:>10.2f} {:>10.2f} {:>10.2f}\n",
                   profile + "/" + st.form, st.weights, st.src_bytes / 1048576.0, st.ms,
                   GBps(st.src_bytes, st.ms), GBps(st.out_bytes, st.ms));
      }
    for (const auto& [profile, r] : res.packs)
      fmt::print("{:<40} {:>7} {:>10} {:>10.2f} {:>10} {:>10.2f}\n",
                 profile + "/fresh pages (floor)", "-", "-", r.fresh_ms, "-",
                 GBps(r.fresh_bytes, r.fresh_ms));
  }
  if (a.phases) {
    std::vector<std::pair<std::string, PhaseTimes>> cols;
    for (const Row& row : res.rows) cols.push_back({row.name, row.r.phases});
    fmt::print("\nphases of the best repetition of each row (Session::load_phases):\n{}",
               PhaseTable(cols));
  }
  fmt::print("\nVmHWM/VmRSS are read in the measuring process right after Session::Load returns "
             "(VmRSS: see --json). Mapped payloads count only once touched: under memo/never they "
             "are first touched by the first run.\n");
}

// Zero inputs for every graph input (static dims as declared, symbolic dims 1), or an error
// naming the input that is not a tensor of known rank.
Expected<std::vector<Value>> ZeroInputs(const Session& s, const std::string& model) {
  std::vector<Value> in;
  for (const GraphIO* io : s.inputs()) {
    const TypeInfo& t = io->spec.type();
    if (t.kind != TypeInfo::Kind::kTensor || !t.shape || t.elem == DType::kUndefined)
      return InvalidArgument(model + ": input '" + io->name +
                             "' is not a tensor of known rank and type; --processes needs one");
    Shape shape;
    for (const Dim& d : *t.shape) shape.push_back(d.known() ? d.value : 1);
    in.emplace_back(Tensor::Zeros(t.elem, shape));
  }
  return in;
}

// Proportional set size and RSS of process `pid` in KiB (/proc/PID/smaps_rollup), or -1.
std::pair<int64_t, int64_t> PssRssKb(pid_t pid) {
  FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/smaps_rollup").c_str(), "r");
  if (!f) return {-1, -1};
  char line[256];
  int64_t pss = -1, rss = -1;
  while (std::fgets(line, sizeof line, f)) {
    if (std::strncmp(line, "Pss:", 4) == 0) pss = std::atoll(line + 4);
    else if (std::strncmp(line, "Rss:", 4) == 0) rss = std::atoll(line + 4);
  }
  std::fclose(f);
  return {pss, rss};
}

struct SharedResult {
  int64_t pss_kb = 0;  // sum over the processes
  int64_t rss_kb = 0;
  std::string error;
};

// `n` fork()ed processes each load a session with `so` and run it once on zero inputs (every
// weight page touched), then wait while the parent reads their Pss; then they exit.
SharedResult MeasureShared(const std::string& model, const SessionOptions& so, int n) {
  SharedResult res;
  int ready[2], hold[2];
  if (::pipe(ready) != 0 || ::pipe(hold) != 0) return {0, 0, "pipe() failed"};
  std::fflush(stdout);
  std::fflush(stderr);
  std::vector<pid_t> pids;
  for (int i = 0; i < n; ++i) {
    const pid_t pid = ::fork();
    if (pid < 0) break;
    if (pid == 0) {
      ::close(ready[0]);
      ::close(hold[1]);
      char ok = '0';
      auto s = Session::Load(model, so);
      if (s.ok()) {
        auto in = ZeroInputs(**s, model);
        if (in.ok() && (*s)->Run(*in).ok()) ok = '1';
      }
      (void)!::write(ready[1], &ok, 1);
      char c;
      (void)!::read(hold[0], &c, 1);  // returns when the parent closes its end
      ::_exit(0);
    }
    pids.push_back(pid);
  }
  ::close(ready[1]);
  ::close(hold[0]);
  int ok = 0;
  for (size_t i = 0; i < pids.size(); ++i) {
    char c = '0';
    if (::read(ready[0], &c, 1) == 1 && c == '1') ++ok;
  }
  if (ok != n || static_cast<int>(pids.size()) != n)
    res.error = "only " + std::to_string(ok) + " of " + std::to_string(n) +
                " processes loaded and ran the model (run it with `vtensor run` to see why)";
  for (pid_t pid : pids) {
    const auto [pss, rss] = PssRssKb(pid);
    res.pss_kb += pss;
    res.rss_kb += rss;
  }
  ::close(hold[1]);
  ::close(ready[0]);
  for (pid_t pid : pids) ::waitpid(pid, nullptr, 0);
  return res;
}

// --processes N: total Pss of N processes serving the model against one process's.
int SharedPagesCommand(const BenchLoadArgs& a) {
  SessionOptions so;
  so.threads = a.threads;
  auto policy = VerifyPolicyFromName(a.verify);
  if (!policy) {
    fmt::print(stderr, "error: --verify '{}': expected always, memo or never\n", a.verify);
    return 2;
  }
  so.cache.verify = *policy;
  SharedResult one = MeasureShared(a.model, so, 1);
  if (!one.error.empty()) return fmt::print(stderr, "error: {}\n", one.error), 2;
  SharedResult many = MeasureShared(a.model, so, a.processes);
  if (!many.error.empty()) return fmt::print(stderr, "error: {}\n", many.error), 2;
  const double ratio = Ratio(static_cast<double>(many.pss_kb), static_cast<double>(one.pss_kb));
  if (a.json) {
    nlohmann::json j = {{"model", a.model}, {"verify", a.verify}, {"processes", a.processes},
                        {"one", {{"pss_kb", one.pss_kb}, {"rss_kb", one.rss_kb}}},
                        {"all", {{"pss_kb", many.pss_kb}, {"rss_kb", many.rss_kb}}},
                        {"pss_vs_one", ratio}};
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  fmt::print("model: {}   verify: {}   each process: Session::Load + one run on zero inputs\n",
             a.model, a.verify);
  fmt::print("{:<14} {:>12} {:>12} {:>10}\n", "processes", "PSS MiB", "RSS MiB", "PSS / one");
  fmt::print("{:<14} {:>12.1f} {:>12.1f} {:>10.2f}\n", 1, one.pss_kb / 1024.0,
             one.rss_kb / 1024.0, 1.0);
  fmt::print("{:<14} {:>12.1f} {:>12.1f} {:>10.2f}\n", a.processes, many.pss_kb / 1024.0,
             many.rss_kb / 1024.0, ratio);
  return 0;
}

}  // namespace

int BenchLoadCommand(const BenchLoadArgs& a) {
  if (a.processes > 0) return SharedPagesCommand(a);
  if (a.reps < 1) {
    fmt::print(stderr, "error: --reps must be >= 1\n");
    return 2;
  }
  auto plan = MakePlan(a.model);
  if (!plan.ok()) {
    fmt::print(stderr, "error: {}\n", plan.status().message());
    return 2;
  }
  if (plan->native_entries == 0) {
    fmt::print(stderr,
               "error: {} has no compiled tensors for this machine ({}; {} entries in all); "
               "run `vtensor compile {} -o OUT` first\n",
               a.model, IsaArchitecture(HostIsa()), plan->entries, a.model);
    return 2;
  }
  BenchLoadResults res;
  auto warm = WarmPageCache(a.model, *plan);
  if (!warm.ok()) {
    fmt::print(stderr, "error: {}\n", warm.status().original_message());
    return 2;
  }
  res.warm_bytes = *warm;
  auto fail = [](const std::string& what, const ChildResult& r) {
    fmt::print(stderr, "error: {}: {}\n", what, r.error);
    return 2;
  };
  res.read = Best(a.reps, [&](ChildResult* r) { MeasureRead(a.model, *plan, r); });
  if (!res.read.ok) return fail("read", res.read);
  res.hash = Best(a.reps, [&](ChildResult* r) { MeasureHash(a.model, *plan, r); });
  if (!res.hash.ok) return fail("hash", res.hash);
  SessionOptions nocache;
  nocache.threads = a.threads;
  nocache.cache.enabled = false;
  nocache.cache_warning = nullptr;  // the rows report hits themselves
  res.miss = Best(a.reps, [&](ChildResult* r) { MeasureSession(a.model, nocache, r); });
  if (!res.miss.ok) return fail("no-cache load", res.miss);
  res.rows.push_back({"no-cache", res.miss, res.miss.ms});
  if (int rc = MeasureProfiles(a, *plan, nocache, &res); rc != 0) return rc;
  res.ort = MeasureOrt(a.model, a.ort, a.reps);
  if (a.json) PrintJson(a, *plan, res);
  else PrintTable(a, *plan, res);
  return 0;
}

}  // namespace vt::cli
