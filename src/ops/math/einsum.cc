// Einsum-12 (ONNX Operators.md; numpy.einsum semantics): explicit ("ij,jk->ik") and implicit
// ("ij,jk", output = ellipsis dims then the labels used once, in alphabetical order) forms,
// repeated labels within one operand (diagonals), "..." broadcasting and any number of
// operands.
//
// Evaluation: each operand's diagonals become stride views; labels no longer needed are summed
// out as early as possible; operands are then contracted left to right, each step a batched
// GEMM over [batch, left, contracted] x [batch, contracted, right]; the result is transposed
// to the output order. Size-1 dims broadcast against any size for the same label.
#include <algorithm>
#include <map>
#include <set>

#include "ops/common/op_util.h"
#include "ops/common/reduce_dtype.h"

namespace vt::ops {
namespace {

constexpr int kEllipsisBase = 52;  // label ids: 0-25 'a'-'z', 26-51 'A'-'Z', then "..." dims

struct Term {
  std::vector<int> labels;  // one per dim once ellipsis is expanded
};

struct Labeled {
  Tensor t;  // any strided layout
  std::vector<int> labels;
};

int LabelId(char c) {
  if (c >= 'a' && c <= 'z') return c - 'a';
  if (c >= 'A' && c <= 'Z') return 26 + (c - 'A');
  return -1;
}

// Parses one subscript term for an operand of `rank` dims ("..." expands to the trailing
// `ellipsis_rank` ellipsis labels, right-aligned). rank < 0 means "output": the ellipsis takes
// all `ellipsis_rank` dims.
Expected<Term> ParseTerm(const std::string& s, int64_t rank, int ellipsis_rank, bool* has_ellipsis) {
  Term t;
  int letters = 0;
  for (char c : s)
    if (c != '.') ++letters;
  *has_ellipsis = false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '.') {
      if (*has_ellipsis || s.compare(i, 3, "...") != 0)
        return InvalidArgument("malformed ellipsis in term '" + s + "'");
      *has_ellipsis = true;
      const int64_t n = rank < 0 ? ellipsis_rank : rank - letters;
      if (n < 0 || n > ellipsis_rank)
        return InvalidArgument("term '" + s + "' does not match an input of rank " +
                               std::to_string(rank));
      for (int64_t k = 0; k < n; ++k)
        t.labels.push_back(kEllipsisBase + ellipsis_rank - static_cast<int>(n) + static_cast<int>(k));
      i += 2;
      continue;
    }
    const int id = LabelId(s[i]);
    if (id < 0) return InvalidArgument(std::string("invalid label '") + s[i] + "'");
    t.labels.push_back(id);
  }
  if (rank >= 0 && static_cast<int64_t>(t.labels.size()) != rank)
    return InvalidArgument("term '" + s + "' has " + std::to_string(t.labels.size()) +
                           " labels for an input of rank " + std::to_string(rank));
  return t;
}

// Merges repeated labels of one operand into a diagonal view (strides add up).
Expected<Labeled> Diagonal(const Tensor& t, const std::vector<int>& labels) {
  Labeled out;
  Shape shape;
  std::vector<int64_t> strides;
  for (size_t d = 0; d < labels.size(); ++d) {
    auto it = std::find(out.labels.begin(), out.labels.end(), labels[d]);
    if (it == out.labels.end()) {
      out.labels.push_back(labels[d]);
      shape.push_back(t.dim(static_cast<int>(d)));
      strides.push_back(t.layout().strides()[d]);
      continue;
    }
    const size_t k = static_cast<size_t>(it - out.labels.begin());
    if (shape[k] != t.dim(static_cast<int>(d)))
      return InvalidArgument("repeated label with different sizes " + std::to_string(shape[k]) +
                             " and " + std::to_string(t.dim(static_cast<int>(d))));
    strides[k] += t.layout().strides()[d];
  }
  VT_ASSIGN_OR_RETURN(Layout l, Layout::Strided(shape, strides, t.layout().offset()));
  out.t = t.WithLayout(l);
  return out;
}

// Transposed view with dims in `order` (labels of x, each once).
Labeled Permute(const Labeled& x, const std::vector<int>& order) {
  std::vector<int64_t> perm;
  perm.reserve(order.size());
  for (int l : order)
    perm.push_back(std::find(x.labels.begin(), x.labels.end(), l) - x.labels.begin());
  return {x.t.WithLayout(*x.t.layout().Transpose(perm)), order};
}

