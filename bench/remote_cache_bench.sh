#!/usr/bin/env bash
# Figures for the remote compile cache (issue 21): compile time of W3 (the
# MLP training step, float64) in a fresh process, as a user sees it
# (function() timed inside the process: theano_compile_bench --child), in four
# situations, each repeated RUNS times (median, min, max):
#   cold, no remote      empty compiledir, no remote tier (the baseline)
#   cold, empty Redis    empty compiledir, remote tier on an empty Redis (the
#                        compile, plus a GET miss and publishing the entry)
#   remote hit           empty compiledir, Redis populated by the run above
#   local warm hit       the compiledir the cold run populated
# against a real redis-server started here on 127.0.0.1 (a free port, no
# persistence), with a fresh 0600 key file.
#
# Usage: bench/remote_cache_bench.sh [BUILD_DIR (default build/release)] [RUNS (default 5)]
set -euo pipefail
build=${1:-build/release}
runs=${2:-5}
bench=$build/bench/theano_compile_bench
[ -x "$bench" ] || { echo "no $bench: build the theano_compile_bench target first" >&2; exit 1; }
command -v redis-server >/dev/null || { echo "redis-server is not installed (tools/dev/setup.sh installs it)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/theano-remote-bench.XXXXXX")
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$work" --daemonize no \
  --logfile "$work/redis.log" &
redis_pid=$!
trap 'kill "$redis_pid" 2>/dev/null; wait "$redis_pid" 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do
  [ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ] && break
  sleep 0.05
done
umask 077
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$work/key"
remote="remote_cache=redis://127.0.0.1:$port,remote_cache_key_file=$work/key"

# One compile of W3 in a fresh process; prints its total ms, checks the cache outcome.
compile() {  # compiledir flags expected-cache
  local line
  line=$(THEANO_FLAGS="compiledir=$1${2:+,$2}" "$bench" --child W3 float64 --no-next)
  case "$line" in *"cache=$3"*) ;; *) echo "unexpected: $line (wanted cache=$3)" >&2; exit 1 ;; esac
  sed -e 's/^total=\([0-9.]*\) .*/\1/' <<<"$line"
}

# Phase by phase: the cold runs, then the remote hits, then the warm hits.
# A remote hit publishes the entry and its shared library into the local
# compiledir (fsynced), so its figure moves with the disk's fsync latency.
declare -a cold plain hit warm
for i in $(seq "$runs"); do
  redis-cli -p "$port" flushall >/dev/null
  plain+=("$(compile "$work/p$i" "" miss)")
  cold+=("$(compile "$work/a$i" "$remote" miss)")
done
for i in $(seq "$runs"); do hit+=("$(compile "$work/b$i" "$remote" hit)"); done
for i in $(seq "$runs"); do warm+=("$(compile "$work/a$i" "$remote" hit)"); done
summary() {
  printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {
    m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%9.1f ms  (min %.1f, max %.1f)", m, v[1], v[NR] }'
}
echo "W3 float64, compile time of function() in a fresh process, median of $runs (redis $(redis-server --version | sed 's/.*v=\([^ ]*\).*/\1/'), 127.0.0.1):"
echo "  cold, no remote tier        $(summary "${plain[@]}")"
echo "  cold, empty Redis           $(summary "${cold[@]}")"
echo "  remote hit (empty local)    $(summary "${hit[@]}")"
echo "  local warm hit              $(summary "${warm[@]}")"
echo "remote entry: $(redis-cli -p "$port" --scan --pattern 'theano-cpp:v1:*' | head -1 | xargs -r redis-cli -p "$port" strlen) bytes"
