# Profiler traces through the whole ingest: the real gpufl and Kineto files
# (counts from the database equal an independent python3 reading of the
# files), a second run stores nothing; a generated Kineto trace read while
# it is being written (cut mid-element and mid-line, then completed), and
# killed (SIGKILL) at several instants: every kernel and span stored once;
# a corrupt trace is rejected with its reason and the rest of the tree read.
. tests/cli/lib.sh

command -v python3 >/dev/null 2>&1 || skip "skipped: python3 absent"

# --- real traces -------------------------------------------------------
K=$REALDATA/kineto-trace
G=$REALDATA/gpufl/gpufl+gpufl-client
if [ -d "$K" ] && [ -d "$G" ]; then
	mkdir -p $T/real/kineto
	cp -r "$G" $T/real/gpufl
	cp "$K"/*/*.json.gz $T/real/kineto/
	ingest $T/real.db $T/real || fail "ingest of the real traces"
	python3 - "$T/real" > $T/real.want <<'PY' || fail "python3 count"
import gzip, json, os, sys
GPU = {'kernel', 'gpu_memcpy', 'gpu_memset', 'Kernel', 'Memcpy', 'Memset'}
LAUNCH = {'cuda_runtime', 'cuda_driver', 'Runtime'}
ANN = {'user_annotation', 'gpu_user_annotation'}
out = []
for dp, _, fs in os.walk(sys.argv[1]):
    for f in fs:
        p = os.path.join(dp, f)
        if f.endswith('.json.gz'):
            ev = [e for e in json.load(gzip.open(p))['traceEvents'] if e.get('ph') == 'X']
            gpu = [e for e in ev if e.get('cat') in GPU]
            corr = {e.get('args', {}).get('correlation') for e in ev if e.get('cat') in LAUNCH}
            wl = sum(1 for e in gpu if e.get('args', {}).get('correlation') in corr)
            out.append('%s|kineto|%d|%d|%d' % (f, len(gpu), wl, sum(1 for e in ev if e.get('cat') in ANN)))
        elif f.endswith('.log'):
            t = [json.loads(l).get('type') for l in open(p) if l.strip()]
            k = sum(1 for x in t if x in ('kernel_event', 'kernel', 'kernel_end'))
            out.append('%s|gpufl|%d|0|%d' % (p.split('/gpufl/', 1)[1], k, t.count('scope_end')))
print('\n'.join(sorted(out)))
PY
	q $T/real.db "select f, src, sum(k), sum(l), sum(s) from (
		select replace(path, '$T/real/' || source || '/', '') as f, source as src,
		       count(kernel) as k, count(launch_overhead_us) as l, 0 as s
		from v_events where source is not null group by path
		union all
		select replace(path, '$T/real/' || source || '/', ''), source, 0, 0, count(*)
		from v_spans group by path)
		group by f, src order by f" > $T/real.got
	diff $T/real.want $T/real.got > $T/real.diff || fail "real traces: counts differ from python3 (want < > got): $(cat $T/real.diff)"
	expect_eq "files read" 11 "$(q $T/real.db "select count(*) from files where status = 'read'")"
	expect_eq "v_events shows the path" 0 "$(q $T/real.db "select count(*) from v_events where source is not null and path is null")"
	expect_eq "v_spans shows the path and scope" 0 "$(q $T/real.db "select count(*) from v_spans where path is null or scope is null or name is null")"
	# The MI250 trace writes baseTimeNanoseconds after its events: its first
	# kernel is at base + ts (python: 2025-02-17 23:47:09.603454).
	expect_eq "MI250 first kernel time" 2025-02-17T23:47:09.603Z \
		"$(q $T/real.db "select min(time) from v_events where path like '%mi250%' and kernel is not null")"
	before="$(q $T/real.db 'select count(*) from events; select count(*) from spans; select count(*) from v_samples')"
	ingest $T/real.db $T/real || fail "second ingest of the real traces"
	expect_eq "second run stores nothing" "$before" \
		"$(q $T/real.db 'select count(*) from events; select count(*) from spans; select count(*) from v_samples')"
	expect_eq "second run: runs' lines stored" 0 "$(q $T/real.db 'select lines_stored from runs order by id desc limit 1')"
	expect_eq "second run stores no span twice" 0 \
		"$(q $T/real.db 'select count(*) from (select 1 from spans group by stream_id, line having count(*) > 1)')"
else
	echo "skipped: $REALDATA absent (real gpufl/Kineto traces)"
fi

# --- a generated Kineto trace ------------------------------------------
# Kernels in pairs written before their launch calls (k2j, k2j+1, launch
# 2j, launch 2j+1): k2j is let go while k2j+1 is held, so rows come from
# lines inside a held run. An annotation every 50 kernels.
gen_trace() {
	python3 - "$1" <<'PY'
import sys
n = int(sys.argv[1])
w = sys.stdout.write
w('{\n  "schemaVersion": 1,\n  "deviceProperties": [\n  ],\n  "traceEvents": [\n')
first = True
def ev(cat, name, ts, dur, args):
    global first
    if not first:
        w(',\n')
    first = False
    w('  {\n    "ph": "X", "cat": "%s", "name": "%s", "pid": 0, "tid": 7,\n'
      '    "ts": %d.250, "dur": %s,\n    "args": {\n      %s\n    }\n  }' % (cat, name, ts, dur, args))
base = 1712195495000000
for j in range(n // 2):
    for i in (2 * j, 2 * j + 1):
        ev('kernel', 'k%d' % i, base + 10 * i + 5, '%d.5' % (i % 7 + 1),
           '"device": 0, "stream": 7, "correlation": %d' % (i + 1))
    for i in (2 * j, 2 * j + 1):
        ev('cuda_runtime', 'cudaLaunchKernel', base + 10 * i, '3.5', '"correlation": %d' % (i + 1))
    if j % 25 == 0:
        ev('user_annotation', 'step%d' % j, base + 20 * j, '8', '"External id": %d' % j)
w('\n  ],\n  "traceName": "gen"\n}\n')
PY
}
N=40000
gen_trace $N > $T/full.json || fail "generating a trace"
mkdir -p $T/ref
cp $T/full.json $T/ref/t.pt.trace.json
ingest $T/ref.db $T/ref || fail "reference ingest"
expect_eq "generated: kernels" $N "$(q $T/ref.db "select count(distinct kernel) from v_events where source = 'kineto'")"
expect_eq "generated: spans" $((N / 50)) "$(q $T/ref.db "select count(*) from v_spans")"
# k2j+1 gets its launch call (3.5 µs); k2j was let go before its call came
expect_eq "generated: launch overheads" $((N / 2)) "$(q $T/ref.db "select count(*) from events where launch_overhead_us = 3.5")"
rows() { q "$1" "select kernel || ' ' || ts_us || ' ' || dur_us from v_events where source = 'kineto' order by 1; select name || ' ' || start_us from v_spans order by 1"; }
rows $T/ref.db > $T/ref.txt

# A trace still being written: cut inside an element (at a line end: after
# "args": {, and mid-line), after k(2j+1)'s closing line (k2j let go, k2j+1
# held), then completed.
size=$(wc -c < $T/full.json)
for cut in $(grep -n '"args": {' $T/full.json | sed -n '301p;5001p' | cut -d: -f1) \
	   $(grep -n '"name": "k601"' $T/full.json | cut -d: -f1); do
	bytes=$(head -n $((cut + 3)) $T/full.json | wc -c)
	for extra in 0 17; do
		rm -rf $T/w $T/w.db*
		mkdir -p $T/w
		head -c $((bytes + extra)) $T/full.json > $T/w/t.pt.trace.json
		ingest $T/w.db $T/w || fail "ingest of a trace cut at $bytes + $extra"
		tail -c +$((bytes + extra + 1)) $T/full.json >> $T/w/t.pt.trace.json
		ingest $T/w.db $T/w || fail "ingest of the completed trace"
		rows $T/w.db > $T/w.txt
		cmp -s $T/ref.txt $T/w.txt || fail "trace cut at $bytes + $extra, then completed: $(diff $T/ref.txt $T/w.txt | head -3)"
	done
done
[ "$(wc -c < $T/w/t.pt.trace.json)" = "$size" ] || fail "test: completed trace differs in size"

# Killed at several instants, several kills in a row: stored once each.
for delays in "0.1" "0.3" "0.05 0.2 0.1" "0.5"; do
	rm -f $T/k.db $T/k.db-wal $T/k.db-shm
	for d in $delays; do
		"$INGEST" -q --db $T/k.db $T/ref &
		pid=$!
		sleep $d
		kill -9 $pid 2>/dev/null
		wait $pid 2>/dev/null
	done
	ingest $T/k.db $T/ref || fail "run after kills ($delays)"
	rows $T/k.db > $T/k.txt
	cmp -s $T/ref.txt $T/k.txt || fail "after kills at $delays: $(diff $T/ref.txt $T/k.txt | head -3)"
done

# A trace keeps no hash per line (a Kineto trace is one document, written
# once; 28M lines for 2M kernels): a trace rewritten in place is a new
# document, whose records already stored are found again by their record
# hash (dup_of), so nothing counts twice. Rewritten here with the same
# first half and the durations of 1.5 us in its second half changed.
expect_eq "trace streams keep no line hashes" "1|0|0" \
	"$(q $T/ref.db "select count(*), sum(lines_hashed), (select count(*) from stream_lines) from streams where format = 'kineto'")"
half=$(grep -n '"name": "k20000"' $T/full.json | cut -d: -f1)
awk -v m="$half" 'NR > m { sub(/"dur": 1\.5,/, "\"dur\": 9.5,") } { print }' $T/full.json > $T/rewritten.json
# the changed kernels: k(i), 20000 <= i < N, i % 7 == 0 (their duration i % 7 + 1.5 was 1.5)
changed=$(awk -v n=$N 'BEGIN { c = 0; for (i = 20000; i < n; i++) if (i % 7 == 0) c++; print c }')
expect_eq "rewritten: lines changed" "$changed" "$(diff $T/full.json $T/rewritten.json | grep -c '^>')"
ino=$(stat -c %i $T/ref/t.pt.trace.json)
cat $T/rewritten.json > $T/ref/t.pt.trace.json
touch -d '1 hour ago' $T/ref/t.pt.trace.json
expect_eq "rewritten in place" "$ino" "$(stat -c %i $T/ref/t.pt.trace.json)"
ingest $T/ref.db $T/ref || fail "ingest of the rewritten trace"
expect_eq "rewritten: originals (every kernel once, the changed ones twice)" $((N + changed)) \
	"$(q $T/ref.db "select count(*) from events where source = 'kineto' and dup_of is null")"
expect_eq "rewritten: its records, mirrors of the first document's" $((2 * N)) \
	"$(q $T/ref.db "select count(*) from events where source = 'kineto'")"
expect_eq "rewritten: the changed durations" "$changed" \
	"$(q $T/ref.db "select count(*) from events where source = 'kineto' and dur_us = 9.5 and dup_of is null")"
before=$(q $T/ref.db "select count(*) from events")
ingest $T/ref.db $T/ref || fail "re-run over the rewritten trace"
expect_eq "rewritten: a re-run stores nothing" "$before" "$(q $T/ref.db "select count(*) from events")"
# a shorter copy (the first half of the document, cut) adds no original
head -n "$half" $T/rewritten.json > $T/ref/copy.pt.trace.json
touch -d '1 hour ago' $T/ref/copy.pt.trace.json
ingest $T/ref.db $T/ref
expect_eq "shorter copy: no new original" $((N + changed)) \
	"$(q $T/ref.db "select count(*) from events where source = 'kineto' and dup_of is null")"

# --- a corrupt trace and a truncated gzip trace among good files -----------
mkdir -p $T/bad
gen_trace 20 > $T/small.json
{ head -n 40 $T/small.json; echo '    "ts": 17121954#######'; tail -n +41 $T/small.json; } > $T/bad/corrupt.pt.trace.json
gen_trace 2000 | gzip -c > $T/big.gz
head -c $(($(wc -c < $T/big.gz) / 2)) $T/big.gz > $T/bad/cut.pt.trace.json.gz
genlines good 0 5 > $T/bad/gpu.log
ingest $T/bad.db $T/bad 2> $T/bad.err
expect_eq "the JSON log next to the bad traces" 5 "$(q $T/bad.db "select count(*) from v_events where path like '%gpu.log'")"
expect_eq "corrupt trace: reason" 1 "$(q $T/bad.db "select count(*) > 0 from v_rejects where path like '%corrupt%' and reason like 'Kineto trace%'")"
expect_eq "corrupt trace: kernels before the damage kept" 1 "$(q $T/bad.db "select count(*) > 0 from v_events where path like '%corrupt%' and kernel is not null")"
expect_eq "truncated gzip trace: damaged" damaged "$(q $T/bad.db "select status from files where path like '%cut.pt%'")"
grep -q "cut.pt.trace.json.gz" $T/bad.err || fail "the truncated trace is not named: $(cat $T/bad.err)"
exit 0