// Sums the dims whose labels are in `drop`; the result is contiguous.
Labeled SumOut(const Labeled& x, const std::set<int>& drop) {
  std::vector<int> keep, gone;
  for (int l : x.labels) (drop.count(l) ? gone : keep).push_back(l);
  if (gone.empty()) return x;
  std::vector<int> order = keep;
  order.insert(order.end(), gone.begin(), gone.end());
  Tensor c = Permute(x, order).t.Contiguous();
  Shape out_shape(c.shape().begin(), c.shape().begin() + static_cast<long>(keep.size()));
  const int64_t rows = NumElements(out_shape);
  const int64_t n = rows > 0 ? c.numel() / std::max<int64_t>(rows, 1) : 0;
  Tensor out = Tensor::Empty(c.dtype(), out_shape);
  (void)DispatchElem<kSetFloatInt>(c.dtype(), [&](auto tag) -> Status {
    using T = decltype(tag);
    const T* p = c.data<T>();
    T* q = out.mutable_data<T>();
    for (int64_t r = 0; r < rows; ++r) {
      T s = T(0);
      for (int64_t k = 0; k < n; ++k) s = static_cast<T>(s + p[r * n + k]);
      q[r] = s;
    }
    return Status::Ok();
  });
  return {out, keep};
}

// View of x with each label broadcast (stride 0) to sizes[label] where x has size 1.
Labeled BroadcastLabels(const Labeled& x, const std::map<int, int64_t>& sizes) {
  Shape shape = x.t.shape();
  std::vector<int64_t> strides = x.t.layout().strides();
  bool changed = false;
  for (size_t d = 0; d < x.labels.size(); ++d) {
    const int64_t want = sizes.at(x.labels[d]);
    if (shape[d] == 1 && want != 1) {
      shape[d] = want;
      strides[d] = 0;
      changed = true;
    }
  }
  if (!changed) return x;
  return {x.t.WithLayout(*Layout::Strided(shape, strides, x.t.layout().offset())), x.labels};
}

int64_t SizeOf(const std::vector<int>& labels, const std::map<int, int64_t>& sizes) {
  int64_t n = 1;
  for (int l : labels) n *= sizes.at(l);
  return n;
}

// Contracts a and b over the labels they share that are not in `keep`.
Labeled Contract(const Labeled& a0, const Labeled& b0, const std::set<int>& keep,
                 const std::map<int, int64_t>& sizes) {
  const Labeled a = BroadcastLabels(a0, sizes), b = BroadcastLabels(b0, sizes);
  std::vector<int> batch, left, contract, right;
  for (int l : a.labels) {
    const bool in_b = std::count(b.labels.begin(), b.labels.end(), l) > 0;
    if (!in_b) left.push_back(l);
    else if (keep.count(l)) batch.push_back(l);
    else contract.push_back(l);
  }
  for (int l : b.labels)
    if (!std::count(a.labels.begin(), a.labels.end(), l)) right.push_back(l);
  std::vector<int> ao = batch, bo = batch, co = batch;
  ao.insert(ao.end(), left.begin(), left.end());
  ao.insert(ao.end(), contract.begin(), contract.end());
  bo.insert(bo.end(), contract.begin(), contract.end());
  bo.insert(bo.end(), right.begin(), right.end());
  co.insert(co.end(), left.begin(), left.end());
  co.insert(co.end(), right.begin(), right.end());
  Tensor at = Permute(a, ao).t.Contiguous(), bt = Permute(b, bo).t.Contiguous();
  const int64_t nb = SizeOf(batch, sizes), nl = SizeOf(left, sizes);
  const int64_t nk = SizeOf(contract, sizes), nr = SizeOf(right, sizes);
  Shape cs;
  for (int l : co) cs.push_back(sizes.at(l));
  Tensor c = Tensor::Empty(at.dtype(), cs);
  (void)DispatchElem<kSetFloatInt>(at.dtype(), [&](auto tag) -> Status {
    using T = decltype(tag);
    const T* pa = at.data<T>();
    const T* pb = bt.data<T>();
    T* pc = c.mutable_data<T>();
    for (int64_t bi = 0; bi < nb; ++bi) {
      const T* A = pa + bi * nl * nk;
      const T* B = pb + bi * nk * nr;
      T* C = pc + bi * nl * nr;
      for (int64_t i = 0; i < nl; ++i) {
        T* row = C + i * nr;
        for (int64_t j = 0; j < nr; ++j) row[j] = T(0);
        for (int64_t k = 0; k < nk; ++k) {
          const T av = A[i * nk + k];
          const T* brow = B + k * nr;
#pragma omp simd
          for (int64_t j = 0; j < nr; ++j) row[j] = static_cast<T>(row[j] + av * brow[j]);
        }
      }
    }
    return Status::Ok();
  });
  return {c, co};
}

