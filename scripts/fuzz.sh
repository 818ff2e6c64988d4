#!/bin/bash
# Runs vtensor's libFuzzer targets (fuzz/*_fuzz.cc) for a given time each.
# Builds them in build-fuzz/ with Debian's clang-14 (-fsanitize=fuzzer,address,undefined).
# Seeds: fuzz/corpus/<target>/ (read-only); new inputs go to a temporary directory; crashes are
# written to fuzz/artifacts/. Exit 1 when a target finds a crash.
#
# usage: scripts/fuzz.sh [SECONDS_PER_TARGET (default 60)] [TARGET...]
#        TARGET: layout_text, model_check (default: both)
set -euo pipefail
secs=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(layout_text model_check)
root=$(cd "$(dirname "$0")/.." && pwd)
build=${VT_FUZZ_BUILD:-$root/build-fuzz}

mkdir -p "$build"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DVTENSOR_FUZZ=ON -DVTENSOR_BUILD_TESTS=OFF > "$build/cmake.log" 2>&1 ||
  { cat "$build/cmake.log"; exit 2; }
ninja -C "$build" -j"${VT_FUZZ_JOBS:-2}" $(printf 'vt_fuzz_%s ' "${targets[@]}")

mkdir -p "$root/fuzz/artifacts"
status=0
for t in "${targets[@]}"; do
  work=$(mktemp -d)
  echo "== $t: ${secs}s"
  # -rss_limit_mb: a corrupt model must not make the checker allocate beyond this.
  if ! "$build/vt_fuzz_$t" -max_total_time="$secs" -rss_limit_mb=4096 -timeout=30 \
      -print_final_stats=1 -artifact_prefix="$root/fuzz/artifacts/$t-" \
      "$work" "$root/fuzz/corpus/$t" 2>&1 | tee "$work.log" | grep -E '^#[0-9]+.*(DONE|pulse)|stat::|ERROR|SUMMARY'; then
    :
  fi
  if grep -qE 'ERROR: (libFuzzer|AddressSanitizer|UndefinedBehaviorSanitizer)|runtime error' "$work.log"; then
    echo "== $t: FOUND A CRASH (see $work.log and fuzz/artifacts/)"
    status=1
  else
    echo "== $t: no finding; $(grep -m1 -o 'stat::number_of_executed_units: [0-9]*' "$work.log" || true)"
    rm -rf "$work" "$work.log"
  fi
done
exit $status
