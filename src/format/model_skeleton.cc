#include "vtensor/format/model_skeleton.h"

#include <onnx/onnx_pb.h>
#include <sys/random.h>

#include <chrono>
#include <cstring>
#include <iterator>
#include <limits>
#include <optional>

#include "format/wire_varint.h"
#include "vtensor/format/compiled_model.h"

namespace vt {

ElidedPayloads::ElidedPayloads(std::shared_ptr<MappedFile> file) : file_(std::move(file)) {
  // The nonce only has to be unknown to whoever wrote the file; the clock backs up getrandom.
  if (getrandom(&nonce_, sizeof nonce_, GRND_NONBLOCK) != static_cast<ssize_t>(sizeof nonce_))
    nonce_ = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
             reinterpret_cast<uintptr_t>(this);
}

std::string ElidedPayloads::Add(uint64_t offset, uint64_t length) {
  const uint64_t index = spans_.size();
  spans_.push_back({offset, length});
  std::string token(kElidedTokenBytes, '\0');
  std::memcpy(token.data(), &nonce_, 8);
  std::memcpy(token.data() + 8, &index, 8);
  return token;
}

const ElidedPayloads::Span* ElidedPayloads::Find(std::string_view raw_data) const {
  if (raw_data.size() != kElidedTokenBytes || std::memcmp(raw_data.data(), &nonce_, 8) != 0)
    return nullptr;
  uint64_t index = 0;
  std::memcpy(&index, raw_data.data() + 8, 8);
  return index < spans_.size() ? &spans_[index] : nullptr;
}

namespace {

constexpr uint32_t kLen = 2;  // wire type of length-delimited fields
constexpr int kMaxDepth = 100;  // protobuf's own recursion limit

// The messages the scan descends into (kEntry: a StringStringEntryProto of external_data).
enum class Msg { kModel, kGraph, kNode, kAttribute, kTensor, kSparse, kFunction, kEntry };

struct Child {
  Msg kind;
  const char* name;
};

// The message kind of length-delimited field `number` of a `m`, when the scan descends into it.
std::optional<Child> ChildOf(Msg m, uint32_t number) {
  switch (m) {
    case Msg::kModel:
      if (number == 7) return Child{Msg::kGraph, "graph"};
      if (number == 25) return Child{Msg::kFunction, "functions"};
      break;
    case Msg::kGraph:
      if (number == 1) return Child{Msg::kNode, "node"};
      if (number == 5) return Child{Msg::kTensor, "initializer"};
      if (number == 15) return Child{Msg::kSparse, "sparse_initializer"};
      break;
    case Msg::kNode: if (number == 5) return Child{Msg::kAttribute, "attribute"}; break;
    case Msg::kAttribute:
      if (number == 5) return Child{Msg::kTensor, "t"};
      if (number == 10) return Child{Msg::kTensor, "tensors"};
      if (number == 6) return Child{Msg::kGraph, "g"};
      if (number == 11) return Child{Msg::kGraph, "graphs"};
      if (number == 22) return Child{Msg::kSparse, "sparse_tensor"};
      if (number == 23) return Child{Msg::kSparse, "sparse_tensors"};
      break;
    case Msg::kSparse:
      if (number == 1) return Child{Msg::kTensor, "values"};
      if (number == 2) return Child{Msg::kTensor, "indices"};
      break;
    case Msg::kFunction:
      if (number == 7) return Child{Msg::kNode, "node"};
      if (number == 11) return Child{Msg::kAttribute, "attribute_proto"};
      break;
    case Msg::kTensor:
    case Msg::kEntry: break;
  }
  return std::nullopt;
}

bool IsExtensionField(uint32_t n) { return n >= 27 && n <= 30; }

// "field NAME" for the fields errors most often point at, "field N" for the others.
std::string FieldLabel(Msg m, uint32_t number) {
  if (auto c = ChildOf(m, number)) return std::string("field ") + c->name;
  if (m == Msg::kTensor) {
    static const char* const kNames[] = {nullptr,      "dims",       "data_type",  "segment",
                                         "float_data", "int32_data", "string_data", "int64_data",
                                         "name",       "raw_data",   "double_data", "uint64_data",
                                         "doc_string", "external_data", "data_location"};
    if (number < std::size(kNames) && kNames[number] != nullptr)
      return std::string("field ") + kNames[number];
  }
  return "field " + std::to_string(number);
}

// One field of a message: [begin, end) is the whole field, [body, end) its value (after the
// length for length-delimited fields).
struct Field {
  uint32_t number = 0;
  uint32_t wire = 0;
  const uint8_t* begin = nullptr;
  const uint8_t* tag_end = nullptr;
  const uint8_t* body = nullptr;
  const uint8_t* end = nullptr;
};

// Where the walk is, for messages only: "model > graph #0 > initializer #3".
struct Frame {
  const Frame* up = nullptr;
  const char* field = "model";
  int index = -1;
};

std::string Where(const Frame* f) {
  if (f == nullptr) return "";
  std::string up = Where(f->up);
  return (up.empty() ? "" : up + " > ") + f->field +
         (f->index < 0 ? "" : " #" + std::to_string(f->index));
}

using wire::ReadVarint;

void WriteVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

// What the first walk of a TensorProto finds.
struct TensorFields {
  std::string name;
  int raw_fields = 0;  // raw_data occurrences
};

// The wire-format walk. Errors are the reason only; the caller adds the file and the stock
// "not a valid ONNX ModelProto" sentence. `data_dir`: where external data locations resolve.
class Scanner {
 public:
  Scanner(const uint8_t* file, ElidedPayloads* table, SkeletonScope scope, std::string data_dir)
      : file_(file), table_(table), scope_(scope), data_dir_(std::move(data_dir)) {}