Status EinsumCompute(KernelContext& ctx) {
  std::string eq;
  for (char c : ctx.node().GetString("equation", "")) if (c != ' ') eq.push_back(c);
  if (eq.empty()) return ctx.Error("attribute equation is required");
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t s = 0;;) {
    size_t e = lhs.find(',', s);
    terms.push_back(lhs.substr(s, e == std::string::npos ? std::string::npos : e - s));
    if (e == std::string::npos) break;
    s = e + 1;
  }
  if (terms.size() != ctx.num_inputs())
    return ctx.Error("equation has " + std::to_string(terms.size()) + " operands, node has " +
                     std::to_string(ctx.num_inputs()) + " inputs");
  std::vector<Tensor> ins;
  int ellipsis_rank = 0;
  DType dt = DType::kUndefined;
  for (size_t i = 0; i < terms.size(); ++i) {
    VT_ASSIGN_OR_RETURN(Tensor t, ctx.RequireTensor(i));
    if (i == 0) dt = t.dtype();
    else if (t.dtype() != dt) return ctx.Error("inputs must share one dtype");
    int letters = 0;
    for (char c : terms[i]) letters += c != '.';
    if (terms[i].find("...") != std::string::npos)
      ellipsis_rank = std::max(ellipsis_rank, t.rank() - letters);
    ins.push_back(WidenForCompute(t));
  }
  if (!IsFloatDType(dt) && !IsIntegerDType(dt))
    return ctx.Unsupported(std::string("dtype ") + DTypeName(dt) + " not supported");

  std::vector<Labeled> ops;
  std::map<int, int64_t> sizes;
  std::map<int, int> uses;
  for (size_t i = 0; i < terms.size(); ++i) {
    bool ell = false;
    auto term = ParseTerm(terms[i], ins[i].rank(), ellipsis_rank, &ell);
    if (!term.ok()) return ctx.Annotate(term.take_status());
    for (size_t d = 0; d < term->labels.size(); ++d) {
      const int l = term->labels[d];
      const int64_t n = ins[i].dim(static_cast<int>(d));
      auto it = sizes.find(l);
      if (it == sizes.end() || it->second == 1) sizes[l] = n;
      else if (n != 1 && n != it->second)
        return ctx.Error("label sizes " + std::to_string(it->second) + " and " +
                         std::to_string(n) + " do not match");
      if (l < kEllipsisBase) ++uses[l];
    }
    auto diag = Diagonal(ins[i], term->labels);
    if (!diag.ok()) return ctx.Annotate(diag.take_status());
    ops.push_back(*diag);
  }

  std::vector<int> out_labels;
  if (arrow != std::string::npos) {
    bool ell = false;
    auto term = ParseTerm(eq.substr(arrow + 2), -1, ellipsis_rank, &ell);
    if (!term.ok()) return ctx.Annotate(term.take_status());
    out_labels = term->labels;
    for (int l : out_labels) {
      if (!sizes.count(l)) return ctx.Error("output label does not appear in any input");
      if (std::count(out_labels.begin(), out_labels.end(), l) > 1)
        return ctx.Error("output label repeated");
    }
  } else {
    for (int k = 0; k < ellipsis_rank; ++k) out_labels.push_back(kEllipsisBase + k);
    // Alphabetical as numpy: upper case sorts before lower case.
    std::vector<std::pair<char, int>> once;
    for (const auto& [l, n] : uses)
      if (n == 1) once.emplace_back(l < 26 ? static_cast<char>('a' + l) : static_cast<char>('A' + l - 26), l);
    std::sort(once.begin(), once.end());
    for (const auto& p : once) out_labels.push_back(p.second);
  }

  // Labels still needed after operand i: the output's and those of operands > i.
  auto needed_after = [&](size_t i) {
    std::set<int> s(out_labels.begin(), out_labels.end());
    for (size_t j = i + 1; j < ops.size(); ++j) s.insert(ops[j].labels.begin(), ops[j].labels.end());
    return s;
  };
  auto drop_unneeded = [&](const Labeled& x, const std::set<int>& keep) {
    std::set<int> drop;
    for (int l : x.labels) if (!keep.count(l)) drop.insert(l);
    return SumOut(x, drop);
  };
  Labeled cur = ops[0];
  for (size_t i = 1; i < ops.size(); ++i) {
    std::set<int> keep = needed_after(i);
    std::set<int> keep_cur = keep, keep_next = keep;
    keep_cur.insert(ops[i].labels.begin(), ops[i].labels.end());
    keep_next.insert(cur.labels.begin(), cur.labels.end());
    cur = Contract(drop_unneeded(cur, keep_cur), drop_unneeded(ops[i], keep_next), keep, sizes);
  }
  cur = drop_unneeded(cur, std::set<int>(out_labels.begin(), out_labels.end()));
  cur = BroadcastLabels(cur, sizes);
  Tensor result = Permute(cur, out_labels).t;
  Tensor y = AllocComputeOutput(ctx, 0, dt, result.shape());
  CopyToContiguous(result, y.raw_mutable_data());
  FinishOutput(ctx, 0, dt, y);
  return Status::Ok();
}

VT_REGISTER_OP("", "Einsum", 12, kMaxOpset, EinsumCompute);

}  // namespace
}  // namespace vt::ops
