# BitNet-rs PerformanceMetrics lines carry no time: the lines new in a run
# are spread by byte offset between the file's modification time at the
# previous run and its modification time now; the first run puts them at
# the file's modification time. Samples say so (ts_estimated).
. tests/cli/lib.sh

mkdir -p $T/logs
line() { printf '{"total_latency_ms": %s, "tokens_generated": 64, "tokens_per_second": 41.5, "first_token_latency_ms": 80.0}\n' "$1"; }
line 1500.0 > $T/logs/metrics.jsonl
line 1600.0 >> $T/logs/metrics.jsonl
touch -d '2025-11-16T10:00:00Z' $T/logs/metrics.jsonl
ingest $T/db $T/logs || fail "first run"
# 1763287200 = 2025-11-16T10:00:00Z (date -u -d @1763287200)
expect_eq "first run: both at the mtime" "1763287200000000|1763287200000000" \
	"$(q $T/db "select min(ts_us), max(ts_us) from v_events where component = 'bitnet'")"
# two more lines of the same length, 100 s later: they land at +50 s and +100 s
line 1700.0 >> $T/logs/metrics.jsonl
line 1800.0 >> $T/logs/metrics.jsonl
touch -d '2025-11-16T10:01:40Z' $T/logs/metrics.jsonl
ingest $T/db $T/logs || fail "second run"
expect_eq "second run: spread by bytes" "1763287250000000
1763287300000000" \
	"$(q $T/db "select ts_us from v_events where component = 'bitnet' order by id limit 2 offset 2")"
expect_eq "samples estimated" 0 \
	"$(q $T/db "select count(*) from v_samples where source = 'bitnet' and ts_estimated = 0")"
exit 0
