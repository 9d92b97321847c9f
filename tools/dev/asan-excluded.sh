#!/usr/bin/env bash
# Prints the ctest -E regex matching exactly the test names listed in
# tests/asan-excluded.txt (why they are left out of the sanitizer run: that
# file's header). Fails, naming the line, when a listed name matches no test
# of the build tree $1, so a renamed test cannot drop out of the list unseen.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
tree="${1:?usage: asan-excluded.sh BUILD_TREE}"
list="$root/tests/asan-excluded.txt"
known="$(ctest --test-dir "$tree" -N | sed -n -E 's/^ *Test +#[0-9]+: //p')"
parts=()
n=0
while IFS= read -r line || [[ -n "$line" ]]; do
  n=$((n + 1))
  [[ -z "$line" || "$line" == \#* ]] && continue
  if ! grep -Fxq -- "$line" <<<"$known"; then
    echo "tests/asan-excluded.txt:$n: no test named '$line' in $tree" >&2
    exit 1
  fi
  # CMake's regex syntax: a backslash makes the next character literal.
  parts+=("$(printf '%s' "$line" | sed 's/[][\.*^$+?(){}|]/\\&/g')")
done <"$list"
[[ ${#parts[@]} -eq 0 ]] && exit 0
joined="$(IFS='|'; echo "${parts[*]}")"
echo "left out of this run: ${#parts[@]} cases of tests/asan-excluded.txt (the Release run ran them)" >&2
printf '^(%s)$\n' "$joined"
