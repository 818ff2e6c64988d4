// VtSessionOptions and VtSession (include/vtensor/vtensor_c.h).
//
// A VtSession* is a key, never dereferenced: a number drawn from a counter that never repeats,
// looked up in a registry of live sessions. A released (or made-up) handle is therefore an
// error status, not a use of freed memory, and a run in flight holds its session through a
// shared_ptr, so a concurrent release frees it only when that run returns.
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "api/c/c_status.h"
#include "api/c/c_value.h"
#include "vtensor/forms/miss_reason.h"
#include "vtensor/runtime/session.h"

struct VtSessionOptions {
  vt::SessionOptions options;
};

namespace vt::capi {
namespace {

struct LiveSession {
  std::unique_ptr<const Session> session;
  std::vector<const GraphIO*> inputs;  // Session::inputs(), computed once
};

class Registry {
 public:
  static Registry& Get() {
    static Registry* r = new Registry();  // never destroyed: handles may outlive static exit
    return *r;
  }
  VtSession* Add(std::shared_ptr<const LiveSession> s) {
    std::lock_guard<std::mutex> lock(mu_);
    const uint64_t id = ++last_;
    live_.emplace(id, std::move(s));
    return reinterpret_cast<VtSession*>(static_cast<uintptr_t>(id << 4));
  }
  std::shared_ptr<const LiveSession> Find(const VtSession* h) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = live_.find(Key(h));
    return it == live_.end() ? nullptr : it->second;
  }
  // The entry removed (destroyed by the caller outside the lock), or null.
  std::shared_ptr<const LiveSession> Remove(const VtSession* h) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = live_.find(Key(h));
    if (it == live_.end()) return nullptr;
    auto s = std::move(it->second);
    live_.erase(it);
    return s;
  }
  bool Issued(const VtSession* h) {
    std::lock_guard<std::mutex> lock(mu_);
    const uint64_t k = Key(h);
    return k != 0 && k <= last_ && (reinterpret_cast<uintptr_t>(h) & 15) == 0;
  }

 private:
  static uint64_t Key(const VtSession* h) { return reinterpret_cast<uintptr_t>(h) >> 4; }
  std::mutex mu_;
  uint64_t last_ = 0;
  std::unordered_map<uint64_t, std::shared_ptr<const LiveSession>> live_;
};

// The live session behind `h`, or a status naming `fn` and the cause.
VtStatus* Lookup(const char* fn, const VtSession* h, std::shared_ptr<const LiveSession>* out) {
  if (h == nullptr) return Invalid(fn, "session is NULL");
  *out = Registry::Get().Find(h);
  if (*out) return nullptr;
  if (Registry::Get().Issued(h)) return Invalid(fn, "session was released");
  return Invalid(fn, "session is not a handle made by VtSessionCreate");
}

VtStatus* Register(const char* fn, Expected<std::unique_ptr<Session>> s, VtSession** out) {
  if (!s.ok()) return FromStatus(fn, s.status());
  auto live = std::make_shared<LiveSession>();
  live->inputs = (*s)->inputs();
  live->session = std::move(s).value();
  *out = Registry::Get().Add(std::move(live));
  return nullptr;
}

// Input (`output` false) or output `index` of `s`.
VtStatus* Io(const char* fn, const LiveSession& s, bool output, size_t index,
             const GraphIO** io) {
  const size_t n = output ? s.session->outputs().size() : s.inputs.size();
  if (index >= n)
    return MakeStatus(VT_OUT_OF_RANGE, std::string(fn) + ": index " + std::to_string(index) +
                                           " >= " + std::to_string(n) +
                                           (output ? " outputs" : " inputs"));
  *io = output ? &s.session->outputs()[index] : s.inputs[index];
  return nullptr;
}

VtStatus* Count(const char* fn, const VtSession* session, bool output, size_t* count) {
  return Guard(fn, [&]() -> VtStatus* {
    if (count == nullptr) return Invalid(fn, "count is NULL");
    std::shared_ptr<const LiveSession> s;
    if (VtStatus* st = Lookup(fn, session, &s)) return st;
    *count = output ? s->session->outputs().size() : s->inputs.size();
    return nullptr;
  });
}