  // Rewrites the message [b, e) of kind `kind` into `out`. Groups (wire types 3 and 4, which
  // no ONNX writer emits) set needs_full_parse() instead of being rewritten.
  Status Rewrite(Msg kind, const uint8_t* b, const uint8_t* e, const Frame& at, int depth,
                 std::string* out);

  bool needs_full_parse() const { return needs_full_parse_; }
  std::string& extension_bytes() { return extension_; }
  std::optional<uint32_t> bad_extension_wire() const { return bad_extension_wire_; }
  std::set<std::string>& data_files() { return data_files_; }

 private:
  // Reads the field at p (< e) of a `kind` message. Errors name where the walk is, the
  // tensor (when `tensor` is a known name) and the field.
  Status Next(const uint8_t*& p, const uint8_t* e, Msg kind, const Frame& at,
              const std::string& tensor, Field* f);
  Status RewriteTensor(const uint8_t* b, const uint8_t* e, const Frame& at, std::string* out);
  // The first walk of a tensor: its name and raw_data count; adds its external data file to
  // data_files_ when its data_location is EXTERNAL, reading the fields as TensorFromProto does
  // (the last data_location, the last `location` entry of external_data).
  Status ScanTensor(const uint8_t* b, const uint8_t* e, const Frame& at, TensorFields* t);
  // Sets `location` to the value of external_data entry `f` when its key is "location".
  Status EntryLocation(const Field& f, const Frame& at, const std::string& tensor,
                       std::string* location);
  // The tensors of a `kind` message left out of the skeleton, for data_files_ only.
  Status Collect(Msg kind, const uint8_t* b, const uint8_t* e, const Frame& at, int depth);
  // SkeletonScope kSources and kModel: whether field `f` of the main graph is left out of the
  // skeleton.
  Expected<bool> LeftOut(const Field& f, const Frame& at);

