#!/usr/bin/env bash
# Latency spread between processes, and first run against steady state: runs each real model in
# P fresh `vtensor bench` processes (single thread) and prints, per model,
#   - the fastest and the slowest process's median, their ratio (spread), and every process's
#     median, sorted: a runtime whose speed depends on something fixed at process start (heap
#     or stack placement, page alignment, which CPU it starts on, ...) shows a spread well
#     above 1 or medians in two clusters;
#   - the first run after session creation against the same process's median (first / median,
#     the median of that ratio over the processes).
# Each table comes for the wall clock and for the thread's CPU time per run (on a shared
# machine the wall clock also counts the time other processes held the core); the spread also
# for each process's fastest run.
# Controls, alternating with the vtensor processes so that they see the same minutes:
#   --ort       a vtensor-ort-bench process per vtensor process (scripts/build_ort_bench.sh):
#               the machine's own spread
#   --ab K=V    a second vtensor process with K=V in its environment (e.g.
#               VTENSOR_HOST_ARENA=off): a before/after in one run
#   --vs DIR    a vtensor process of another build (DIR/vtensor, e.g. a copy of the previous
#               commit's): a before/after of a code change in one run
# A process's median must come from enough runs to say something about the process rather than
# about the few milliseconds it was measured in: 30 runs of a 0.08 ms model span 2.5 ms, in
# which one burst of another process's work moves the median by 20-40 %. So each process times
# runs for about --min-time seconds (the count is set per model from a calibration run of
# vtensor, and is the same for every side).
# --interleave runs a model's processes (every side's) side by side in time instead of one after
# another: all are started, and all but one are stopped (SIGSTOP); each in turn then runs for a
# slice (three of vtensor's runs, at least 50 ms) while the others wait. Every process then samples the same
# minutes of the machine, whose speed drifts by 15-25 % between minutes on the VMs we measure,
# so the spread is what differs between processes, not between minutes. Only one process runs
# at a time: none competes with another for the cores, but all hold their sessions in memory at
# once (P x sides sessions). The first-run tables are left out in this mode (a first run may
# straddle a slice).
# See docs/benchmarks.md.
#
# usage: scripts/latency_modes.sh [--procs P] [--runs N | --min-time S] [--ort] [--ab K=V] [--vs DIR] [--interleave] [--build DIR] [CASE...]
#   --procs P     processes per model and side (default 10)
#   --min-time S  seconds of timed runs per process (default 1; at least 30 runs); each process
#                 first runs once + 3 warmups
#   --runs N      a fixed number of timed runs per process instead
#   --build DIR   build directory holding `vtensor` (default: $VTENSOR_BUILD_DIR or ./build)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PROCS=10
RUNS=""
MIN_TIME=1
ORT=0
AB=""
VS=""
INTERLEAVE=0
BUILD="${VTENSOR_BUILD_DIR:-$ROOT/build}"
CASES=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --procs) PROCS="$2"; shift 2 ;;
    --runs) RUNS="$2"; shift 2 ;;
    --min-time) MIN_TIME="$2"; shift 2 ;;
    --ort) ORT=1; shift ;;
    --ab) AB="$2"; shift 2 ;;
    --vs) VS="$2"; shift 2 ;;
    --interleave) INTERLEAVE=1; shift ;;
    --build) BUILD="$2"; shift 2 ;;
    -h|--help) sed -n '2,41p' "${BASH_SOURCE[0]}"; exit 0 ;;
    -*) echo "latency_modes: unknown option $1" >&2; exit 2 ;;
    *) CASES+=("$1"); shift ;;
  esac
done
[[ "$PROCS" =~ ^[1-9][0-9]*$ && ( -z "$RUNS" || "$RUNS" =~ ^[1-9][0-9]*$ ) ]] ||
  { echo "latency_modes: --procs and --runs need positive integers" >&2; exit 2; }
[[ "$MIN_TIME" =~ ^[0-9]+(\.[0-9]+)?$ ]] ||
  { echo "latency_modes: --min-time needs a number of seconds" >&2; exit 2; }
[[ -z "$AB" || "$AB" == *=* ]] || { echo "latency_modes: --ab needs K=V" >&2; exit 2; }
VTENSOR="$BUILD/vtensor"
[[ -x "$VTENSOR" ]] || { echo "latency_modes: $VTENSOR not found; build first (scripts/build.sh vtensor)" >&2; exit 2; }
SIDES=(vt)
[[ -n "$AB" ]] && SIDES+=("vt[$AB]")
if [[ -n "$VS" ]]; then
  [[ -x "$VS/vtensor" ]] || { echo "latency_modes: $VS/vtensor not found" >&2; exit 2; }
  SIDES+=("vt@$VS")
