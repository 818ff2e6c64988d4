#include "vtensor/forms/weight_form.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "kernels/conv/f32_conv_pack.h"
#include "kernels/cpu/parallel_pack.h"
#include "kernels/gemm/f32_gemm_pack.h"
#include "kernels/gemm/f32_gemm_table.h"
#include "kernels/int8/s8_per_channel_pack.h"
#include "kernels/nbits/nbits_gemm_table.h"
#include "kernels/nbits/nbits_pack.h"
#include "kernels/q4/q4_gemm_table.h"
#include "kernels/q4/q4_pack.h"
#include "vtensor/base/page_memory.h"
#include "vtensor/format/compiled_model.h"
#include "vtensor/layout/layout_presets.h"
#include "vtensor/forms/weight_provider.h"

namespace vt {

namespace {

constexpr const char kF32GemmBType[] = "vt.f32_gemm_b_panels";
constexpr const char kF32ConvAType[] = "vt.f32_conv_a_panels";
constexpr int64_t kF32GemmBVersion = 1;
constexpr int64_t kF32ConvAVersion = 1;
constexpr const char kQ4_0GemmBType[] = "vt.q4_0_gemm_b";
constexpr int64_t kQ4_0GemmBVersion = 1;
constexpr const char kS8GemmBType[] = "vt.s8_per_channel_gemm_b_panels";
constexpr int64_t kS8GemmBVersion = 1;
constexpr const char kNBitsCodesType[] = "vt.nbits_codes_panels";
constexpr const char kNBitsScalesType[] = "vt.nbits_scales_panels";
constexpr const char kNBitsZeroPointsType[] = "vt.nbits_zero_points_panels";
constexpr int64_t kNBitsVersion = 1;

// The q4_0 table row a device of level `isa` uses (its panel height decides the layout).
// On AVX-512 the int8-activation VNNI row (same panel height) is preferred when this CPU has
// it: the packed bytes are the same, only the kernel reading them differs.
const kernels::Q4GemmKernel* Q4Row(IsaLevel isa) {
  const char* want = isa == IsaLevel::kAvx512 ? "avx512" : isa == IsaLevel::kAvx2 ? "avx2" : "portable";
  const kernels::Q4GemmKernel* plain = nullptr;
  for (const auto& k : kernels::Q4_0GemmKernels())
    if (plain == nullptr && std::strcmp(k.isa, want) == 0) plain = &k;
  if (isa == IsaLevel::kAvx512 && plain != nullptr)
    for (const auto& k : kernels::Q4_0GemmKernels())
      if (std::strcmp(k.isa, "avx512vnni") == 0 && k.rows == plain->rows && k.supported()) return &k;
  if (plain != nullptr) return plain;
  const auto rows = kernels::Q4_0GemmKernels();
  return rows.empty() ? nullptr : &rows.back();
}

const char* TableIsa(IsaLevel isa) {
  switch (isa) {
    case IsaLevel::kAvx512: return "avx512";
    case IsaLevel::kAvx2: return "avx2";
    case IsaLevel::kBaseline: return "portable";
  }
  return "portable";
}

// First supported-or-not row of `isa` in the f32 GEMM table: the row the default dispatch
// picks on a CPU whose best level is `isa`.
const kernels::F32GemmKernel* FirstRow(IsaLevel isa) {
  for (const auto& k : kernels::F32GemmKernels())
    if (std::strcmp(k.isa, TableIsa(isa)) == 0) return &k;
  return nullptr;
}


// The row the runtime uses for `m` rows on a CPU of level `isa` (kernels::F32GemmKernelForM's
// rule for that level).
const kernels::F32GemmKernel* RowForM(IsaLevel isa, int64_t m) {
  const kernels::F32GemmKernel* first = FirstRow(isa);
  return first ? &kernels::F32GemmRowForM(*first, static_cast<size_t>(m)) : nullptr;
}

// Conv filter [M, C, k...] as per-group GEMM A panels of `mr` rows; K ordered (c, taps), or
// (taps, c) when tap-major. Groups are consecutive; with several groups `mr` must divide M/g.
Expected<Layout> ConvFilterPanels(const Shape& w, int64_t group, int64_t mr, bool tap_major) {
  const int rank = static_cast<int>(w.size());
  int64_t taps = 1;
  for (int d = 2; d < rank; ++d) taps *= w[static_cast<size_t>(d)];
  const int64_t c = w[1], k = c * taps, mg = w[0] / group;
  LayoutSpec s;
  s.shape = w;
  s.encoding = Encoding::kF32;
  s.padded = w;
  s.padded[0] = group > 1 ? w[0] : (w[0] + mr - 1) / mr * mr;
  if (group > 1 && mg > mr) s.levels.push_back({0, mg, mg * k});
  if (mr > 1) {
    s.levels.push_back({0, mr, k * mr});
    s.levels.push_back({0, 1, 1});
  } else {
    s.levels.push_back({0, 1, k});
  }
  int64_t inner = 1;
  for (int d = rank - 1; d >= 2; --d) {
    s.levels.push_back({d, 1, tap_major ? inner * c * mr : inner * mr});
    inner *= w[static_cast<size_t>(d)];
  }
  s.levels.push_back({1, 1, tap_major ? mr : taps * mr});
  return Layout::Make(s);
}

std::string Dims(const Shape& s) { return ShapeToString(s); }

// A form's identity and kernel; kind-specific fields are set by the caller.
WeightForm MakeForm(WeightFormKind kind, const char* type, int64_t version, Layout layout,
                    IsaLevel isa, bool lossless, int64_t panel, const char* kernel) {
  WeightForm f;
  f.kind = kind;
  f.type_name = type;
  f.format_version = version;
  f.layout = std::move(layout);
  f.isa = isa;
  f.lossless = lossless;
  f.panel = panel;
  f.kernel = kernel;
  return f;
}

// Compact profile: q4_0 blocks of 32 along K with error-minimising scales, kernel-feed order.
void Q4Candidate(const Shape& shape, const WeightUseInfo& use, IsaLevel isa, WeightProfile profile,
                 std::vector<WeightFormCandidate>* out) {
  WeightFormCandidate c;
  const kernels::Q4GemmKernel* row = Q4Row(isa);
  c.description = std::string("q4_0 blocks of 32 (min-error scales), kernel-feed order for ") +
                  (row ? row->name : "?");
  if (profile != WeightProfile::kCompact) {
    c.rejected = "profile exact allows lossless forms only (--profile compact enables it)";
  } else if (use.use != WeightUse::kMatMulB) {
    c.rejected = "int4 weights are read by the MatMul kernel only (Gemm and Conv keep f32)";
  } else if (shape.size() != 2) {
    c.rejected = "weight " + Dims(shape) + " is not a matrix";
  } else if (row == nullptr) {
    c.rejected = std::string("no q4_0 kernel for ") + IsaArchitecture(isa);
  }
  if (!c.rejected.empty()) {
    out->push_back(std::move(c));
    return;
  }
  const int64_t k = shape[0], n = shape[1], rows = static_cast<int64_t>(row->rows);
  auto nk = BlockQuantizedWeight(n, k, Encoding::kQ4_0, BlockOrder::kInputBlockMajor, rows);
  Expected<Layout> l = nk.ok() ? nk->Transpose({1, 0}) : std::move(nk);
  if (!l.ok()) {
    c.rejected = "layout not expressible: " + l.status().message();
    out->push_back(std::move(c));
    return;
  }
  WeightForm f = MakeForm(WeightFormKind::kQ4_0GemmB, kQ4_0GemmBType, kQ4_0GemmBVersion,
                          std::move(*l), isa, /*lossless=*/false, rows, row->name);
  c.description += " (rows=" + std::to_string(rows) + ")";
  c.form = std::move(f);
  out->push_back(std::move(c));
}

// Compact profile, Gemm B: int8 per output channel (symmetric, scale = max|w| / 127 per column
// n), stored as int8 column panels of the f32 kernel's NR plus the f32 scales; dequantized per
// K block into f32 panels as the GEMM runs.
void S8Candidate(const Shape& shape, const WeightUseInfo& use, IsaLevel isa, WeightProfile profile,
                 std::vector<WeightFormCandidate>* out) {
  WeightFormCandidate c;
  const kernels::F32GemmKernel* row = FirstRow(isa);
  c.description = std::string("int8 per output channel, column panels for ") +
                  (row ? row->name : "?");
  if (profile != WeightProfile::kCompact) {
    c.rejected = "profile exact allows lossless forms only (--profile compact enables it)";
  } else if (use.use != WeightUse::kGemmB && use.use != WeightUse::kGemmBTrans) {
    c.rejected = use.use == WeightUse::kMatMulB
                     ? "MatMul weights take the int4 form (Gemm weights take this one)"
                     : "convolution filters keep f32 (no int8 filter form yet)";
  } else if (shape.size() != 2) {
    c.rejected = "weight " + Dims(shape) + " is not a matrix";
  } else if (row == nullptr) {
    c.rejected = std::string("no f32 GEMM microkernel for ") + IsaArchitecture(isa);
  }
  if (!c.rejected.empty()) {
    out->push_back(std::move(c));
    return;
  }
  const bool trans = use.use == WeightUse::kGemmBTrans;
  const int64_t n = trans ? shape[0] : shape[1];
  const int64_t nr = static_cast<int64_t>(row->nr);
  auto l = GemmWeightPanels(shape, trans, nr, Encoding::kI8);
  if (!l.ok()) {
    c.rejected = "layout not expressible: " + l.status().message();
    out->push_back(std::move(c));
    return;
  }
  WeightForm f = MakeForm(WeightFormKind::kS8GemmBPerChannel, kS8GemmBType, kS8GemmBVersion,
                          std::move(*l), isa, /*lossless=*/false, nr, row->name);
  f.b_trans = trans;
  f.extra_offset = (f.layout.StorageBytes() + 63) / 64 * 64;
  f.extra_bytes = (n + nr - 1) / nr * nr * static_cast<int64_t>(sizeof(float));
  c.description += " (NR=" + std::to_string(nr) + ")";
  c.form = std::move(f);
  out->push_back(std::move(c));
}

void GemmCandidates(const Shape& shape, const WeightUseInfo& use, IsaLevel isa,
                    std::vector<WeightFormCandidate>* out) {
  WeightFormCandidate c;
  const kernels::F32GemmKernel* row = FirstRow(isa);
  c.description = std::string("f32 column panels for ") + (row ? row->name : "?");
  if (shape.size() != 2) {
    c.rejected = "weight " + Dims(shape) + " is not a matrix (batched weights are packed per "
                 "matrix at load and not cached)";
    out->push_back(std::move(c));
    return;
  }
  if (row == nullptr) {
    c.rejected = std::string("no f32 GEMM microkernel for ") + IsaArchitecture(isa);
    out->push_back(std::move(c));
    return;
  }
  const bool trans = use.use == WeightUse::kGemmBTrans;
  auto l = GemmWeightPanels(shape, trans, static_cast<int64_t>(row->nr), Encoding::kF32);
  if (!l.ok()) {
    c.rejected = "layout not expressible: " + l.status().message();
    out->push_back(std::move(c));
    return;
  }
  WeightForm f = MakeForm(WeightFormKind::kF32GemmBPanels, kF32GemmBType, kF32GemmBVersion,
                          std::move(*l), isa, /*lossless=*/true, static_cast<int64_t>(row->nr),
                          row->name);
  f.b_trans = trans;
  c.description += " (NR=" + std::to_string(row->nr) + ")";
  c.form = std::move(f);
  out->push_back(std::move(c));
}

void ConvCandidates(const Shape& shape, const WeightUseInfo& use, IsaLevel isa,
                    std::vector<WeightFormCandidate>* out) {
  WeightFormCandidate c;
  c.description = "f32 filter panels (GEMM A operand)";
  if (shape.size() < 3 || use.group <= 0 || shape[0] % use.group != 0) {
    c.rejected = "filter " + Dims(shape) + " does not fit group " + std::to_string(use.group);
    out->push_back(std::move(c));
    return;
  }
  const ConvWeightMode mode = ChooseConvWeightMode(shape, use.group, use.unit_strides_pads);
  if (mode == ConvWeightMode::kDepthwise) {
    c.rejected = "depthwise filters are read in place by the depthwise kernel (no packed form)";
    out->push_back(std::move(c));
    return;
  }
  const int64_t mg = shape[0] / use.group;
  const kernels::F32GemmKernel* row = RowForM(isa, mg);
  if (row == nullptr) {
    c.rejected = std::string("no f32 GEMM microkernel for ") + IsaArchitecture(isa);
    out->push_back(std::move(c));
    return;
  }
  const int64_t mr = static_cast<int64_t>(row->mr);
  c.description += std::string(" for ") + row->name + " (MR=" + std::to_string(mr) + ", " +
                   (mode == ConvWeightMode::kTapMajor ? "tap-major" : "channel-major") + ")";
  if (use.group > 1 && mg % mr != 0) {
    c.rejected = "per-group panels of " + std::to_string(mg) + " rows are padded to MR=" +
                 std::to_string(mr) + " inside each group, which a layout cannot express "
                 "(packed at load, not cached)";
    out->push_back(std::move(c));
    return;
  }
  auto l = ConvFilterPanels(shape, use.group, mr, mode == ConvWeightMode::kTapMajor);
  if (!l.ok()) {
    c.rejected = "layout not expressible: " + l.status().message();
    out->push_back(std::move(c));
    return;
  }
  WeightForm f = MakeForm(WeightFormKind::kF32ConvAPanels, kF32ConvAType, kF32ConvAVersion,
                          std::move(*l), isa, /*lossless=*/true, mr, row->name);
  f.conv_mode = mode;
  f.group = use.group;
  c.form = std::move(f);
  out->push_back(std::move(c));
}

bool IsNBitsUse(WeightUse u) {
  return u == WeightUse::kNBitsCodes || u == WeightUse::kNBitsScales ||
         u == WeightUse::kNBitsZeroPoints;
}

// A MatMulNBits plane, row-major [rows][cols][unit] in the source's shape, as 16-row panels
// (kernels/nbits/nbits_pack.h): unit (row, c) moves to ((row / 16) * cols + c) * 16 + row % 16.
// Shapes: [rows, cols, unit], [rows, cols] (unit 1) or [rows * cols] (unit 1).
Expected<Layout> NBitsPanelLayout(const Shape& shape, Encoding enc, int64_t rows, int64_t cols,
                                  int64_t unit) {
  const int64_t R = kernels::kNBitsRows;
  const int64_t padded_rows = (rows + R - 1) / R * R;
  LayoutSpec s;
  s.shape = shape;
  s.encoding = enc;
  s.padded = shape;
  if (shape.size() == 3 && shape[0] == rows && shape[1] == cols && shape[2] == unit) {
    s.padded[0] = padded_rows;
    s.levels = {{0, R, cols * R * unit}, {0, 1, unit}, {1, 1, R * unit}, {2, 1, 1}};
  } else if (shape.size() == 2 && unit == 1 && shape[0] == rows && shape[1] == cols) {
    s.padded[0] = padded_rows;
    s.levels = {{0, R, cols * R}, {0, 1, 1}, {1, 1, R}};
  } else if (shape.size() == 1 && unit == 1 && shape[0] == rows * cols) {
    s.padded[0] = padded_rows * cols;
    s.levels = {{0, R * cols, R * cols}, {0, cols, 1}, {0, 1, R}};
  } else {
    return InvalidArgument("plane " + ShapeToString(shape) + " is not [" + std::to_string(rows) +
                           "," + std::to_string(cols) + (unit > 1 ? "," + std::to_string(unit) : "") +
                           "] or its flattening");
  }
  return Layout::Make(s);
}

void NBitsCandidate(DType dtype, const Shape& shape, const WeightUseInfo& use, IsaLevel isa,
                    std::vector<WeightFormCandidate>* out) {
  WeightFormCandidate c;
  // The row the operator runs on this ISA level (the panels are the same for every row).
  const char* kernel = kernels::NBitsGemmKernelForIsa(TableIsa(isa), use.nbits_q8).name;
  const char* type = use.use == WeightUse::kNBitsCodes    ? kNBitsCodesType
                     : use.use == WeightUse::kNBitsScales ? kNBitsScalesType
                                                          : kNBitsZeroPointsType;
  c.description = std::string("MatMulNBits plane in 16-row panels (") + type + ") for " + kernel;
  const bool u8 = dtype == DType::kUInt8, f32 = dtype == DType::kFloat32;
  if (!(u8 && use.use != WeightUse::kNBitsScales) && !(f32 && use.use != WeightUse::kNBitsCodes)) {
    c.rejected = std::string("stored element type ") + DTypeName(dtype) +
                 " (codes and packed zero points are uint8, scales float32; other scale types "
                 "are widened at load, not cached)";
    out->push_back(std::move(c));
    return;
  }
  const int64_t unit = use.use == WeightUse::kNBitsCodes ? use.nbits_unit : 1;
  auto l = NBitsPanelLayout(shape, u8 ? Encoding::kU8 : Encoding::kF32, use.nbits_rows,
                            use.nbits_cols, unit);
  if (!l.ok()) {
    c.rejected = "layout not expressible: " + l.status().message();
    out->push_back(std::move(c));
    return;
  }
  WeightForm f = MakeForm(WeightFormKind::kNBitsPanels, type, kNBitsVersion, std::move(*l), isa,
                          /*lossless=*/true, kernels::kNBitsRows, kernel);
  f.nbits_rows = use.nbits_rows;
  f.nbits_cols = use.nbits_cols;
  f.nbits_unit_bytes = unit * static_cast<int64_t>(DTypeSize(dtype));
  c.form = std::move(f);
  out->push_back(std::move(c));
}

// 64-byte aligned zeroed buffer of `n` bytes owned by the returned PackedWeight (large ones
// fresh huge pages, base/page_memory.h: no memset pass, few page faults).
PackedWeight AllocPacked(size_t n) {
  void* p = AllocZeroedPages(n);
  if (p == nullptr) throw std::bad_alloc();
  PackedWeight w;
  w.data = static_cast<const uint8_t*>(p);
  w.size = n;
  w.keep_alive = std::shared_ptr<const void>(
      p, [n](const void* q) { FreeZeroedPages(const_cast<void*>(q), n); });
  return w;
}

}  // namespace

const char* F32GemmRowNameForM(IsaLevel isa, int64_t m) {
  const kernels::F32GemmKernel* k = RowForM(isa, m);
  return k ? k->name : kernels::PortableF32GemmKernel().name;
}

const char* F32GemmRowNameForPanels(IsaLevel isa, int64_t m, int64_t n) {
  const kernels::F32GemmKernel* first = FirstRow(isa);
  return first ? kernels::F32GemmRowForPanels(*first, static_cast<size_t>(m),
                                              static_cast<size_t>(n)).name
               : kernels::PortableF32GemmKernel().name;
}

const char* IsaArchitecture(IsaLevel isa) {
  switch (isa) {
    case IsaLevel::kAvx512: return "x86_64-avx512";
    case IsaLevel::kAvx2: return "x86_64-avx2";
    case IsaLevel::kBaseline: return "x86_64-baseline";
  }
  return "x86_64-baseline";
}

std::optional<IsaLevel> IsaFromArchitecture(std::string_view name) {
  if (name == "native") return HostIsa();
  for (IsaLevel l : {IsaLevel::kAvx512, IsaLevel::kAvx2, IsaLevel::kBaseline})
    if (name == IsaArchitecture(l)) return l;
  return std::nullopt;
}

IsaLevel HostIsa() {
  const std::string_view isa = kernels::DefaultF32GemmKernel().isa;
  if (isa == "avx512") return IsaLevel::kAvx512;
  if (isa == "avx2") return IsaLevel::kAvx2;
  return IsaLevel::kBaseline;
}

bool IsaSupported(IsaLevel isa) {
  for (const auto& k : kernels::F32GemmKernels())
    if (std::strcmp(k.isa, TableIsa(isa)) == 0 && k.supported()) return true;
  return false;
}

const char* WeightProfileName(WeightProfile p) {
  return p == WeightProfile::kCompact ? "compact" : "exact";
}

std::optional<WeightProfile> WeightProfileFromName(std::string_view name) {
  if (name == "exact") return WeightProfile::kExact;
  if (name == "compact") return WeightProfile::kCompact;
  return std::nullopt;
}

ConvWeightMode ChooseConvWeightMode(const Shape& w, int64_t group, bool unit_strides_pads) {
  const int rank = static_cast<int>(w.size());
  const int64_t mg = w[0] / group;
  if (rank <= 4 && w[1] == 1 && mg == 1) return ConvWeightMode::kDepthwise;
  bool one = true;
  for (size_t i = 2; i < w.size(); ++i) one = one && w[i] == 1;
  if (one && unit_strides_pads) return ConvWeightMode::kPointwise;
  if (rank > 4) return ConvWeightMode::kIm2colNd;
  return w[1] >= kConvTapMajorMinChannels ? ConvWeightMode::kTapMajor : ConvWeightMode::kPacked;
}

std::vector<WeightFormCandidate> WeightFormCandidates(DType dtype, const Shape& shape,
                                                      const WeightUseInfo& use, IsaLevel isa,
                                                      WeightProfile profile) {
  std::vector<WeightFormCandidate> out;
  if (IsNBitsUse(use.use)) {
    NBitsCandidate(dtype, shape, use, isa, &out);
    return out;
  }
  if (dtype != DType::kFloat32) {
    WeightFormCandidate c;
    c.description = "packed forms";
    c.rejected = std::string("stored element type ") + DTypeName(dtype) +
                 " is computed through f32 conversion at run time (only f32 weights are packed)";
    out.push_back(std::move(c));
    return out;
  }
  for (int64_t d : shape)
    if (d <= 0) {
      WeightFormCandidate c;
      c.description = "packed forms";
      c.rejected = "weight " + Dims(shape) + " is empty";
      out.push_back(std::move(c));
      return out;
    }
  Q4Candidate(shape, use, isa, profile, &out);
  S8Candidate(shape, use, isa, profile, &out);
  if (use.use == WeightUse::kConvFilter) ConvCandidates(shape, use, isa, &out);
  else GemmCandidates(shape, use, isa, &out);
  return out;
}

std::optional<WeightForm> ResolveWeightForm(DType dtype, const Shape& shape,
                                            const WeightUseInfo& use, IsaLevel isa,
                                            WeightProfile profile) {
  for (auto& c : WeightFormCandidates(dtype, shape, use, isa, profile))
    if (c.rejected.empty() && c.form) return std::move(c.form);
  return std::nullopt;
}

std::optional<int64_t> KnownWeightFormVersion(std::string_view type_name) {
  if (type_name == kF32GemmBType) return kF32GemmBVersion;
  if (type_name == kF32ConvAType) return kF32ConvAVersion;
  if (type_name == kQ4_0GemmBType) return kQ4_0GemmBVersion;
  if (type_name == kS8GemmBType) return kS8GemmBVersion;
  if (type_name == kNBitsCodesType || type_name == kNBitsScalesType ||
      type_name == kNBitsZeroPointsType)
    return kNBitsVersion;
  return std::nullopt;
}

Expected<PackedWeight> PackWeightForm(const Tensor& weight, const WeightForm& form) {
  if (form.kind == WeightFormKind::kNBitsPanels) {
    if (weight.shape() != form.layout.shape() ||
        form.nbits_rows * form.nbits_cols * form.nbits_unit_bytes !=
            static_cast<int64_t>(weight.nbytes()))
      return InvalidArgument("packing form " + form.type_name + ": plane " +
                             Dims(weight.shape()) + " does not hold " +
                             std::to_string(form.nbits_rows) + " rows of " +
                             std::to_string(form.nbits_cols) + " units");
    const Tensor w = weight.Contiguous();
    PackedWeight out = AllocPacked(static_cast<size_t>(form.bytes()));
    if (kernels::NBitsPanelBytes(static_cast<size_t>(form.nbits_rows),
                                 static_cast<size_t>(form.nbits_cols),
                                 static_cast<size_t>(form.nbits_unit_bytes)) != out.size)
      return Internal("form " + form.type_name + " of " + Dims(weight.shape()) +
                      ": layout holds " + std::to_string(out.size) + " bytes, panels need " +
                      std::to_string(kernels::NBitsPanelBytes(
                          static_cast<size_t>(form.nbits_rows), static_cast<size_t>(form.nbits_cols),
                          static_cast<size_t>(form.nbits_unit_bytes))));
    kernels::PackNBitsRowsToPanels(static_cast<size_t>(form.nbits_rows),
                                   static_cast<size_t>(form.nbits_cols),
                                   static_cast<size_t>(form.nbits_unit_bytes),
                                   static_cast<const uint8_t*>(w.raw_data()),
                                   const_cast<uint8_t*>(out.data));
    return out;
  }
  if (weight.dtype() != DType::kFloat32)
    return InvalidArgument(std::string("packing form ") + form.type_name + ": weight is " +
                           DTypeName(weight.dtype()) + ", expected float32");
  if (weight.shape() != form.layout.shape())
    return InvalidArgument("packing form " + form.type_name + ": weight shape " +
                           Dims(weight.shape()) + " differs from the form's " +
                           Dims(form.layout.shape()));
  const Tensor w = weight.Contiguous();
  const float* src = w.data<float>();
  const Shape& s = weight.shape();
  PackedWeight out = AllocPacked(static_cast<size_t>(form.bytes()));
  float* dst = reinterpret_cast<float*>(const_cast<uint8_t*>(out.data));
  const size_t panel = static_cast<size_t>(form.panel);
  switch (form.kind) {
    case WeightFormKind::kF32GemmBPanels: {
      const size_t kk = static_cast<size_t>(form.b_trans ? s[1] : s[0]),
                   nn = static_cast<size_t>(form.b_trans ? s[0] : s[1]);
      if (kernels::F32PanelsSize(panel, kk, nn) * sizeof(float) != out.size)
        return Internal("form " + form.type_name + " of " + Dims(s) + ": layout holds " +
                        std::to_string(out.size) + " bytes, panels need " +
                        std::to_string(kernels::F32PanelsSize(panel, kk, nn) * sizeof(float)));
      if (!form.b_trans) {
        const size_t K = static_cast<size_t>(s[0]), N = static_cast<size_t>(s[1]);
        kernels::PackF32GemmKnToPanelsNr(panel, K, N, src, N, dst);
      } else {
        const size_t N = static_cast<size_t>(s[0]), K = static_cast<size_t>(s[1]);
        kernels::PackF32GemmNkToPanelsNr(panel, K, N, src, K, dst);
      }
      break;
    }
    case WeightFormKind::kF32ConvAPanels: {
      const int64_t group = form.group, mg = s[0] / group, k = w.numel() / s[0], c = s[1];
      const size_t per_group = kernels::F32PanelsSize(panel, static_cast<size_t>(k),
                                                      static_cast<size_t>(mg));
      if (per_group * static_cast<size_t>(group) * sizeof(float) != out.size)
        return Internal("form " + form.type_name + " of " + Dims(s) + ": layout holds " +
                        std::to_string(out.size) + " bytes, panels need " +
                        std::to_string(per_group * static_cast<size_t>(group) * sizeof(float)));
      for (int64_t g = 0; g < group; ++g) {
        const float* wg = src + g * mg * k;
        float* dg = dst + static_cast<size_t>(g) * per_group;
        if (form.conv_mode == ConvWeightMode::kTapMajor)
          kernels::PackF32ConvFiltersTapMajorToPanelsMr(panel, static_cast<size_t>(mg),
                                                        static_cast<size_t>(c),
                                                        static_cast<size_t>(k / c), wg, dg);
        else
          kernels::PackF32GemmMkToPanelsMr(panel, static_cast<size_t>(mg), static_cast<size_t>(k),
                                           wg, static_cast<size_t>(k), dg);
      }
      break;
    }
    case WeightFormKind::kS8GemmBPerChannel: {
      const size_t K = static_cast<size_t>(form.b_trans ? s[1] : s[0]),
                   N = static_cast<size_t>(form.b_trans ? s[0] : s[1]);
      const size_t npad = (N + panel - 1) / panel * panel;
      if (static_cast<int64_t>(npad * K) != form.layout.StorageBytes() ||
          static_cast<int64_t>(npad * sizeof(float)) != form.extra_bytes)
        return Internal("form " + form.type_name + " of " + Dims(s) + ": layout holds " +
                        std::to_string(form.layout.StorageBytes()) + " bytes, panels need " +
                        std::to_string(npad * K));
      kernels::QuantizeF32ToS8PerChannelPanels(
          panel, K, N, src, form.b_trans, reinterpret_cast<int8_t*>(const_cast<uint8_t*>(out.data)),
          reinterpret_cast<float*>(const_cast<uint8_t*>(out.data) + form.extra_offset));
      break;
    }
    case WeightFormKind::kNBitsPanels:  // packed above
      break;
    case WeightFormKind::kQ4_0GemmB: {
      const size_t K = static_cast<size_t>(s[0]), N = static_cast<size_t>(s[1]);
      if (kernels::Q4_0PackedBytes(N, K, panel) != out.size)
        return Internal("form " + form.type_name + " of " + Dims(s) + ": layout holds " +
                        std::to_string(out.size) + " bytes, q4_0 panels need " +
                        std::to_string(kernels::Q4_0PackedBytes(N, K, panel)));
      kernels::PackF32KnToQ4_0Panels(
          K, N, src, N, panel, kernels::Q4ScaleSearch::kMinError, const_cast<uint8_t*>(out.data),
          kernels::ParallelPackThreads(K * N * sizeof(float), (N + panel - 1) / panel));
      break;
    }
  }
  return out;
}

vtensor::StructTypeProto StructTypeForForm(const WeightForm& form) {
  vtensor::StructTypeProto t = StructTypeForLayout(form.layout, form.type_name, form.format_version);
  if (form.extra_bytes > 0) {
    auto* f = t.add_fields();
    f->set_name("scales");
    f->set_encoding("f32");
    f->add_shape()->set_dim_value(form.extra_bytes / static_cast<int64_t>(sizeof(float)));
    f->set_offset(form.extra_offset);
    f->set_alignment(64);
    t.set_byte_size(form.bytes());
    t.clear_decoder();  // the layout's decoder would ignore the scales
  }
  return t;
}

}  // namespace vt