  const uint8_t* file_;
  ElidedPayloads* table_;
  SkeletonScope scope_;
  std::string data_dir_;
  std::set<std::string> data_files_;
  bool needs_full_parse_ = false;
  std::string extension_;  // fields 27-30, as they stand in the file
  std::optional<uint32_t> bad_extension_wire_;
};

Status Scanner::Next(const uint8_t*& p, const uint8_t* e, Msg kind, const Frame& at,
                     const std::string& tensor, Field* f) {
  auto where = [&] { return Where(&at) + (tensor.empty() ? "" : " (tensor '" + tensor + "')"); };
  f->begin = p;
  uint64_t tag = 0;
  if (!ReadVarint(p, e, &tag) || tag > std::numeric_limits<uint32_t>::max() || (tag >> 3) == 0)
    return InvalidArgument(where() + ": bad field tag at byte " + std::to_string(f->begin - file_));
  f->tag_end = p;
  f->number = static_cast<uint32_t>(tag >> 3);
  f->wire = static_cast<uint32_t>(tag & 7);
  auto field = [&] { return where() + ": " + FieldLabel(kind, f->number); };
  uint64_t skip = 0;
  switch (f->wire) {
    case 0: {
      uint64_t v = 0;
      if (!ReadVarint(p, e, &v)) return InvalidArgument(field() + ": truncated varint");
      break;
    }
    case 1: skip = 8; break;
    case 5: skip = 4; break;
    case kLen:
      if (!ReadVarint(p, e, &skip)) return InvalidArgument(field() + ": truncated length");
      break;
    case 3:
    case 4: needs_full_parse_ = true; break;
    default:
      return InvalidArgument(field() + ": invalid wire type " + std::to_string(f->wire));
  }
  if (skip > static_cast<uint64_t>(e - p))
    return InvalidArgument(field() + ": length " + std::to_string(skip) +
                           " runs past the end of its message (" + std::to_string(e - p) +
                           " bytes left)");
  f->body = p;
  p += skip;
  f->end = p;
  return Status::Ok();
}

Status Scanner::EntryLocation(const Field& f, const Frame& at, const std::string& tensor,
                              std::string* location) {
  constexpr uint32_t kKey = 1, kValue = 2;
  std::string_view key, value;
  for (const uint8_t* p = f.body; p < f.end;) {
    Field g;
    VT_RETURN_IF_ERROR(Next(p, f.end, Msg::kEntry, at, tensor, &g));
    if (needs_full_parse_) return Status::Ok();
    const std::string_view v(reinterpret_cast<const char*>(g.body),
                             static_cast<size_t>(g.end - g.body));
    if (g.wire == kLen && g.number == kKey) key = v;
    if (g.wire == kLen && g.number == kValue) value = v;
  }
  if (key == "location") location->assign(value);
  return Status::Ok();
}

Status Scanner::ScanTensor(const uint8_t* b, const uint8_t* e, const Frame& at, TensorFields* t) {
  constexpr uint32_t kName = 8, kRawData = 9, kExternalData = 13, kDataLocation = 14;
  constexpr uint64_t kExternal = 1;  // TensorProto.DataLocation.EXTERNAL
  uint64_t data_location = 0;
  std::string location;
  for (const uint8_t* p = b; p < e;) {
    Field f;
    VT_RETURN_IF_ERROR(Next(p, e, Msg::kTensor, at, t->name, &f));
    if (needs_full_parse_) return Status::Ok();
    if (f.wire == kLen && f.number == kName) t->name.assign(f.body, f.end);
    if (f.wire == kLen && f.number == kRawData) ++t->raw_fields;
    if (f.wire == 0 && f.number == kDataLocation) {
      const uint8_t* v = f.tag_end;
      (void)ReadVarint(v, f.body, &data_location);  // Next has read it once: it is whole
    }
    if (f.wire == kLen && f.number == kExternalData) {
      VT_RETURN_IF_ERROR(EntryLocation(f, at, t->name, &location));
      if (needs_full_parse_) return Status::Ok();
    }
  }
  // The importer refuses an external tensor without a location; it names no file.
  if (data_location == kExternal && !location.empty())
    data_files_.insert(JoinPath(data_dir_, location));
  return Status::Ok();
}

Status Scanner::Collect(Msg kind, const uint8_t* b, const uint8_t* e, const Frame& at, int depth) {
  if (depth > kMaxDepth)
    return InvalidArgument(Where(&at) + ": messages nest deeper than " +
                           std::to_string(kMaxDepth) + " levels");
  if (kind == Msg::kTensor) {
    TensorFields unused;
    return ScanTensor(b, e, at, &unused);
  }
  static const std::string kNoTensor;
  int seen[32] = {};
  for (const uint8_t* p = b; p < e;) {
    Field f;
    VT_RETURN_IF_ERROR(Next(p, e, kind, at, kNoTensor, &f));
    if (needs_full_parse_) return Status::Ok();
    const std::optional<Child> child = f.wire == kLen ? ChildOf(kind, f.number) : std::nullopt;
    if (!child) continue;
    const Frame inner{&at, child->name, seen[f.number]++};
    VT_RETURN_IF_ERROR(Collect(child->kind, f.body, f.end, inner, depth + 1));
    if (needs_full_parse_) return Status::Ok();
  }
  return Status::Ok();
}

Status Scanner::RewriteTensor(const uint8_t* b, const uint8_t* e, const Frame& at,
                              std::string* out) {
  // First pass: the name (for messages) and how often raw_data occurs; protobuf keeps the last
  // of repeated raw_data fields, so a tensor with several is kept as it is.
  TensorFields t;
  VT_RETURN_IF_ERROR(ScanTensor(b, e, at, &t));
  if (needs_full_parse_) return Status::Ok();
  const std::string& name = t.name;
  const int raw_fields = t.raw_fields;
  for (const uint8_t* p = b; p < e;) {
    Field f;
    VT_RETURN_IF_ERROR(Next(p, e, Msg::kTensor, at, name, &f));
    const size_t bytes = static_cast<size_t>(f.end - f.body);
    const size_t elide_min =
        scope_ == SkeletonScope::kSources ? kSourcesElideMinBytes : kElideMinBytes;
    if (f.wire == kLen && f.number == 9 && raw_fields == 1 && bytes >= elide_min) {
      out->append(reinterpret_cast<const char*>(f.begin), static_cast<size_t>(f.tag_end - f.begin));
      const std::string token = table_->Add(static_cast<uint64_t>(f.body - file_), bytes);
      WriteVarint(token.size(), out);
      out->append(token);
      continue;
    }
    out->append(reinterpret_cast<const char*>(f.begin), static_cast<size_t>(f.end - f.begin));
  }
  return Status::Ok();
}

Expected<bool> Scanner::LeftOut(const Field& f, const Frame& at) {
  constexpr uint32_t kNode = 1, kInitializer = 5, kValueInfo = 13, kSparseInitializer = 15,
                     kOpType = 4, kDomain = 7;
  if (f.wire != kLen) return false;
  if (f.number == kValueInfo) return true;
  if (scope_ == SkeletonScope::kModel)
    return f.number == kNode || f.number == kInitializer || f.number == kSparseInitializer;
  if (f.number != kNode) return false;
  // Kept: a Constant of the default domain (a source tensor's holder), and every node of
  // another domain (a call of a local function, which the import inlines, its Constant nodes
  // becoming sources).
  std::string_view op_type, domain;
  static const std::string kNoTensor;
  for (const uint8_t* p = f.body; p < f.end;) {
    Field g;
    VT_RETURN_IF_ERROR(Next(p, f.end, Msg::kNode, at, kNoTensor, &g));
    if (needs_full_parse_) return false;
    const std::string_view v(reinterpret_cast<const char*>(g.body), static_cast<size_t>(g.end - g.body));
    if (g.wire == kLen && g.number == kOpType) op_type = v;
    if (g.wire == kLen && g.number == kDomain) domain = v;
  }
  const bool default_domain = domain.empty() || domain == "ai.onnx";
  return default_domain && op_type != "Constant";
}

Status Scanner::Rewrite(Msg kind, const uint8_t* b, const uint8_t* e, const Frame& at,
                        int depth, std::string* out) {
  if (depth > kMaxDepth)
    return InvalidArgument(Where(&at) + ": messages nest deeper than " +
                           std::to_string(kMaxDepth) + " levels");
  if (kind == Msg::kTensor) return RewriteTensor(b, e, at, out);
  static const std::string kNoTensor;
  int seen[32] = {};  // occurrences of each field number below 32 (all the scanned ones)
  for (const uint8_t* p = b; p < e;) {
    Field f;
    VT_RETURN_IF_ERROR(Next(p, e, kind, at, kNoTensor, &f));
    if (needs_full_parse_) return Status::Ok();
    if (kind == Msg::kModel && IsExtensionField(f.number)) {
      if (f.wire != kLen) bad_extension_wire_ = f.number;
      else extension_.append(reinterpret_cast<const char*>(f.begin), static_cast<size_t>(f.end - f.begin));
      continue;
    }
    if (kind == Msg::kGraph && depth == 1 && scope_ != SkeletonScope::kWhole) {
      VT_ASSIGN_OR_RETURN(const bool left_out, LeftOut(f, at));
      if (needs_full_parse_) return Status::Ok();
      if (left_out) {
        // Its tensors' files are listed all the same: both scopes list the same files.
        if (auto child = ChildOf(kind, f.number)) {
          const Frame inner{&at, child->name, seen[f.number]++};
          VT_RETURN_IF_ERROR(Collect(child->kind, f.body, f.end, inner, depth + 1));
          if (needs_full_parse_) return Status::Ok();
        }
        continue;
      }
    }
    const std::optional<Child> child = f.wire == kLen ? ChildOf(kind, f.number) : std::nullopt;
    if (!child) {
      out->append(reinterpret_cast<const char*>(f.begin), static_cast<size_t>(f.end - f.begin));
      continue;
    }
    std::string sub;
    const Frame inner{&at, child->name, seen[f.number]++};
    VT_RETURN_IF_ERROR(Rewrite(child->kind, f.body, f.end, inner, depth + 1, &sub));
    if (needs_full_parse_) return Status::Ok();
    // The tag as it stands, the new length, the rewritten body.
    out->append(reinterpret_cast<const char*>(f.begin), static_cast<size_t>(f.tag_end - f.begin));
    WriteVarint(sub.size(), out);
    out->append(sub);
  }
  return Status::Ok();
}

std::string NotAModel(const std::string& path) {
  return path + ": not a valid ONNX ModelProto (protobuf parse failed: truncated or corrupted file)";
}

// Fields 27-30 as they stood in the file, parsed; malformed ones set `ext_error`.
void ParseExtension(const Scanner& s, const std::string& bytes, const std::string& path,
                    ModelSkeleton* out) {
  if (s.bad_extension_wire()) {
    out->ext_error = path + ": field " + std::to_string(*s.bad_extension_wire()) +
                     " (struct_types/devices/compiled_tensors/session_plans) is malformed: wrong "
                     "wire type";
    return;
  }
  if (bytes.empty()) return;
  auto ext = std::make_shared<vtensor::ModelExtension>();
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()) ||
      !ext->ParseFromString(bytes)) {
    out->ext_error = path + ": field 27/28/29/30 (struct_types/devices/compiled_tensors/"
                            "session_plans) is malformed";
    return;
  }
  out->ext = std::move(ext);
}