VtStatus* Name(const char* fn, const VtSession* session, bool output, size_t index,
               const char** name) {
  return Guard(fn, [&]() -> VtStatus* {
    if (name == nullptr) return Invalid(fn, "name is NULL");
    std::shared_ptr<const LiveSession> s;
    if (VtStatus* st = Lookup(fn, session, &s)) return st;
    const GraphIO* io = nullptr;
    if (VtStatus* st = Io(fn, *s, output, index, &io)) return st;
    *name = io->name.c_str();
    return nullptr;
  });
}

VtStatus* Type(const char* fn, const VtSession* session, bool output, size_t index,
               VtDType* dtype, int64_t* rank) {
  return Guard(fn, [&]() -> VtStatus* {
    if (dtype == nullptr) return Invalid(fn, "dtype is NULL");
    if (rank == nullptr) return Invalid(fn, "rank is NULL");
    std::shared_ptr<const LiveSession> s;
    if (VtStatus* st = Lookup(fn, session, &s)) return st;
    const GraphIO* io = nullptr;
    if (VtStatus* st = Io(fn, *s, output, index, &io)) return st;
    const TypeInfo& t = io->spec.type();
    const bool tensor = t.kind == TypeInfo::Kind::kTensor;
    *dtype = tensor ? static_cast<VtDType>(t.elem) : VT_UNDEFINED;
    *rank = tensor && t.shape ? static_cast<int64_t>(t.shape->size()) : -1;
    return nullptr;
  });
}

VtStatus* Dim(const char* fn, const VtSession* session, bool output, size_t index,
              int64_t axis, int64_t* size, const char** symbol) {
  return Guard(fn, [&]() -> VtStatus* {
    if (size == nullptr) return Invalid(fn, "size is NULL");
    std::shared_ptr<const LiveSession> s;
    if (VtStatus* st = Lookup(fn, session, &s)) return st;
    const GraphIO* io = nullptr;
    if (VtStatus* st = Io(fn, *s, output, index, &io)) return st;
    const TypeInfo& t = io->spec.type();
    const int64_t rank =
        t.kind == TypeInfo::Kind::kTensor && t.shape ? static_cast<int64_t>(t.shape->size()) : -1;
    if (axis < 0 || axis >= rank)
      return MakeStatus(VT_OUT_OF_RANGE,
                        std::string(fn) + ": axis " + std::to_string(axis) + " of '" + io->name +
                            "' outside its declared rank " +
                            (rank < 0 ? std::string("(no declared shape)") : std::to_string(rank)));
    const vt::Dim& d = (*t.shape)[static_cast<size_t>(axis)];
    *size = d.known() ? d.value : -1;
    if (symbol != nullptr) *symbol = d.param.c_str();
    return nullptr;
  });
}

}  // namespace
}  // namespace vt::capi

using vt::capi::Guard;
using vt::capi::Invalid;
using vt::capi::LiveSession;

