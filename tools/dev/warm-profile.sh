#!/usr/bin/env bash
# Where a warm start's time goes (issue 39): fills a compiledir with one
# workload's function, then records N fresh processes that find it
# (`perf record`, wall-clock samples with DWARF call stacks) and prints the
# share of the samples under `theano::function` that fall under each named
# frame, then the hottest leaf frames. The figures in bench/README.md's
# warm-start sections were measured this way; on a shared machine compare
# shares, not times.
#
#   tools/dev/warm-profile.sh W10 float64 [N=40] [FRAME,FRAME,...]
#
# Needs perf (linux-perf) and python3; builds nothing (run bench/run or
# ninja -C build/release first). Not part of the test suite.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bench="$root/build/release/bench/theano_bench"
[ $# -ge 2 ] || { echo "usage: $0 W DTYPE [N] [FRAME,...]" >&2; exit 2; }
w=$1 dtype=$2 n=${3:-40}
frames=${4:-find_request,request_text,thunk_for_request,load_cached,load_shared_object,make_libraries_global,CompileCache::lookup,read_trusted,parse_function_record,function_record_key,host_identity,CLinker::prepare,current_cache+,make_c_thunk,asm_exc_page_fault,_dl_runtime_resolve}
[ -x "$bench" ] || { echo "$bench is missing: build the Release tree first" >&2; exit 2; }
command -v perf >/dev/null || { echo "perf is missing (apt-get install linux-perf)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
THEANO_FLAGS=compiledir="$work/cd" "$bench" --child "$w" "$dtype" --no-next >/dev/null
THEANO_FLAGS=compiledir="$work/cd" "$bench" --child "$w" "$dtype" --no-next
cat >"$work/loop.sh" <<LOOP
#!/usr/bin/env bash
for i in \$(seq $n); do THEANO_FLAGS=compiledir="$work/cd" "$bench" --child $w $dtype --no-next >/dev/null; done
LOOP
chmod +x "$work/loop.sh"
perf record -q -o "$work/perf.data" -e cpu-clock -F 20000 --call-graph dwarf,16384 "$work/loop.sh" 2>/dev/null
perf script -i "$work/perf.data" 2>/dev/null >"$work/perf.txt"
python3 - "$work/perf.txt" "$frames" <<'PY'
import collections, sys
samples = open(sys.argv[1]).read().split('\n\n')
keys = sys.argv[2].split(',')
total = 0
under = collections.Counter()
leaf = collections.Counter()
for s in samples:
    lines = s.strip().split('\n')
    if len(lines) < 2:
        continue
    frames = [l.strip().split(' ', 1)[1] if ' ' in l.strip() else l for l in lines[1:]]
    if not any(f.startswith('theano::function+') for f in frames):
        continue
    total += 1
    stack = ' | '.join(frames)
    for k in keys:
        if k in stack:
            under[k] += 1
    leaf[frames[0][:100]] += 1
if total == 0:
    sys.exit('no samples under theano::function (is perf allowed to read call stacks here?)')
print(f'{total} samples under theano::function; share of them under each frame:')
for k, v in under.most_common():
    print(f'{100 * v / total:6.1f} %  {k}')
print('hottest leaf frames:')
for k, v in leaf.most_common(15):
    print(f'{100 * v / total:6.1f} %  {k}')
PY
