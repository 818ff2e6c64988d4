// Instruction-set levels of the CPU kernels: the device a weight form is packed for
// (docs/weight-forms.md, "Devices").
//
// One table lists the levels, best first, with the name a compiled entry's
// DeviceProto.architecture carries and the ISA name the kernel tables (src/kernels/<family>/)
// give their rows. Every lookup below loops over it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace vt {

enum class IsaLevel : uint8_t { kBaseline, kAvx2, kAvx512 };

struct IsaInfo {
  IsaLevel level;
  const char* architecture;  // DeviceProto.architecture: "x86_64-avx512"
  const char* kernel_isa;    // the `isa` of its rows in the kernel tables: "avx512", "portable"
};

// Every level, best first.
std::span<const IsaInfo> IsaLevels();
// "x86_64-baseline", "x86_64-avx2", "x86_64-avx512".
const char* IsaArchitecture(IsaLevel isa);
// Inverse of IsaArchitecture; "native" gives HostIsa(). nullopt for other names.
std::optional<IsaLevel> IsaFromArchitecture(std::string_view name);
// The kernel tables' name of the level: "avx512", "avx2", "portable".
const char* IsaKernelName(IsaLevel isa);
// The best level this CPU (and OS) supports; the kernels' default dispatch uses it.
IsaLevel HostIsa();
// True when this CPU can run kernels of `isa`.
bool IsaSupported(IsaLevel isa);

}  // namespace vt