// Groups in a scanned message: the stock parse of the whole file (no payload is elided).
Expected<ModelSkeleton> FullParse(const std::shared_ptr<MappedFile>& file, const std::string& path,
                                  bool with_extension) {
  ModelSkeleton out;
  out.elided = std::make_shared<ElidedPayloads>(file);
  Expected<CompiledModel> cm = ParseCompiledModel(file->data(), file->size(), path);
  if (cm.ok()) {
    out.proto = std::move(cm->model);
    if (with_extension)
      out.ext = std::make_shared<const vtensor::ModelExtension>(std::move(cm->ext));
    return out;
  }
  out.proto = std::make_unique<onnx::ModelProto>();
  if (!out.proto->ParseFromArray(file->data(), static_cast<int>(file->size())))
    return cm.status();
  if (with_extension) out.ext_error = cm.status().message();
  return out;
}

std::string NotATensor(const std::string& path) {
  return path + ": not a valid ONNX TensorProto (truncated or corrupted)";
}

}  // namespace

std::string ExternalDataDir(const std::string& model_path) {
  return DirName(model_path.empty() ? std::string("./x") : model_path);
}

bool HasSessionPlans(const MappedFile& file) {
  const uint8_t* p = file.data();
  const uint8_t* const e = p + file.size();
  while (p < e) {
    uint64_t tag = 0, skip = 0;
    if (!ReadVarint(p, e, &tag)) return false;
    switch (tag & 7) {
      case 0: if (!ReadVarint(p, e, &skip)) return false; skip = 0; break;
      case 1: skip = 8; break;
      case 5: skip = 4; break;
      case kLen: if (!ReadVarint(p, e, &skip)) return false; break;
      default: return false;
    }
    if ((tag >> 3) == vtensor::ModelExtension::kSessionPlansFieldNumber && (tag & 7) == kLen)
      return true;
    if (skip > static_cast<uint64_t>(e - p)) return false;
    p += skip;
  }
  return false;
}

