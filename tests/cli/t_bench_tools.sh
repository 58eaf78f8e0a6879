# The benchmark tools on their own: gen (layout, line count, mix, order,
# determinism), benchrun (status, wall time, peak RSS), inflate (counts
# equal to gzip -dc + wc -l) and gen_traces (a small Kineto trace and gpufl
# file that ingest with every kernel). Expected values come from gzip, wc, grep and
# sort, not from the tools themselves.
. tests/cli/lib.sh

GEN="$PWD/$BUILD/bench/gen"
BENCHRUN="$PWD/$BUILD/bench/benchrun"
INFLATE="$PWD/$BUILD/bench/inflate"
for t in "$GEN" "$BENCHRUN" "$INFLATE"; do
	[ -x "$t" ] || fail "'$t' is not built"
done

# all_lines DIR: the content of a generated tree, oldest line first.
all_lines() {
	for f in $(ls "$1"/archived/*.log.gz | sort); do gzip -dc "$f"; done
	for f in $(ls "$1"/gpu.log.*.gz | sed 's/.*gpu\.log\.\([0-9]*\)\.gz/\1/' | sort -rn); do
		gzip -dc "$1/gpu.log.$f.gz"
	done
	cat "$1/gpu.log.1" "$1/gpu.log"
}

# 1. layout: -f 30 is 30 files; 28 gzip, two thirds of them archived.
"$GEN" -f 30 "$T/a" 10000 7 > "$T/a.out" || fail "gen failed"
expect_eq "files" 30 "$(find "$T/a" -type f | wc -l | tr -d ' ')"
expect_eq "archived" 18 "$(ls "$T/a"/archived/gpu_????????_??????.log.gz | wc -l | tr -d ' ')"
expect_eq "rotated gz" 10 "$(ls "$T/a"/gpu.log.*.gz | wc -l | tr -d ' ')"
[ -f "$T/a/gpu.log.11.gz" ] && [ -f "$T/a/gpu.log.2.gz" ] || fail "gpu.log.2.gz .. gpu.log.11.gz expected"
for f in "$T/a"/archived/*.gz "$T/a"/gpu.log.*.gz; do
	gzip -t "$f" || fail "not valid gzip: $f"
done
[ "$(head -c 2 "$T/a/gpu.log" | od -An -tx1 | tr -d ' ')" != "1f8b" ] || fail "gpu.log is gzip"

# 2. content: every line, in time order, of the five components, ~70% kernels.
all_lines "$T/a" > "$T/a.txt"
expect_eq "lines" 10000 "$(wc -l < "$T/a.txt" | tr -d ' ')"
sed 's/^{"timestamp": "\([^"]*\)".*/\1/' "$T/a.txt" > "$T/a.ts"
sort -c "$T/a.ts" || fail "timestamps not in file order"
expect_eq "timestamp shape" 0 \
	"$(grep -cv '^2025-1[12]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9]\.[0-9]\{6\}Z$' "$T/a.ts")"
expect_eq "components" "error gpu memory performance server" \
	"$(sed 's/.*"component": "\([a-z]*\)".*/\1/' "$T/a.txt" | sort -u | tr '\n' ' ' | sed 's/ $//')"
k=$(grep -c '"message": "Kernel [a-z0-9_]* executed in [0-9.]*μs"' "$T/a.txt")
[ "$k" -ge 6500 ] && [ "$k" -le 7500 ] || fail "kernel lines: $k of 10000"
if command -v python3 >/dev/null 2>&1; then
	python3 -c 'import json, sys
for n, l in enumerate(open(sys.argv[1], encoding="utf-8"), 1):
    o = json.loads(l)
    if o["component"] == "gpu":
        g = o["gpu_metrics"]
        assert abs(o["execution_time_ms"] * 1000 - g["execution_time_us"]) < 0.02, n
        assert o["message"].startswith("Kernel " + g["kernel_name"] + " executed in "), n
' "$T/a.txt" || fail "a line is not JSON of the expected shape"
fi

# 3. determinism: same seed, same bytes and mtimes; another seed differs.
"$GEN" -f 30 "$T/b" 10000 7 > /dev/null || fail "gen failed"
diff -r "$T/a" "$T/b" > /dev/null || fail "same seed, different trees"
expect_eq "mtime" "$(ls -l --time-style=+%s "$T/a/gpu.log" | awk '{print $6}')" \
	"$(ls -l --time-style=+%s "$T/b/gpu.log" | awk '{print $6}')"
"$GEN" -f 30 "$T/c" 10000 8 > /dev/null || fail "gen failed"
cmp -s "$T/a/gpu.log" "$T/c/gpu.log" && fail "seeds 7 and 8 gave the same gpu.log"

# 4. inflate: the same counts as gzip -dc | wc, through zlib and the reader.
bytes=$(wc -c < "$T/a.txt" | tr -d ' ')
for mode in "" --reader; do
	out=$("$INFLATE" $mode "$T/a") || fail "inflate $mode failed"
	echo "$out" | grep -q "^files=30 lines=10000 bytes=$bytes " || fail "inflate $mode: $out"
done
gzip -c "$T/a.txt" | head -c 5000 > "$T/cut.gz"
"$INFLATE" --reader "$T/cut.gz" > /dev/null 2>&1 && fail "inflate --reader: a cut gzip passed"

# 5. benchrun: status, wall time and peak RSS of the child.
out=$("$BENCHRUN" -- sh -c 'exit 3')
expect_eq "benchrun status" 3 "$?"
echo "$out" | grep -q '^wall_s=[0-9.]* user_s=[0-9.]* sys_s=[0-9.]* maxrss_kib=[0-9]* status=3$' ||
	fail "benchrun line: $out"
out=$("$BENCHRUN" -- sleep 0.3) || fail "benchrun sleep"
awk -v w="$(echo "$out" | sed 's/^wall_s=\([0-9.]*\).*/\1/')" 'BEGIN { exit !(w >= 0.3 && w < 5) }' ||
	fail "wall time of sleep 0.3: $out"
out=$("$BENCHRUN" -- sh -c 'x=$(head -c 60000000 /dev/zero | tr "\0" a); echo ${#x}' | tail -n 1)
rss=$(echo "$out" | sed 's/.*maxrss_kib=\([0-9]*\).*/\1/')
[ "$rss" -ge 58000 ] || fail "peak RSS of a 60 MB string: $out"
"$BENCHRUN" -- "$T/no-such-command" > /dev/null 2>&1
expect_eq "benchrun missing command" 127 "$?"

# 6. gen_traces: a small Kineto trace and gpufl file ingest with every
#    kernel, each with its launch overhead. Counts from grep on the files;
#    elements: 2 x 25001 events + 3 annotations + 1 deviceProperties entry.
GENT="$PWD/$BUILD/bench/gen_traces"
[ -x "$GENT" ] || fail "'$GENT' is not built"
mkdir -p "$T/tr"
"$GENT" kineto "$T/tr/g.pt.trace.json" 25001 3 > "$T/tr.out" || fail "gen_traces kineto failed"
"$GENT" gpufl "$T/tr/g.kernel.0.log" 999 3 >> "$T/tr.out" || fail "gen_traces gpufl failed"
expect_eq "kineto kernels in the file" 25001 "$(grep -c '"cat": "kernel"' "$T/tr/g.pt.trace.json")"
expect_eq "kineto launches in the file" 25001 "$(grep -c '"name": "cudaLaunchKernel"' "$T/tr/g.pt.trace.json")"
expect_eq "kineto distinct correlations" 25001 \
	"$(grep -o '"correlation": [0-9]*' "$T/tr/g.pt.trace.json" | sort -u | wc -l | tr -d ' ')"
expect_eq "gpufl kernel_event lines" 999 "$(grep -c '^{"type":"kernel_event",' "$T/tr/g.kernel.0.log")"
grep -q "^kernels=25001 launches=25001 spans=3 elements=50006 bytes=$(wc -c < "$T/tr/g.pt.trace.json" | tr -d ' ')\$" \
	"$T/tr.out" || fail "gen_traces kineto line: $(cat "$T/tr.out")"
if command -v python3 >/dev/null 2>&1; then
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
k = {e["args"]["correlation"]: e for e in ev if e["cat"] == "kernel"}
l = {e["args"]["correlation"]: e for e in ev if e["cat"] == "cuda_runtime"}
assert len(k) == 25001 and set(k) == set(l)
assert all(l[c]["ts"] + l[c]["dur"] <= k[c]["ts"] for c in k)
for n, line in enumerate(open(sys.argv[2]), 1):
    o = json.loads(line)
    if o["type"] == "kernel_event":
        assert o["api_start_ns"] < o["api_exit_ns"] < o["start_ns"] < o["end_ns"], n
' "$T/tr/g.pt.trace.json" "$T/tr/g.kernel.0.log" || fail "gen_traces: not JSON of the expected shape"
fi
"$INGEST" -q --db "$T/tr.db" "$T/tr" || fail "ingest of the generated traces"
expect_eq "kernels and launch overheads stored per file" \
	"g.kernel.0.log|gpufl|999|999 g.pt.trace.json|kineto|25001|25001" \
	"$(q "$T/tr.db" "select replace(path, '$T/tr/', ''), source, count(kernel), count(launch_overhead_us)
		from v_events where kernel is not null group by path order by 1" | tr '\n' ' ' | sed 's/ $//')"
expect_eq "rejects" 0 "$(q "$T/tr.db" 'select count(*) from rejects')"
# the gzip form on its own (next to the plain one it would be its rotated copy)
mkdir -p "$T/trgz"
gzip -c "$T/tr/g.pt.trace.json" > "$T/trgz/g.pt.trace.json.gz"
"$INGEST" -q --db "$T/trgz.db" "$T/trgz" || fail "ingest of the gzip trace"
expect_eq "gzip trace: kernels, launch overheads, rejects" "25001|25001|0" \
	"$(q "$T/trgz.db" "select count(kernel), count(launch_overhead_us), (select count(*) from rejects)
		from v_events where kernel is not null")"

# 7. gen -l 512: lines shorter than 512 bytes are padded to exactly 512 with
#    a trace_id member or blanks (lengths by awk); the rest unchanged.
"$GEN" -f 6 -l 512 "$T/p" 2000 7 > /dev/null || fail "gen -l failed"
"$GEN" -f 6 "$T/u" 2000 7 > /dev/null || fail "gen failed"
all_lines "$T/p" > "$T/p.txt"
all_lines "$T/u" > "$T/u.txt"
expect_eq "padded lines" 2000 "$(wc -l < "$T/p.txt" | tr -d ' ')"
expect_eq "padded lines shorter than 512" 0 "$(awk 'length($0) + 1 < 512' "$T/p.txt" | wc -l | tr -d ' ')"
expect_eq "lines padded = lines of the unpadded tree under 512 bytes" \
	"$(awk 'length($0) + 1 < 512' "$T/u.txt" | wc -l | tr -d ' ')" \
	"$(grep -c -e '"trace_id": "[0-9a-f]*"}$' -e ' }$' "$T/p.txt")"
sed -e 's/, "trace_id": "[0-9a-f]*"}$/}/' -e 's/ *}$/}/' "$T/p.txt" | cmp -s - "$T/u.txt" ||
	fail "gen -l: without trace_id, not the unpadded lines"

# 8. diff-ingest: the same binary on both sides is "same"; an "old" side
#    that loses one event after its ingest must be found DIFFERENT.
DIFF="$PWD/tests/bench/diff-ingest"
mkdir -p "$T/d"
"$GEN" -f 3 "$T/d/logs" 500 7 > /dev/null || fail "gen failed"
out=$(sh "$DIFF" "$INGEST" "$INGEST" "$T/d/logs" "$T/d/absent") || fail "diff-ingest, same binary: $out"
echo "$out" | grep -q "^diff-ingest: same: $T/d/logs (" || fail "diff-ingest: $out"
echo "$out" | grep -q "^diff-ingest: skipped: $T/d/absent absent" || fail "diff-ingest: $out"
{
	echo '#!/bin/sh'
	echo "\"$INGEST\" \"\$@\" || exit \$?"
	echo 'while [ $# -gt 1 ]; do [ "$1" = --db ] && db=$2; shift; done'
	echo 'sqlite3 "$db" "delete from events where id = 7"'
} > "$T/d/lossy"
chmod +x "$T/d/lossy"
out=$(sh "$DIFF" "$T/d/lossy" "$INGEST" "$T/d/logs") && fail "diff-ingest missed a lost event: $out"
echo "$out" | grep -q "^diff-ingest: DIFFERENT rows: $T/d/logs" || fail "diff-ingest: $out"
exit 0
