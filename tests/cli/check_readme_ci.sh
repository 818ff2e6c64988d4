#!/usr/bin/env bash
# The README's install command and .ci/run must install the same Debian packages, so that CI
# proves the README's first command.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
readme="$(grep -m1 -o 'apt-get install -y [^&]*' "$root/README.md" | head -n 1 | sed 's/apt-get install -y //' |
  tr ' ' '\n' | sed '/^$/d' | sort)"
ci="$(sed -n '/^PACKAGES=(/,/^)/p' "$root/.ci/run" | sed '1d;$d' | tr ' ' '\n' | sed '/^$/d' | sort)"
[[ -n "$readme" ]] || { echo "no 'apt-get install -y' line in README.md" >&2; exit 1; }
if [[ "$readme" != "$ci" ]]; then
  echo "README.md and .ci/run install different packages:" >&2
  diff <(echo "$readme") <(echo "$ci") >&2 || true
  exit 1
fi
echo "README.md and .ci/run agree on $(wc -l <<<"$readme") packages"
