# The report's readers leave the kernel-trace columns out when no stream of
# a trace format exists (lib/store/query.c, TRACE_FORMATS_SQL). Each
# kernel's "source" in the json report must name every profiler that wrote
# one of its timings in the window: the set computed by sqlite3 from
# events.source. Checked on the bundled sample tree (every format gpulog
# reads) and on each trace format's files alone, where a format missing
# from the readers' list would lose its sources.
. tests/cli/lib.sh

cp -r fixtures/sample-logs $T/logs
# files whose times count from their modification time (as t_ingest_sample.sh)
touch -d '2025-11-16T23:00:00Z' $T/logs/rmm/* $T/logs/inference/vllm_server.log \
	$T/logs/inference/bitnet_metrics.jsonl $T/logs/profiler/nsys_cuda_gpu_trace.csv \
	$T/logs/node/kern.log $T/logs/node/job/nccl.node1.653.log $T/logs/node/job/trainer_state.json \
	$T/logs/node/job/checkpoint-50/trainer_state.json $T/logs/node/eval/lightning_logs/version_0/metrics.csv
"$INGEST" --quiet --config fixtures/sample-logs.ingest.json --db $T/db $T/logs ||
	fail "ingest of the sample tree"
# every trace format of the tree stored rows with a source
expect_eq "trace formats with rows" "gpufl kineto nsys" "$(q $T/db "select group_concat(f, ' ')
	from (select distinct s.format f from events e join streams s on s.id = e.stream_id
	where e.source is not null order by 1)")"

# check DB: each kernel's profilers in the json report against sqlite3's
check() {
	"$REPORT" --db $1 --until 2025-11-17 --days 7 --top 1000 --no-charts --format json \
		--output-dir $1.out >/dev/null || fail "report of $1"
	q $1 "select n.name || '|' || group_concat(distinct e.source) from events e
		join names n on n.id = e.kernel_id
		where e.source is not null and e.ts_us >= 1762732800000000
		and e.ts_us < 1763337600000000 group by n.name" > $1.want
	python3 - $1.want $1.out/report.json > $1.cmp <<'PY' || fail "$1: $(cat $1.cmp)"
import json, sys
want = {}
for line in open(sys.argv[1]):
    name, srcs = line.rstrip('\n').rsplit('|', 1)
    want[name] = set(srcs.split(','))
got = {}
for k in json.load(open(sys.argv[2]))['kernels']:
    got[k['kernel']] = set(s for s in (k.get('source') or '').split(',') if s and s != 'log')
bad = [n for n in set(want) | set(got) if got.get(n, set()) != want.get(n, set())]
if not want or bad:
    print('no trace kernels' if not want else
          '; '.join('%s: want %s got %s' % (n, sorted(want.get(n, ())), sorted(got.get(n, ())))
                    for n in sorted(bad)))
    sys.exit(1)
PY
}
check $T/db
# each trace format alone (the readers decide per database): its files only
for f in gpufl kineto nsys; do
	mkdir $T/$f
	q $T/db "select distinct s.first_path from events e join streams s on s.id = e.stream_id
		where e.source is not null and s.format = '$f'" > $T/$f.files
	[ -s $T/$f.files ] || fail "no $f files"
	while read -r path; do
		cp -p "$path" $T/$f/ || fail "copying $path"
	done < $T/$f.files
	"$INGEST" --quiet --config fixtures/sample-logs.ingest.json --db $T/$f.db $T/$f ||
		fail "ingest of the $f files"
	expect_eq "$f: formats" "$f" "$(q $T/$f.db "select group_concat(distinct format) from streams")"
	check $T/$f.db
done