extern "C" {

VtStatus* VtSessionOptionsCreate(VtSessionOptions** out) {
  return Guard("VtSessionOptionsCreate", [&]() -> VtStatus* {
    if (out == nullptr) return Invalid("VtSessionOptionsCreate", "out is NULL");
    *out = new VtSessionOptions();
    return nullptr;
  });
}

void VtSessionOptionsRelease(VtSessionOptions* options) { delete options; }

VtStatus* VtSessionOptionsSetThreads(VtSessionOptions* options, int threads) {
  constexpr const char* fn = "VtSessionOptionsSetThreads";
  return Guard(fn, [&]() -> VtStatus* {
    if (options == nullptr) return Invalid(fn, "options is NULL");
    if (threads < 1) return Invalid(fn, "threads must be >= 1, got " + std::to_string(threads));
    options->options.threads = threads;
    return nullptr;
  });
}

VtStatus* VtSessionOptionsSetProfile(VtSessionOptions* options, VtWeightProfile profile) {
  constexpr const char* fn = "VtSessionOptionsSetProfile";
  return Guard(fn, [&]() -> VtStatus* {
    if (options == nullptr) return Invalid(fn, "options is NULL");
    if (profile == VT_PROFILE_EXACT) options->options.profile = vt::WeightProfile::kExact;
    else if (profile == VT_PROFILE_COMPACT) options->options.profile = vt::WeightProfile::kCompact;
    else return Invalid(fn, "unknown profile " + std::to_string(static_cast<int>(profile)));
    return nullptr;
  });
}

VtStatus* VtSessionOptionsSetVerify(VtSessionOptions* options, VtVerifyPolicy verify) {
  constexpr const char* fn = "VtSessionOptionsSetVerify";
  return Guard(fn, [&]() -> VtStatus* {
    if (options == nullptr) return Invalid(fn, "options is NULL");
    vt::VerifyPolicy& v = options->options.cache.verify;
    if (verify == VT_VERIFY_ALWAYS) v = vt::VerifyPolicy::kAlways;
    else if (verify == VT_VERIFY_MEMO) v = vt::VerifyPolicy::kMemo;
    else if (verify == VT_VERIFY_NEVER) v = vt::VerifyPolicy::kNever;
    else return Invalid(fn, "unknown verify policy " + std::to_string(static_cast<int>(verify)));
    return nullptr;
  });
}

VtStatus* VtSessionOptionsSetCache(VtSessionOptions* options, int enabled) {
  constexpr const char* fn = "VtSessionOptionsSetCache";
  return Guard(fn, [&]() -> VtStatus* {
    if (options == nullptr) return Invalid(fn, "options is NULL");
    options->options.cache.enabled = enabled != 0;
    return nullptr;
  });
}

VtStatus* VtSessionOptionsSetCacheWarning(VtSessionOptions* options, int enabled) {
  constexpr const char* fn = "VtSessionOptionsSetCacheWarning";
  return Guard(fn, [&]() -> VtStatus* {
    if (options == nullptr) return Invalid(fn, "options is NULL");
    options->options.cache_warning =
        enabled != 0 ? std::function<void(const std::string&)>(vt::WriteCacheWarningToStderr)
                     : nullptr;
    return nullptr;
  });
}

VtStatus* VtSessionCreate(const char* path, const VtSessionOptions* options, VtSession** out) {
  constexpr const char* fn = "VtSessionCreate";
  return Guard(fn, [&]() -> VtStatus* {
    if (out == nullptr) return Invalid(fn, "out is NULL");
    *out = nullptr;
    if (path == nullptr) return Invalid(fn, "path is NULL");
    const vt::SessionOptions opts = options ? options->options : vt::SessionOptions();
    return vt::capi::Register(fn, vt::Session::Load(path, opts), out);
  });
}

VtStatus* VtSessionCreateFromBytes(const void* data, size_t size, const char* base_dir,
                                   const VtSessionOptions* options, VtSession** out) {
  constexpr const char* fn = "VtSessionCreateFromBytes";
  return Guard(fn, [&]() -> VtStatus* {
    if (out == nullptr) return Invalid(fn, "out is NULL");
    *out = nullptr;
    if (data == nullptr) return Invalid(fn, "data is NULL");
    const vt::SessionOptions opts = options ? options->options : vt::SessionOptions();
    return vt::capi::Register(
        fn, vt::Session::LoadFromBytes(data, size, base_dir ? base_dir : "", opts), out);
  });
}

void VtSessionRelease(VtSession* session) {
  if (session == nullptr) return;
  try {
    std::shared_ptr<const LiveSession> s = vt::capi::Registry::Get().Remove(session);
    s.reset();  // the session itself, unless a run in flight still holds it
  } catch (...) {
  }
}

VtStatus* VtSessionInputCount(const VtSession* session, size_t* count) {
  return vt::capi::Count("VtSessionInputCount", session, false, count);
}
VtStatus* VtSessionOutputCount(const VtSession* session, size_t* count) {
  return vt::capi::Count("VtSessionOutputCount", session, true, count);
}
VtStatus* VtSessionInputName(const VtSession* session, size_t index, const char** name) {
  return vt::capi::Name("VtSessionInputName", session, false, index, name);
}
VtStatus* VtSessionOutputName(const VtSession* session, size_t index, const char** name) {
  return vt::capi::Name("VtSessionOutputName", session, true, index, name);
}
VtStatus* VtSessionInputType(const VtSession* session, size_t index, VtDType* dtype,
                             int64_t* rank) {
  return vt::capi::Type("VtSessionInputType", session, false, index, dtype, rank);
}
VtStatus* VtSessionOutputType(const VtSession* session, size_t index, VtDType* dtype,
                              int64_t* rank) {
  return vt::capi::Type("VtSessionOutputType", session, true, index, dtype, rank);
}
VtStatus* VtSessionInputDim(const VtSession* session, size_t index, int64_t axis, int64_t* size,
                            const char** symbol) {
  return vt::capi::Dim("VtSessionInputDim", session, false, index, axis, size, symbol);
}
VtStatus* VtSessionOutputDim(const VtSession* session, size_t index, int64_t axis,
                             int64_t* size, const char** symbol) {
  return vt::capi::Dim("VtSessionOutputDim", session, true, index, axis, size, symbol);
}

VtStatus* VtSessionRun(VtSession* session, const char* const* input_names,
                       const VtValue* const* inputs, size_t num_inputs,
                       const char* const* output_names, VtValue** outputs, size_t num_outputs) {
  constexpr const char* fn = "VtSessionRun";
  std::vector<std::unique_ptr<VtValue>> made;
  VtStatus* st = Guard(fn, [&]() -> VtStatus* {
    if (outputs == nullptr && num_outputs > 0) return Invalid(fn, "outputs is NULL");
    for (size_t i = 0; i < num_outputs; ++i) outputs[i] = nullptr;
    std::shared_ptr<const LiveSession> s;
    if (VtStatus* e = vt::capi::Lookup(fn, session, &s)) return e;
    if (num_inputs > 0 && (input_names == nullptr || inputs == nullptr))
      return Invalid(fn, input_names == nullptr ? "input_names is NULL" : "inputs is NULL");
    std::vector<std::pair<std::string, vt::Value>> feeds;
    feeds.reserve(num_inputs);
    for (size_t i = 0; i < num_inputs; ++i) {
      const std::string at = "[" + std::to_string(i) + "]";
      if (input_names[i] == nullptr) return Invalid(fn, "input_names" + at + " is NULL");
      if (inputs[i] == nullptr)
        return Invalid(fn, "inputs" + at + " (input '" + input_names[i] + "') is NULL");
      feeds.emplace_back(input_names[i], inputs[i]->value);
    }
    std::vector<std::string> names;
    if (output_names == nullptr) {
      const size_t n = s->session->outputs().size();
      if (num_outputs != n)
        return Invalid(fn, "num_outputs is " + std::to_string(num_outputs) + " but the model has " +
                               std::to_string(n) + " outputs (output_names is NULL: all)");
    } else {
      for (size_t i = 0; i < num_outputs; ++i) {
        if (output_names[i] == nullptr)
          return Invalid(fn, "output_names[" + std::to_string(i) + "] is NULL");
        names.emplace_back(output_names[i]);
      }
    }
    auto r = s->session->RunNamed(feeds, names);
    if (!r.ok()) return vt::capi::FromStatus(fn, r.status());
    for (vt::Value& v : *r) made.push_back(std::make_unique<VtValue>(VtValue{std::move(v)}));
    return nullptr;
  });
  if (st == nullptr)
    for (size_t i = 0; i < made.size(); ++i) outputs[i] = made[i].release();
  return st;
}

VtStatus* VtSessionCacheEntryCount(const VtSession* session, size_t* count) {
  constexpr const char* fn = "VtSessionCacheEntryCount";
  return Guard(fn, [&]() -> VtStatus* {
    if (count == nullptr) return Invalid(fn, "count is NULL");
    std::shared_ptr<const LiveSession> s;
    if (VtStatus* st = vt::capi::Lookup(fn, session, &s)) return st;
    *count = s->session->cache_report().size();
    return nullptr;
  });
}

VtStatus* VtSessionCacheEntry(const VtSession* session, size_t index, const char** source_name,
                              int* hit, const char** reason) {
  constexpr const char* fn = "VtSessionCacheEntry";
  return Guard(fn, [&]() -> VtStatus* {
    std::shared_ptr<const LiveSession> s;
    if (VtStatus* st = vt::capi::Lookup(fn, session, &s)) return st;
    const auto& report = s->session->cache_report();
    if (index >= report.size())
      return vt::capi::MakeStatus(VT_OUT_OF_RANGE, std::string(fn) + ": index " +
                                                       std::to_string(index) + " >= " +
                                                       std::to_string(report.size()) +
                                                       " entries");
    const vt::CacheEntryReport& e = report[index];
    if (source_name != nullptr) *source_name = e.source_name.c_str();
    if (hit != nullptr) *hit = e.state == vt::EntryState::kHit ? 1 : 0;
    if (reason != nullptr) *reason = vt::MissReasonCode(e.reason);
    return nullptr;
  });
}

}  // extern "C"
