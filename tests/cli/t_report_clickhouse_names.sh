# gpulog-report --clickhouse over more names than one statement carries
# (lib/store/query_ch.c names_sql: past 100,000 bytes the events come with
# their names' text, not their ids): 6,000 kernels of 40-byte names, and a
# name with a quote and a backslash, give the same report as SQLite.
. tests/cli/lib.sh
. tests/cli/clickhouse.sh

mkdir -p $T/logs
awk 'BEGIN {
	for (i = 0; i < 12000; i++) {
		k = i % 6000; s = int(i / 10) % 60; m = int(i / 600) % 60;
		printf("{\"timestamp\": \"2025-11-16T10:%02d:%02d.%06dZ\", \"level\": \"INFO\", \"component\": \"gpu\", \"message\": \"m %d\", \"gpu_metrics\": {\"kernel_name\": \"void gemm_kernel_templated<float, %05d>\", \"execution_time_us\": %d.25}}\n", m, s, i, i, k, 100 + (i * 7) % 53);
	}
	printf("{\"timestamp\": \"2025-11-16T11:00:00.000001Z\", \"level\": \"WARN\", \"component\": \"gpu\", \"message\": \"q\", \"gpu_metrics\": {\"kernel_name\": \"it'\''s \\\\ odd\", \"execution_time_us\": 5.5}}\n");
}' > $T/logs/gpu.log
ingest $T/n.db --host n $T/logs || fail "ingest"
expect_eq "kernels" 6001 "$(q $T/n.db "select count(distinct kernel_id) from events where kernel_id is not null")"
names_bytes=$(q $T/n.db "select sum(length(name) + 4) from names")
[ "$names_bytes" -gt 100000 ] || fail "the names fit one statement ($names_bytes bytes): not the case tested"

ch_start one
"$SHIP" -q --db $T/n.db --to $CH_URL_one --node n || fail "ship"
for fmt in json csv; do
	rm -rf $T/r1 $T/r2
	"$REPORT" --db $T/n.db --until 2025-11-17 --format $fmt --no-charts --output-dir $T/r1 > /dev/null ||
		fail "sqlite report"
	"$REPORT" --clickhouse $CH_URL_one --until 2025-11-17 --format $fmt --no-charts \
		--output-dir $T/r2 > /dev/null || fail "clickhouse report"
	diff -r $T/r1 $T/r2 > $T/d || fail "$fmt: reports differ: $(head -20 $T/d)"
done
grep -rq "it.s . odd" $T/r2 || fail "the odd kernel is in no output"

# Few names, the odd one among them: they go as ids (the statement quotes it).
mkdir -p $T/small
{ head -n 20 $T/logs/gpu.log; tail -n 1 $T/logs/gpu.log; } > $T/small/gpu.log
ingest $T/s.db --host s $T/small || fail "ingest small"
chq one "CREATE DATABASE small"
"$SHIP" -q --db $T/s.db --to "${CH_URL_one}?database=small" --node s || fail "ship small"
rm -rf $T/r1 $T/r2
"$REPORT" --db $T/s.db --until 2025-11-17 --format json --no-charts --output-dir $T/r1 > /dev/null ||
	fail "sqlite report, small"
"$REPORT" --clickhouse "${CH_URL_one}?database=small" --until 2025-11-17 --format json --no-charts \
	--output-dir $T/r2 > /dev/null || fail "clickhouse report, small"
diff -r $T/r1 $T/r2 > $T/d || fail "small: reports differ: $(head -20 $T/d)"
grep -q "it's .* odd" $T/r2/report.json || fail "the odd kernel is not in the small report"
echo ok
