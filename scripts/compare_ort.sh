#!/usr/bin/env bash
# Latency of vtensor against ONNX Runtime 1.30 on the real-model cases, single thread, both
# timed in-process around the runtime's own run call (vtensor: `vtensor bench`; ORT:
# vtensor-ort-bench, its C API, built by scripts/build_ort_bench.sh), on the checked-in inputs.
#
# Each round runs every model once in a fresh vtensor process and once in a fresh ORT process,
# the two alternating (odd rounds vtensor first, even rounds ORT first), so drift of the shared
# machine falls on both. Each process: session creation, a first run, 2 warmup runs, RUNS timed
# runs. Printed per model (medians over the rounds):
#   steady state:  vtensor ms | ORT ms | ratio (median of the per-round ratios, vtensor / ORT),
#                  each side's p90 of its timed runs, and the same medians and ratio in thread
#                  CPU time (robust to other processes on a shared machine)
#   start:         session creation ms, first run ms (the first run after creation), and first
#                  result ms: process start (the shell's clock just before exec) to the first
#                  run's outputs, per side
#
# With --compiled a third process per model and round runs the model compiled by `vtensor compile`
# (default device and profile, with its session plan) under the default verify policy (memo,
# primed by one load before the rounds, in a private VTENSOR_VERIFY_MEMO_DIR): the start table
# then adds its session creation, first run and first result, and first result against ORT's.
#
# usage: scripts/compare_ort.sh [--runs N] [--rounds R] [--build DIR] [--cases-dir DIR] [--compiled] [CASE...]
#   --runs N         timed runs per model, runtime and round (default 20)
#   --rounds R       rounds (default 3)
#   --build DIR      build directory holding `vtensor` (default: $VTENSOR_BUILD_DIR or ./build);
#                    vtensor-ort-bench is built there too
#   --cases-dir DIR  cases DIR/<case>/model.onnx with DIR/<case>/test_data_set_0 (every
#                    subfolder unless CASEs are named) instead of the real-model cases
#                    (scripts/bench_transformers.sh passes its generated models this way)
#   --compiled       also time the compiled models (into BUILD/compare_ort_compiled/CASE/)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RUNS=20
ROUNDS=3
BUILD="${VTENSOR_BUILD_DIR:-$ROOT/build}"
CASES_DIR=""
COMPILED=0
CASES=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) RUNS="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --build) BUILD="$2"; shift 2 ;;
    --cases-dir) CASES_DIR="$2"; shift 2 ;;
    --compiled) COMPILED=1; shift ;;
    -h|--help) sed -n '2,30p' "${BASH_SOURCE[0]}"; exit 0 ;;
    -*) echo "compare_ort: unknown option $1" >&2; exit 2 ;;
    *) CASES+=("$1"); shift ;;
  esac
