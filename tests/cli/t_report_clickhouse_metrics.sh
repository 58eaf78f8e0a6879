# gpulog-report --clickhouse: the metrics section's per-series figures
# (count, min, max, mean, p50, p95, p99, last value, first and last time)
# and the series' trend sums computed by the server
# (gl_query_series_stats), over the samples the samples pass hands the
# section. Two nodes (two GPUs on a, one on b), seven metrics a GPU, ties,
# constant series, a series of a single sample: the same report, byte for
# byte, as from the SQLite database of both nodes; some figures worked out
# by hand; the server's query log holds the statements.
. tests/cli/lib.sh
. tests/cli/clickhouse.sh

HEAD='timestamp, index, name, uuid, utilization.gpu [%], utilization.memory [%], memory.used [MiB], memory.total [MiB], power.draw [W], temperature.gpu, clocks.sm [MHz]'
mkdir -p $T/a/telemetry $T/b/telemetry
# a: GPUs 0 and 1, a reading a minute from 10:00, i = 0..9: utilization
# (37 i + 11 g) % 100, memory 2500 + 10 i + g, power 100 + 25.5 (i % 3) + g,
# temperature 40 + i % 4
awk -v h="$HEAD" 'BEGIN { print h; for (i = 0; i < 10; i++) for (g = 0; g < 2; g++)
	printf("2025/11/16 10:%02d:00.%03d, %d, NVIDIA A100-SXM4-40GB, GPU-%d, %d %%, 15 %%, %d MiB, 40960 MiB, %.2f W, %d, 1410 MHz\n",
		i, 100 + g, g, g, (i * 37 + g * 11) % 100, 2500 + i * 10 + g, 100 + (i % 3) * 25.5 + g, 40 + i % 4) }' \
	> $T/a/telemetry/nvidia-smi.csv
# b: one reading of one GPU
{ echo "$HEAD"
  echo '2025/11/16 10:05:00.100, 0, NVIDIA A100-SXM4-40GB, GPU-9, 50 %, 15 %, 3000 MiB, 40960 MiB, 222.25 W, 55, 1410 MHz'
} > $T/b/telemetry/nvidia-smi.csv
ingest $T/a.db --host a $T/a || fail "ingest a"
ingest $T/b.db --host b $T/b || fail "ingest b"
ingest $T/ab.db --host a $T/a || fail "ingest ab, a"
ingest $T/ab.db --host b $T/b || fail "ingest ab, b"

ch_start one
U=$CH_URL_one
"$SHIP" -q --db $T/a.db --to $U --node a || fail "ship a"
"$SHIP" -q --db $T/b.db --to $U --node b || fail "ship b"

W="--since 2025-11-16 --until 2025-11-17"
same_report() {
	name=$1
	shift
	rm -rf $T/r1 $T/r2
	"$REPORT" --db $T/ab.db $W "$@" --output-dir $T/r1 > /dev/null 2> $T/e1 || fail "$name: sqlite report: $(cat $T/e1)"
	"$REPORT" --clickhouse "${U}?log_queries=1" $W "$@" --output-dir $T/r2 > /dev/null 2> $T/e2 ||
		fail "$name: clickhouse report: $(cat $T/e2)"
	diff -r $T/r1 $T/r2 > $T/d || fail "$name: reports differ: $(head -20 $T/d)"
}
same_report "json, charts" --format json
same_report "csv" --format csv --no-charts
same_report "text" --format text --no-charts
same_report "host b" --format csv --no-charts --host b
same_report "power" --format csv --no-charts --metric 'gpu.power*'
same_report "no such metric" --format csv --no-charts --metric nomatch

# By hand (the labels hold commas: the figures counted from the end):
# metric, host, device: count, min, max, mean, p50, p95, p99, last.
rm -rf $T/c
"$REPORT" --clickhouse $U $W --format csv --no-charts --output-dir $T/c > /dev/null || fail "csv"
row() { tr -d '\r' < $T/c/metrics.csv | awk -F, -v m="$1" -v h="$2" -v d="$3" \
	'$1 == m && $3 == d && $5 == h { print $(NF-9), $(NF-8), $(NF-7), $(NF-6), $(NF-5), $(NF-4), $(NF-3), $(NF-2) }'; }
# a, GPU 0, power: 100 125.5 151 100 125.5 151 100 125.5 151 100: sorted
# 100 x4, 125.5 x3, 151 x3; mean 1229.5 / 10; p50 x(4.5) = 125.5; p95
# x(8.55) = 151; last (i = 9) 100
expect_eq "a 0 power" "10 100 151 122.95 125.5 151 151 100" "$(row gpu.power_w a 0)"
# a, GPU 0, utilization: 0 37 74 11 48 85 22 59 96 33; sorted 0 11 22 33 37
# 48 59 74 85 96: mean 46.5, p50 (37 + 48) / 2, p95 85 + 0.55 11, p99 85 + 0.91 11
expect_eq "a 0 utilization" "10 0 96 46.5 42.5 91.05 95.01 33" "$(row gpu.utilization_pct a 0)"
# a, GPU 1, temperature: 40 41 42 43 40 41 42 43 40 41 (ties): mean 41.3,
# p50 41, p95 and p99 43, last 41
expect_eq "a 1 temperature" "10 40 43 41.3 41 43 43 41" "$(row gpu.temperature_c a 1)"
expect_eq "b 0 power, one sample" "1 222.25 222.25 222.25 222.25 222.25 222.25 222.25" \
	"$(row gpu.power_w b 0)"
expect_eq "series" 21 "$(tr -d '\r' < $T/c/metrics.csv | tail -n +2 | wc -l)"

# The trend of a's GPU 0 utilization (by hand, x in minutes): x 0..9, mean
# 4.5, Sxx 82.5; sum of x y 2445, Sxy 2445 - 4.5 465 = 352.5: a slope of
# 352.5 / 82.5 a minute, 1440 times that a day
rm -rf $T/j
"$REPORT" --clickhouse $U $W --format json --no-charts --output-dir $T/j > /dev/null || fail "json"
python3 - $T/j/report.json <<'PY' || fail "utilization's trend"
import json, sys
t = [x for x in json.load(open(sys.argv[1]))["trends"]
     if x.get("kernel") == "gpu.utilization_pct" and x.get("host") == "a" and x.get("device") == "0"][0]
want = 352.5 / 82.5 * 1440
if t["n"] != 10 or abs(t["slope_per_day"] - want) > 1e-9 * want:
    sys.exit("utilization's trend: n %r, slope %r a day, want 10, %r" % (t["n"], t["slope_per_day"], want))
PY

# The server described them: a statement per report (but the one whose
# filter keeps no series), a row per series it kept; and counted the
# series' samples first.
chq one "SYSTEM FLUSH LOGS"
STATS="type = 2 AND query LIKE '%groupArray((ts_us, node, src_id, idx, value))%' AND query LIKE '%varPopStableState%'"
expect_eq "statements" 5 "$(chq one "SELECT count() FROM system.query_log WHERE $STATS")"
expect_eq "series described" "21 21 21 7 3" \
	"$(chq one "SELECT result_rows FROM system.query_log WHERE $STATS ORDER BY event_time, query_start_time" | tr '\n' ' ' | sed 's/ $//')"
echo ok
