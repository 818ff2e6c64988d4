// Run-time dispatch shared by every kernel family (one table per family drives
// dispatch, tests and benchmarks; the ISA is chosen once at run time from CPU features).
//
// The feature checks match the flags CMakeLists.txt compiles each ISA-specific file with, so a
// row is only called where all the instructions its file may contain exist. libgcc's detection
// also checks that the OS saves the vector state (XCR0).
#pragma once

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <cstdlib>
#include <span>
#include <string_view>

namespace vt::kernels {

// *_avx512.cc: AVX-512 F, BW, VL, DQ and FMA.
inline bool CpuHasAvx512() {
#if defined(__x86_64__) || defined(__i386__)
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

// *_avx512vnni.cc: the AVX-512 set plus VNNI.
inline bool CpuHasAvx512Vnni() {
#if defined(__x86_64__) || defined(__i386__)
  return CpuHasAvx512() && __builtin_cpu_supports("avx512vnni");
#else
  return false;
#endif
}

// *_avx2.cc: AVX2 and FMA.
inline bool CpuHasAvx2() {
#if defined(__x86_64__) || defined(__i386__)
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

// AVX2 rows whose file is also compiled with -mf16c (f16 <-> f32 conversions). F16C is read
// from CPUID leaf 1 (ECX bit 29): not every compiler's __builtin_cpu_supports knows "f16c".
inline bool CpuHasAvx2F16c() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return CpuHasAvx2() && __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & bit_F16C) != 0;
#else
  return false;
#endif
}

// For portable rows.
inline bool AlwaysSupported() { return true; }

// The row a family dispatches to: the row named by environment variable `env_var` (a row name
// or an ISA name such as "avx2", first matching row) when that row is supported, else the first
// supported row of `rows` (ordered fastest first), else the last row (portable by convention).
// Row needs `name`, `isa` and `supported()`.
template <typename Row>
const Row& ChooseKernelRow(std::span<const Row> rows, const char* env_var) {
  if (const char* env = std::getenv(env_var); env != nullptr && *env != '\0') {
    const std::string_view want(env);
    for (const auto& k : rows)
      if ((want == k.name || want == k.isa) && k.supported()) return k;
  }
  for (const auto& k : rows)
    if (k.supported()) return k;
  return rows.back();
}

// Order of the ISA names rows carry: "portable" (and any other name) 0, "avx2" 1, "avx512" and
// "avx512vnni" 2.
inline int KernelIsaLevel(std::string_view isa) {
  return isa == "avx512vnni" || isa == "avx512" ? 2 : isa == "avx2" ? 1 : 0;
}

// The row for a session capped at ISA `cap` (a session's --arch): ChooseKernelRow's row when its
// ISA is at or below the cap, else the first supported row at or below it, else the last row.
template <typename Row>
const Row& ChooseKernelRowForIsa(std::span<const Row> rows, std::string_view cap,
                                 const char* env_var) {
  const Row& def = ChooseKernelRow(rows, env_var);
  if (KernelIsaLevel(def.isa) <= KernelIsaLevel(cap)) return def;
  for (const auto& k : rows)
    if (KernelIsaLevel(k.isa) <= KernelIsaLevel(cap) && k.supported()) return k;
  return rows.back();
}

}  // namespace vt::kernels