done
[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || { echo "compare_ort: --runs needs a positive integer" >&2; exit 2; }
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || { echo "compare_ort: --rounds needs a positive integer" >&2; exit 2; }
VTENSOR="$BUILD/vtensor"
[[ -x "$VTENSOR" ]] || { echo "compare_ort: $VTENSOR not found; build first (scripts/build.sh vtensor)" >&2; exit 2; }
ORT_BENCH="$("$ROOT/scripts/build_ort_bench.sh" --build "$BUILD")"

# --- Models ------------------------------------------------------------------------------------
if [[ -n "$CASES_DIR" ]]; then
  [[ -d "$CASES_DIR" ]] || { echo "compare_ort: --cases-dir $CASES_DIR is not a directory" >&2; exit 2; }
  if [[ ${#CASES[@]} -eq 0 ]]; then
    mapfile -t CASES < <(cd "$CASES_DIR" && for d in */; do [[ -f "$d/model.onnx" ]] && echo "${d%/}"; done)
  fi
  model_of() { echo "$CASES_DIR/$1/model.onnx"; }
  data_of() { echo "$CASES_DIR/$1/test_data_set_0"; }
else
  "$ROOT/scripts/fetch_models.sh" "${CASES[@]}" >&2
  CACHE="$("$ROOT/scripts/fetch_models.sh" --print-cache)"
  if [[ ${#CASES[@]} -eq 0 ]]; then
    mapfile -t CASES < <(node -e 'console.log(Object.keys(require(process.argv[1]).models).join("\n"))' \
      "$ROOT/tests/data/refcases/index.json")
  fi
  model_of() { echo "$CACHE/$1/model.onnx"; }
  data_of() { echo "$ROOT/tests/data/refcases/$1/test_data_set_0"; }
fi

# --- Compiled models (--compiled) ----------------------------------------------------------------
SIDES=(vt ort)
if [[ $COMPILED -eq 1 ]]; then
  CDIR="$BUILD/compare_ort_compiled"
  export VTENSOR_VERIFY_MEMO_DIR="$CDIR/verify-memo"
  rm -rf "$CDIR"
  mkdir -p "$VTENSOR_VERIFY_MEMO_DIR"
  for case in "${CASES[@]}"; do
    mkdir -p "$CDIR/$case"
    "$VTENSOR" compile "$(model_of "$case")" -o "$CDIR/$case/model.onnx" >&2 ||
      { echo "compare_ort: vtensor compile failed on $case" >&2; exit 1; }
  done
  # The first load under memo verifies and records it; the timed loads are later ones. A memo
  # is recorded only for files changed more than 2 s before the load began (forms/verify_memo.h,
  # racy files), and compile has just written them (and, for external data, linked the data
  # file, which changes its ctime): wait that out first, or every timed load verifies again.
  sleep 2.1
  for case in "${CASES[@]}"; do
    "$VTENSOR" bench "$CDIR/$case/model.onnx" --data "$(data_of "$case")" --runs 1 --warmup 0 >/dev/null ||
      { echo "compare_ort: the compiled $case does not run" >&2; exit 1; }
  done
  compiled_of() { echo "$CDIR/$1/model.onnx"; }
  SIDES=(vt vtc ort)
fi

# --- Measure -----------------------------------------------------------------------------------
# key: value lines of one fresh process; VT_SPAWN_REALTIME lets the process time its first
# result from this shell's clock just before exec.
measure() {  # SIDE MODEL DATA ROUND CASE -> "create first first_result median p90 median_cpu" or "error"
  local side="$1" model="$2" data="$3" round="$4" out
  local cmd=("$ORT_BENCH" "$model" --data "$data" --runs "$RUNS" --warmup 2)
  [[ "$side" == vt ]] && cmd=("$VTENSOR" bench "$model" --data "$data" --runs "$RUNS" --warmup 2 --threads 1)
  [[ "$side" == vtc ]] && cmd=("$VTENSOR" bench "$(compiled_of "$5")" --data "$data" --runs "$RUNS" --warmup 2 --threads 1)
  if ! out="$(VT_SPAWN_REALTIME=$EPOCHREALTIME "${cmd[@]}" 2>&1)"; then
    echo "  $side: $(tail -n 1 <<<"$out" | cut -c1-300)" >&2
    echo error
    return
  fi
  # A check that ORT saw the same inputs as vtensor (the reference outputs are ORT's own).
  [[ "$side" == ort && "$round" == 1 ]] &&
    echo "  ORT max |out - reference|: $(sed -n 's/^max_abs_diff: *//p' <<<"$out")" >&2
  local k vals=()
  for k in session_create_ms first_run_ms first_result_ms median_ms p90_ms median_cpu_ms; do
    vals+=("$(sed -n "s/^$k: *//p" <<<"$out")")
  done
  echo "${vals[*]}"
}

declare -A RES=()  # RES[case,side,round] = "create first first_result median p90 median_cpu"
echo "compare_ort: $ROUNDS rounds x (${SIDES[*]}) per model; $RUNS timed runs after a first run and 2 warmups; 1 thread" >&2
for ((r = 1; r <= ROUNDS; ++r)); do
  for case in "${CASES[@]}"; do
    model="$(model_of "$case")"
    data="$(data_of "$case")"
    echo "compare_ort: round $r $case" >&2
    order=("${SIDES[@]}")
    (( r % 2 == 0 )) && order=($(printf '%s\n' "${SIDES[@]}" | tac))
    for side in "${order[@]}"; do RES[$case,$side,$r]="$(measure "$side" "$model" "$data" "$r" "$case")"; done
  done
done

# --- Report ------------------------------------------------------------------------------------
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)]; else print "nan" }'; }
field() {  # CASE SIDE FIELD(1-6) -> values over the rounds
  local r
  for ((r = 1; r <= ROUNDS; ++r)); do
    local v="${RES[$1,$2,$r]}"
    [[ "$v" != error ]] && awk -v f="$3" '{ print $f }' <<<"$v"
  done
}
ratios() {  # CASE FIELD [SIDE] -> per-round ratios SIDE (default vt) / ORT of FIELD
  local r
  for ((r = 1; r <= ROUNDS; ++r)); do
    local a="${RES[$1,${3:-vt},$r]}" b="${RES[$1,ort,$r]}"
    [[ "$a" != error && "$b" != error ]] &&
      awk -v a="$(awk -v f="$2" '{print $f}' <<<"$a")" -v b="$(awk -v f="$2" '{print $f}' <<<"$b")" 'BEGIN { print a / b }'
  done
}
m() { field "$1" "$2" "$3" | median; }

printf '\nsteady state (ms, median over %d rounds of each process'"'"'s median of %d runs)\n' "$ROUNDS" "$RUNS"
printf '%-32s %11s %11s %8s %11s %11s %10s %10s %9s\n' "model" "vtensor ms" "ORT ms" "ratio" "vtensor p90" \
  "ORT p90" "vt cpu ms" "ORT cpu ms" "cpu ratio"
for case in "${CASES[@]}"; do
  printf '%-32s %11.4f %11.4f %7.2fx %11.4f %11.4f %10.4f %10.4f %8.2fx\n' "$case" "$(m "$case" vt 4)" \
    "$(m "$case" ort 4)" "$(ratios "$case" 4 | median)" "$(m "$case" vt 5)" "$(m "$case" ort 5)" \
    "$(m "$case" vt 6)" "$(m "$case" ort 6)" "$(ratios "$case" 6 | median)"
done
printf '\nstart (ms, median over %d rounds)\n' "$ROUNDS"
printf '%-32s %10s %10s %10s %10s %12s %12s\n' "model" "vt create" "ORT create" "vt 1st run" \
  "ORT 1st run" "vt 1st result" "ORT 1st result"
for case in "${CASES[@]}"; do
  printf '%-32s %10.2f %10.2f %10.3f %10.3f %12.2f %12.2f\n' "$case" "$(m "$case" vt 1)" \
    "$(m "$case" ort 1)" "$(m "$case" vt 2)" "$(m "$case" ort 2)" "$(m "$case" vt 3)" "$(m "$case" ort 3)"
done
if [[ $COMPILED -eq 1 ]]; then
  printf '\nstart, compiled models under the default verify policy (ms, median over %d rounds)\n' "$ROUNDS"
  printf '%-32s %10s %10s %12s %12s %10s\n' "model" "vtc create" "vtc 1st run" "vtc 1st result" \
    "ORT 1st result" "vtc / ORT"
  for case in "${CASES[@]}"; do
    printf '%-32s %10.2f %10.3f %12.2f %12.2f %9.3fx\n' "$case" "$(m "$case" vtc 1)" "$(m "$case" vtc 2)" \
      "$(m "$case" vtc 3)" "$(m "$case" ort 3)" "$(ratios "$case" 3 vtc | median)"
  done
fi
echo "(ratio = vtensor / ORT, the median of the per-round ratios; below 1 means vtensor is faster. cpu: the"
echo " thread's CPU time per run, which leaves out the time other processes held the core. ORT: onnxruntime"
echo " 1.30.0 C API, intra/inter-op threads 1, sequential. 1st result = process start (shell clock before exec)"
echo " to the first run's outputs.)"