Expected<SourceSpans> SourcePayloadSpans(const uint8_t* data, size_t size,
                                         const std::string& path) {
  if (size > static_cast<size_t>(std::numeric_limits<int>::max()))
    return InvalidArgument(path + ": model protobuf larger than 2 GiB; use external data");
  ElidedPayloads table(nullptr);
  Scanner scan(data, &table, SkeletonScope::kSources, ExternalDataDir(path));
  std::string skeleton;
  const Status st = scan.Rewrite(Msg::kModel, data, data + size, Frame{}, 0, &skeleton);
  if (!st.ok()) return InvalidArgument(NotAModel(path) + ": " + st.message());
  SourceSpans out;
  if (scan.needs_full_parse()) return out;
  onnx::ModelProto m;
  if (!m.ParseFromString(skeleton)) return InvalidArgument(NotAModel(path));
  // As the importer names them (graph/plan_graph.h SourceTensors): initializers first.
  auto add = [&](const std::string& name, const onnx::TensorProto& t) {
    if (t.data_location() == onnx::TensorProto::EXTERNAL) {
      out.external.insert(name);
      return;
    }
    if (const ElidedPayloads::Span* span = table.Find(t.raw_data())) out.in_file.emplace(name, *span);
  };
  for (const auto& t : m.graph().initializer()) add(t.name(), t);
  for (const auto& n : m.graph().node()) {
    const bool constant = n.op_type() == "Constant" && (n.domain().empty() || n.domain() == "ai.onnx");
    if (!constant || n.output_size() != 1) continue;
    for (const auto& a : n.attribute())
      if (a.name() == "value" && a.has_t()) add(n.output(0), a.t());
  }
  return out;
}

