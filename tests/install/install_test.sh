#!/usr/bin/env bash
# The installed library as a consumer sees it (docs/install.md): installs the build tree into a
# temporary prefix, then builds the examples out of tree against it, a C program
# (examples/c/run_model.c) and a C++ program (examples/ocr_rec.cc), each once with
# find_package(vtensor) and once with pkg-config, and runs them on a real model:
#   CMake       C   + vtensor::vtensor (shared)     C++ + vtensor::vtensor_static
#   pkg-config  C   + vtensor-static.pc             C++ + vtensor.pc (shared)
# The model is PP-OCRv4 rec from the model cache: run_model compares its output with ONNX
# Runtime's (tests/data/refcases) and the OCR program must read "Hello World 2024". Without the
# cached model, a small MatMul model with compiled tensors is written and run_model compares
# with the build tree's `vtensor run` instead.
#
# usage: tests/install/install_test.sh BUILD_DIR     (ctest: install, label install)
set -euo pipefail
SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="$(cd "${1:?usage: install_test.sh BUILD_DIR}" && pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
PREFIX="$WORK/prefix"
say() { echo "install_test: $*"; }
die() { echo "install_test: FAIL: $*" >&2; exit 1; }

cmake --install "$BUILD" --prefix "$PREFIX" >"$WORK/install.log" || { cat "$WORK/install.log"; die "cmake --install"; }
LIBDIR="$(dirname "$(find "$PREFIX" -name libvtensor.a | head -n 1)")"
[[ -f "$LIBDIR/libvtensor.a" && -e "$LIBDIR/libvtensor.so" ]] || die "libvtensor.a / .so not installed"
say "installed into $PREFIX ($(ls "$LIBDIR" | tr '\n' ' '))"

# Every vtensor header an installed header includes is installed too.
missing=0
while IFS= read -r h; do
  while IFS= read -r inc; do
    [[ -f "$PREFIX/include/$inc" ]] || { echo "  $h includes $inc, not installed" >&2; missing=1; }
  done < <(sed -n 's/^#include "\(vtensor\/[^"]*\)".*/\1/p' "$h")
done < <(find "$PREFIX/include" -name '*.h')
[[ $missing == 0 ]] || die "installed headers include headers that are not installed"

# The model and its data.
CACHE="$("$SRC/scripts/fetch_models.sh" --print-cache 2>/dev/null || echo "$HOME/.cache/vtensor/models")"
CASE=ch_PP-OCRv4_rec_infer
MODEL="$CACHE/$CASE/model.onnx"
DATA="$SRC/tests/data/refcases/$CASE/test_data_set_0"
OCR=1
if [[ ! -r "$MODEL" ]]; then
  say "$MODEL not cached: using a small model written here"
  OCR=0
  DATA="$WORK/small"
  mkdir -p "$DATA"
  "$BUILD/vtensor-make-compiled-model" "$DATA" >/dev/null
  MODEL="$DATA/compiled.onnx"
  "$BUILD/vtensor" run "$DATA/stock.onnx" --data "$DATA" --save-outputs "$DATA" >/dev/null
fi

# --- find_package(vtensor): a C-only project (shared library) and a C++ project (static) ---
mkdir -p "$WORK/cmake_c" "$WORK/cmake_cxx"
cat >"$WORK/cmake_c/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.24)
project(vtensor_consumer_c C)
find_package(vtensor 0.1 REQUIRED)
add_executable(run_model_c "$SRC/examples/c/run_model.c")
set_target_properties(run_model_c PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON)
target_compile_options(run_model_c PRIVATE -Wall -Wextra -Werror)
target_link_libraries(run_model_c PRIVATE vtensor::vtensor m)
EOF
cat >"$WORK/cmake_cxx/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.24)
project(vtensor_consumer_cxx CXX)
set(CMAKE_CXX_STANDARD 20)
find_package(vtensor 0.1 REQUIRED)
find_package(fmt REQUIRED)
find_package(CLI11 REQUIRED)
add_executable(ocr_static "$SRC/examples/ocr_rec.cc" "$SRC/examples/ctc_greedy.cc")
target_include_directories(ocr_static PRIVATE "$SRC/examples")
target_link_libraries(ocr_static PRIVATE vtensor::vtensor_static fmt::fmt CLI11::CLI11)
EOF
for p in cmake_c cmake_cxx; do
  cmake -S "$WORK/$p" -B "$WORK/$p/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$PREFIX" >"$WORK/$p.log" 2>&1 || { cat "$WORK/$p.log"; die "$p: configure"; }
  ninja -C "$WORK/$p/build" >>"$WORK/$p.log" 2>&1 || { cat "$WORK/$p.log"; die "$p: build"; }
done
say "built with find_package(vtensor): run_model_c (C, vtensor::vtensor), ocr_static (C++, vtensor::vtensor_static)"

# --- pkg-config ---------------------------------------------------------------------------
export PKG_CONFIG_PATH="$LIBDIR/pkgconfig"
mkdir -p "$WORK/pc"
# shellcheck disable=SC2046
cc -std=c99 -Wall -Wextra -Werror $(pkg-config --cflags vtensor-static) \
  "$SRC/examples/c/run_model.c" -o "$WORK/pc/run_model_static" \
  $(pkg-config --libs vtensor-static) -lm || die "pkg-config vtensor-static: C build"
# shellcheck disable=SC2046
c++ -std=c++20 $(pkg-config --cflags vtensor fmt) -I"$SRC/examples" \
  "$SRC/examples/ocr_rec.cc" "$SRC/examples/ctc_greedy.cc" -o "$WORK/pc/ocr_shared" \
  $(pkg-config --libs vtensor fmt) -Wl,-rpath,"$(pkg-config --variable=libdir vtensor)" ||
  die "pkg-config vtensor: C++ build"
say "built with pkg-config: run_model_static (C, vtensor-static), ocr_shared (C++, vtensor)"

# Shared consumers load the installed library, static ones none.
for exe in "$WORK/cmake_c/build/run_model_c" "$WORK/pc/ocr_shared"; do
  lib="$(ldd "$exe" | awk '/libvtensor\.so/ {print $3}')"
  [[ "$lib" == "$LIBDIR"/* ]] || die "$exe loads libvtensor from '$lib', not from $LIBDIR"
done
for exe in "$WORK/cmake_cxx/build/ocr_static" "$WORK/pc/run_model_static"; do
  ! ldd "$exe" | grep -q libvtensor || die "$exe is linked to libvtensor.so"
done

# --- run ----------------------------------------------------------------------------------
for exe in "$WORK/cmake_c/build/run_model_c" "$WORK/pc/run_model_static"; do
  out="$("$exe" "$MODEL" "$DATA")" || { echo "$out"; die "$(basename "$exe") on $MODEL"; }
  grep -q PASS <<<"$out" || { echo "$out"; die "$(basename "$exe"): no output compared"; }
  say "$(basename "$exe"): $(grep PASS <<<"$out" | head -n 1)"
done
if [[ $OCR == 1 ]]; then
  for exe in "$WORK/cmake_cxx/build/ocr_static" "$WORK/pc/ocr_shared"; do
    out="$("$exe" "$MODEL" "$DATA/input_0.pb" "$SRC/examples/data/ppocr_keys_v1.txt" --runs 1 \
             --expect "Hello World 2024")" || { echo "$out"; die "$(basename "$exe")"; }
    say "$(basename "$exe"): $(grep '^text:' <<<"$out")"
  done
fi
say "PASS"