fi
[[ $ORT -eq 1 ]] && { ORT_BENCH="$("$ROOT/scripts/build_ort_bench.sh" --build "$BUILD")"; SIDES+=(ort); }

"$ROOT/scripts/fetch_models.sh" "${CASES[@]}" >&2
CACHE="$("$ROOT/scripts/fetch_models.sh" --print-cache)"
if [[ ${#CASES[@]} -eq 0 ]]; then
  mapfile -t CASES < <(node -e 'console.log(Object.keys(require(process.argv[1]).models).join("\n"))' \
    "$ROOT/tests/data/refcases/index.json")
fi

# V[case,side,key] = " v1 v2 ..." (one value per process) for the keys below.
KEYS=(median_ms median_cpu_ms min_ms first_run_ms first_run_cpu_ms)
declare -A V=()
declare -A N=()   # timed runs per process, by case
declare -A MS=()  # vtensor's median run (ms) in the calibration, by case
for case in "${CASES[@]}"; do
  if [[ -n "$RUNS" && $INTERLEAVE -eq 0 ]]; then N[$case]=$RUNS; continue; fi
  MS[$case]="$("$VTENSOR" bench "$CACHE/$case/model.onnx" --data "$ROOT/tests/data/refcases/$case/test_data_set_0" \
    --runs 20 --warmup 3 --threads 1 | sed -n 's/^median_ms: *//p')"
  if [[ -n "$RUNS" ]]; then N[$case]=$RUNS; continue; fi
  N[$case]="$(awk -v t="$MIN_TIME" -v m="${MS[$case]}" 'BEGIN { n = int(t * 1000 / m + 0.999); print (n < 30 ? 30 : n) }')"
done
run_side() {  # SIDE MODEL DATA RUNS -> bench output (the shell is replaced by the benchmark)
  case "$1" in
    vt) exec "$VTENSOR" bench "$2" --data "$3" --runs "$4" --warmup 3 --threads 1 ;;
    ort) exec "$ORT_BENCH" "$2" --data "$3" --runs "$4" --warmup 3 ;;
    vt@*) exec "${1#vt@}/vtensor" bench "$2" --data "$3" --runs "$4" --warmup 3 --threads 1 ;;
    *) exec env "$AB" "$VTENSOR" bench "$2" --data "$3" --runs "$4" --warmup 3 --threads 1 ;;
  esac
}
collect() {  # CASE SIDE OUTPUT
  for k in "${KEYS[@]}"; do V[$1,$2,$k]+=" $(sed -n "s/^$k: *//p" <<<"$3")"; done
}
sequential() {  # one process after another
  for ((p = 1; p <= PROCS; ++p)); do
    echo "latency_modes: process $p/$PROCS" >&2
    for case in "${CASES[@]}"; do
      model="$CACHE/$case/model.onnx"
      data="$ROOT/tests/data/refcases/$case/test_data_set_0"
      # The sides' order changes with the process number (rotated, and reversed on even ones: all
      # six orders of three sides over six processes): a first run that follows a process which
      # freed much memory finds more of its fresh memory taken back by the host (docs/benchmarks.md,
      # "Where the first run's time goes: code pages"), so no side may always follow the same one.
      order=()
      n=${#SIDES[@]}
      for ((i = 0; i < n; ++i)); do
        if ((p % 2)); then order+=("${SIDES[(i + p) % n]}"); else order+=("${SIDES[(n - 1 - i + p) % n]}"); fi
      done
      for side in "${order[@]}"; do
        out="$(run_side "$side" "$model" "$data" "${N[$case]}")" || { echo "latency_modes: $side failed on $case" >&2; exit 1; }
        collect "$case" "$side" "$out"
      done
    done
  done
}
# Whether process $1 is still this shell's running (or stopped) child: not gone, not a zombie,
# and not another process that took its number after it was reaped.
alive() {
  local stat rest state ppid
  { read -r stat <"/proc/$1/stat"; } 2>/dev/null || return 1  # a builtin: no child of ours
  rest="${stat##*) }"  # after the command name, which may hold spaces and parentheses
  read -r state ppid _ <<<"$rest"
  [[ "$state" != Z && "$ppid" == "$$" ]]
}
interleaved() {  # every process of a model started, then run one at a time in slices
  local case side p pid slice
  tmp="$(mktemp -d)"  # global: the EXIT trap reads it
  # An interrupted or failed run leaves no stopped process and no files behind.
  trap 'for q in "${pids[@]}"; do alive "$q" && kill -KILL "$q"; done; rm -rf "$tmp"' EXIT
  for case in "${CASES[@]}"; do
    echo "latency_modes: $case, $PROCS processes per side interleaved" >&2
    model="$CACHE/$case/model.onnx"
    data="$ROOT/tests/data/refcases/$case/test_data_set_0"
    pids=() names=()  # global: the EXIT trap reads them
    for ((p = 1; p <= PROCS; ++p)); do
      for side in "${SIDES[@]}"; do
        (run_side "$side" "$model" "$data" "${N[$case]}") >"$tmp/$p.$side.out" 2>&1 &
        pid=$!
        kill -STOP "$pid" 2>/dev/null || true
        pids+=("$pid")
        names+=("$p.$side")
      done
    done
    slice="$(awk -v m="${MS[$case]}" 'BEGIN { s = 3 * m / 1000; printf "%.3f", (s < 0.05 ? 0.05 : s) }')"
    local running=1
    while ((running)); do
      running=0
      for pid in "${pids[@]}"; do
        alive "$pid" || continue
        running=1
        kill -CONT "$pid" 2>/dev/null || true
        sleep "$slice"
        kill -STOP "$pid" 2>/dev/null || true
      done
    done
    for i in "${!pids[@]}"; do
      wait "${pids[$i]}" || {
        echo "latency_modes: ${names[$i]#*.} failed on $case:" >&2
        tail -n 3 "$tmp/${names[$i]}.out" >&2
        exit 1
      }
      collect "$case" "${names[$i]#*.}" "$(cat "$tmp/${names[$i]}.out")"
    done
  done
  trap - EXIT
  rm -rf "$tmp"
}
if ((INTERLEAVE)); then interleaved; else sequential; fi

spread_row() {  # CASE SIDE KEY
  tr ' ' '\n' <<<"${V[$1,$2,$3]}" | grep -v '^$' | sort -g |
    awk -v c="$1" -v s="$2" '{ a[NR] = $1 } END {
      all = ""; for (i = 1; i <= NR; ++i) all = all sprintf(" %.4g", a[i]);
      printf "%-32s %-26s %7d %10.4f %10.4f %7.3fx %s\n", c, s, n, a[1], a[NR], a[NR] / a[1], all }' n="${N[$1]}"
}
col_median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
first_row() {  # CASE SIDE FIRST_KEY MEDIAN_KEY
  local rows
  rows="$(paste <(tr ' ' '\n' <<<"${V[$1,$2,$3]}" | grep -v '^$') <(tr ' ' '\n' <<<"${V[$1,$2,$4]}" | grep -v '^$') |
    awk '{ print $1, $2, $1 / $2 }')"
  printf '%-32s %-26s %10.4f %10.4f %7.2fx %7.2fx\n' "$1" "$2" "$(awk '{print $1}' <<<"$rows" | col_median)" \
    "$(awk '{print $2}' <<<"$rows" | col_median)" "$(awk '{print $3}' <<<"$rows" | col_median)" \
    "$(awk '{print $3}' <<<"$rows" | sort -g | tail -n 1)"
}
for clock in wall cpu min; do
  case $clock in
    wall) med=median_ms first=first_run_ms what="median, wall clock" ;;
    cpu) med=median_cpu_ms first=first_run_cpu_ms what="median, thread CPU time" ;;
    min) med=min_ms first="" what="fastest run (wall clock; the least disturbed by other processes)" ;;
  esac
  printf '\nper-process %s, %d processes per model and side (ms)\n' "$what" "$PROCS"
  printf '%-32s %-26s %7s %10s %10s %8s  %s\n' "model" "side" "runs" "fastest" "slowest" "spread" "all (sorted)"
  for case in "${CASES[@]}"; do for side in "${SIDES[@]}"; do spread_row "$case" "$side" "$med"; done; done
  [[ -z "$first" || $INTERLEAVE -eq 1 ]] && continue
  printf '\nfirst run after session creation against the %s (medians over the processes; ms)\n' "$what"
  printf '%-32s %-26s %10s %10s %8s %8s\n' "model" "side" "first run" "median" "ratio" "worst"
  for case in "${CASES[@]}"; do for side in "${SIDES[@]}"; do first_row "$case" "$side" "$first" "$med"; done; done
done
echo "(spread = slowest / fastest process; ratio = first run / median of the same process, median over processes; worst = its largest)"
if ((INTERLEAVE)); then
  echo "(--interleave: a run that straddles a slice counts the other processes' slices in its wall clock; the thread CPU time table is the one to read)"
fi
