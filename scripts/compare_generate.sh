#!/usr/bin/env bash
# Greedy generation with an onnxruntime-genai form decoder in vtensor (`vtensor generate`) and in
# ONNX Runtime 1.30 (vtensor-ort-generate, its C API, built by scripts/build_ort_bench.sh), single
# thread, same prompt ids (docs/genai.md).
#
# Each round runs, in fresh processes and alternating which goes first: vtensor on MODEL,
# vtensor on the compiled model (`--compiled CMODEL`, with --verify memo: what a deployment
# with a compiled cache sees), and ORT (--kv share: onnxruntime-genai's CPU KV cache). Printed
# per figure: the median over rounds per side and the ratio vtensor / ORT (median of the
# per-round ratios): session creation, prefill, first token from process start (VT_SPAWN_REALTIME:
# this shell's clock just before exec), decode ms per token (each process's median and fastest
# step; on a shared machine the fastest is the least disturbed), the thread CPU times, and
# decode tokens/s; then whether the generated ids agree, and vtensor's weight streaming against
# the read floor (--read-floor on the last round) with how much of the weight files the process
# mapped in 2 MiB pages, for the source and the compiled model.
#
# usage: scripts/compare_generate.sh MODEL [--compiled CMODEL] [--prompt-len P] [--new-tokens N]
#                                    [--rounds R] [--profile exact|compact] [--build DIR]
#   --profile    the weight profile of the compiled run (compile CMODEL with the same one)
#   defaults: P 128, N 64, R 3; DIR $VTENSOR_BUILD_DIR or ./build
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${VTENSOR_BUILD_DIR:-$ROOT/build}"
P=128 N=64 ROUNDS=3 MODEL="" COMPILED="" PROFILE=exact
while [[ $# -gt 0 ]]; do
  case "$1" in
    --compiled) COMPILED="$2"; shift 2 ;;
    --prompt-len) P="$2"; shift 2 ;;
    --new-tokens) N="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --profile) PROFILE="$2"; shift 2 ;;
    --build) BUILD="$2"; shift 2 ;;
    -h|--help) sed -n '2,20p' "${BASH_SOURCE[0]}"; exit 0 ;;
    -*) echo "compare_generate: unknown option $1" >&2; exit 2 ;;
    *) [[ -z "$MODEL" ]] || { echo "compare_generate: one MODEL" >&2; exit 2; }; MODEL="$1"; shift ;;
  esac
done
[[ -n "$MODEL" ]] || { echo "usage: scripts/compare_generate.sh MODEL [--compiled CMODEL] ..." >&2; exit 2; }
for v in "$P" "$N" "$ROUNDS"; do
  [[ "$v" =~ ^[1-9][0-9]*$ ]] || { echo "compare_generate: counts must be positive integers" >&2; exit 2; }
done
VTENSOR="$BUILD/vtensor"
[[ -x "$VTENSOR" ]] || { echo "compare_generate: $VTENSOR not found (scripts/build.sh vtensor)" >&2; exit 2; }
ORTGEN="$("$ROOT/scripts/build_ort_bench.sh" --build "$BUILD" --program generate)"

KEYS=(session_create_ms prefill_ms prefill_cpu_ms first_token_ms decode_median_ms decode_min_ms decode_median_cpu_ms decode_tokens_per_s)
declare -A VAL  # VAL[side,key,round]
declare -A IDS
run() {  # SIDE ROUND [extra flags]
  local side="$1" round="$2" out; shift 2
  local cmd
  case "$side" in
    vt) cmd=("$VTENSOR" generate "$MODEL" --threads 1 "$@") ;;
    vtc) cmd=("$VTENSOR" generate "$COMPILED" --threads 1 --verify memo --profile "$PROFILE" "$@") ;;
    ort) cmd=("$ORTGEN" "$MODEL" --kv share) ;;
  esac
  out="$(VT_SPAWN_REALTIME=$EPOCHREALTIME "${cmd[@]}" --prompt-len "$P" --new-tokens "$N")" ||
    { echo "compare_generate: ${cmd[*]} failed" >&2; exit 1; }
  for k in "${KEYS[@]}"; do VAL[$side,$k,$round]="$(sed -n "s/^$k: //p" <<<"$out")"; done
  IDS[$side]="$(sed -n 's/^generated_ids: //p' <<<"$out")"
  if [[ "$side" == vt* ]]; then
    VAL[$side,cache,$round]="$(sed -n 's/^compiled_cache: //p' <<<"$out")"
    VAL[$side,floor]="$(sed -n 's/^weight_stream_vs_read_floor: //p; s/^weight_stream_gb_s: /stream /p; s/^read_floor_gb_s: /floor /p' <<<"$out" | tr '\n' ' ')"
    VAL[$side,pages]="$(sed -n 's/^file_mapped_mib: /file pages resident MiB /p; s/^file_pmd_mapped_mib: /in 2 MiB pages /p' <<<"$out" | tr '\n' ' ')"
  fi
}

sides=(vt ort)
[[ -n "$COMPILED" ]] && sides=(vt vtc ort)
for ((r = 1; r <= ROUNDS; ++r)); do
  order=("${sides[@]}")
  (( r % 2 == 0 )) && order=(ort "${sides[@]:0:${#sides[@]}-1}")
  for s in "${order[@]}"; do
    extra=()
    [[ "$s" != ort && $r -eq $ROUNDS ]] && extra=(--read-floor)
    run "$s" "$r" "${extra[@]}"
    echo "round $r $s: decode $(printf '%s' "${VAL[$s,decode_median_ms,$r]}") ms/token, first token ${VAL[$s,first_token_ms,$r]} ms" >&2
  done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
echo "model: $MODEL  prompt $P tokens, $N new tokens, $ROUNDS rounds, 1 thread"
printf '%-22s %12s %12s' figure vtensor ORT
[[ -n "$COMPILED" ]] && printf ' %12s' "vt-compiled"
printf ' %10s' "vt/ORT"
[[ -n "$COMPILED" ]] && printf ' %12s' "vtc/ORT"
echo
for k in "${KEYS[@]}"; do
  printf '%-22s' "$k"
  for s in vt ort ${COMPILED:+vtc}; do
    vals=""
    for ((r = 1; r <= ROUNDS; ++r)); do vals+="${VAL[$s,$k,$r]} "; done
    printf ' %12s' "$(median <<<"$vals")"
  done
  for s in vt ${COMPILED:+vtc}; do
    ratios=""
    for ((r = 1; r <= ROUNDS; ++r)); do
      ratios+="$(awk -v a="${VAL[$s,$k,$r]}" -v b="${VAL[ort,$k,$r]}" 'BEGIN { printf "%.4f", a / b }') "
    done
    printf ' %10s' "$(median <<<"$ratios")"
  done
  echo
done
[[ -n "$COMPILED" ]] && echo "compiled cache: ${VAL[vtc,cache,$ROUNDS]}"
echo "vtensor weight streaming (GB/s, read floor GB/s, ratio): ${VAL[vt,floor]}; ${VAL[vt,pages]}"
[[ -n "$COMPILED" ]] && echo "vt-compiled weight streaming: ${VAL[vtc,floor]}; ${VAL[vtc,pages]}"
if [[ "${IDS[vt]}" == "${IDS[ort]}" && ( -z "$COMPILED" || "${IDS[vtc]}" == "${IDS[ort]}" ) ]]; then
  echo "generated ids agree: ${IDS[ort]}"
else
  echo "generated ids differ:"$'\n'"  vtensor: ${IDS[vt]}"$'\n'"  ORT:     ${IDS[ort]}"
fi
