# Metric samples through the pipeline: the service's own figures
# (memory_usage_mb, gpu_metrics.gpu_utilization_percent,
# gpu_metrics.memory_peak_mb) become samples next to the event, one series
# per metric, found once; a run killed mid-way stores each sample once.
. tests/cli/lib.sh

d=$T/logs; mkdir -p $d; db=$T/db
cat > $d/gpu.log <<'L'
{"timestamp": "2025-11-16T10:00:00Z", "level": "INFO", "component": "gpu", "message": "a", "memory_usage_mb": 2048.5, "gpu_metrics": {"gpu_utilization_percent": 87.5, "memory_peak_mb": 3100}}
{"timestamp": "2025-11-16T10:00:01Z", "level": "INFO", "component": "gpu", "message": "b", "memory_usage_mb": 1024}
{"timestamp": "2025-11-16T10:00:02Z", "level": "INFO", "component": "gpu", "message": "no figures"}
{"level": "INFO", "component": "gpu", "message": "no time", "memory_usage_mb": 5}
L
touch -d '1 hour ago' $d/gpu.log
out=$("$INGEST" --db $db --host node1 $d 2>&1) || fail "ingest: $out"
# 4 samples: 3 of line 1, 1 of line 2; a record without a time gives none
echo "$out" | grep -q "^gpulog-ingest: 4 metric samples stored" || fail "summary: $out"
expect_eq "samples" "2025-11-16T10:00:00.000Z|gpu.memory_used_mib|2048.5|node1|json|1
2025-11-16T10:00:00.000Z|gpu.memory_peak_mib|3100.0|node1|json|1
2025-11-16T10:00:00.000Z|gpu.utilization_pct|87.5|node1|json|1
2025-11-16T10:00:01.000Z|gpu.memory_used_mib|1024.0|node1|json|2" \
	"$(q $db 'select time, metric, value, host, source, line from v_samples order by ts_us, id')"
# 1763287200 = 2025-11-16T10:00:00Z (date -u -d @1763287200)
expect_eq "ts_us" 1763287200000000 "$(q $db 'select min(ts_us) from v_samples')"
expect_eq "path" "$d/gpu.log" "$(q $db 'select distinct path from v_samples')"
expect_eq "series" "3|0" "$(q $db 'select count(*), count(device) from series')"
# the event keeps its columns
expect_eq "event columns" "2048.5|87.5|3100.0" "$(q $db "select mem_mb, util_pct, peak_mb from events where message = 'a'")"

# New lines reuse the series; a re-run stores nothing.
echo '{"timestamp": "2025-11-16T10:00:03Z", "level": "INFO", "message": "c", "memory_usage_mb": 512}' >> $d/gpu.log
touch -d '1 hour ago' $d/gpu.log
ingest $db --host node1 $d || fail "second run"
ingest $db --host node1 $d || fail "third run"
expect_eq "samples after appends" "5|3" "$(q $db 'select count(*), count(distinct series_id) from v_samples')"
# blocks are numbered in the order they were stored, across runs: the first
# run stored one block per series in the order of their first sample
# (memory_used_mib with lines 1 and 2, then memory_peak_mib, then
# utilization_pct), the second a 4th block with the appended line 5
expect_eq "sample blocks" "1|1|1|2|2|1|3|1|4|5" \
	"$(q $db 'select block_id, line from v_samples order by id' | tr '\n' '|' | sed 's/|$//')"
expect_eq "block sizes" "2|1|1|1" "$(q $db 'select n from sample_blocks order by id' | tr '\n' '|' | sed 's/|$//')"
# another host is another series
mkdir $T/other; head -n 1 $d/gpu.log | sed 's/"a"/"x"/' > $T/other/gpu.log
touch -d '1 hour ago' $T/other/gpu.log
ingest $db --host node2 $T/other || fail "node2 run"
expect_eq "series per host" "node1|3
node2|3" "$(q $db 'select h.name, count(*) from series s join names h on h.id = s.host_id group by 1 order by 1')"

# Kill -9 at several instants: every sample once, as in an uninterrupted run.
mkdir $T/big
awk 'BEGIN { for (i = 0; i < 150000; i++)
	printf("{\"timestamp\": \"2025-11-16T%02d:%02d:%02d.%06dZ\", \"level\": \"INFO\", \"message\": \"m %d\", \"memory_usage_mb\": %d, \"gpu_metrics\": {\"gpu_utilization_percent\": %d}}\n",
	       int(i / 3600) % 24, int(i / 60) % 60, i % 60, i, i, i, i % 100) }' > $T/big/gpu.log
touch -d '1 hour ago' $T/big/gpu.log
for delays in "0.1" "0.3 0.2" "0.6"; do
	kdb=$T/k.db
	rm -f $kdb $kdb-wal $kdb-shm $kdb-journal
	for w in $delays; do
		"$INGEST" -q --db $kdb $T/big &
		pid=$!
		sleep $w
		kill -9 $pid 2>/dev/null
		wait $pid 2>/dev/null
	done
	ingest $kdb $T/big || fail "run after kill ($delays)"
	# 150,000 lines x 2 figures; sum of memory_usage_mb = 0 + ... + 149999
	expect_eq "samples after kill ($delays)" "300000|11249925000.0" \
		"$(q $kdb "select count(*), (select sum(value) from v_samples where metric = 'gpu.memory_used_mib') from v_samples")"
	expect_eq "no sample twice ($delays)" 0 \
		"$(q $kdb 'select count(*) from (select 1 from v_samples group by path, line, series_id having count(*) > 1)')"
done
exit 0