Expected<ModelSkeleton> ParseModelSkeleton(std::shared_ptr<MappedFile> file,
                                           const std::string& path, bool with_extension,
                                           SkeletonScope scope) {
  if (file->size() > static_cast<size_t>(std::numeric_limits<int>::max()))
    return InvalidArgument(path + ": model protobuf larger than 2 GiB; use external data");
  auto table = std::make_shared<ElidedPayloads>(std::move(file));
  const uint8_t* data = table->file()->data();
  Scanner scan(data, table.get(), scope, ExternalDataDir(path));
  std::string skeleton;
  const Status st = scan.Rewrite(Msg::kModel, data, data + table->file()->size(), Frame{}, 0,
                                 &skeleton);
  if (!st.ok()) return InvalidArgument(NotAModel(path) + ": " + st.message());
  if (scan.needs_full_parse()) return FullParse(table->file(), path, with_extension);
  ModelSkeleton out;
  out.proto = std::make_unique<onnx::ModelProto>();
  if (!out.proto->ParseFromString(skeleton)) return InvalidArgument(NotAModel(path));
  out.elided = std::move(table);
  out.external_data_files = std::move(scan.data_files());
  if (with_extension) ParseExtension(scan, scan.extension_bytes(), path, &out);
  return out;
}

Expected<TensorSkeleton> ParseTensorSkeleton(std::shared_ptr<MappedFile> file,
                                             const std::string& path) {
  if (file->size() > static_cast<size_t>(std::numeric_limits<int>::max()))
    return InvalidArgument(path + ": TensorProto file larger than 2 GiB");
  auto table = std::make_shared<ElidedPayloads>(std::move(file));
  const uint8_t* data = table->file()->data();
  Scanner scan(data, table.get(), SkeletonScope::kWhole, "");
  std::string skeleton;
  const Status st = scan.Rewrite(Msg::kTensor, data, data + table->file()->size(),
                                 Frame{nullptr, "tensor", -1}, 0, &skeleton);
  if (!st.ok()) return InvalidArgument(NotATensor(path) + ": " + st.message());
  TensorSkeleton out;
  out.proto = std::make_unique<onnx::TensorProto>();
  const bool parsed = scan.needs_full_parse()
                          ? out.proto->ParseFromArray(data, static_cast<int>(table->file()->size()))
                          : out.proto->ParseFromString(skeleton);
  if (!parsed) return InvalidArgument(NotATensor(path));
  out.elided = std::move(table);
  return out;
}

}  // namespace vt
