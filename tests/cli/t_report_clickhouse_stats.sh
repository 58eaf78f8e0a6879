# gpulog-report --clickhouse: the summary's counts (events by level and
# component, mirrored records, first and last event) and the kernels'
# figures (count, min, max, mean,
# stddev, p50, p90, p95, p99, total) and their trends' least-squares sums
# computed by the server
# (gl_query_kernel_stats), over the rows the report's kernel pass keeps:
# mirrors, filters and launch copies left out (reports/launch_once.h).
# Many kernels, ties, a single timing, copies at one microsecond, within
# the tolerance and in chains, two nodes at one instant: the same report,
# byte for byte, as from the SQLite database of both nodes; some figures
# worked out by hand; the server's query log holds the statement.
. tests/cli/lib.sh
. tests/cli/clickhouse.sh

# line SECONDS MICROS LEVEL COMPONENT KERNEL DURATION: one analytics line
line() {
	printf '{"timestamp": "2025-11-16T10:%02d:%02d.%06dZ", "level": "%s", "component": "%s", "message": "Kernel %s executed in %sus", "gpu_metrics": {"kernel_name": "%s", "execution_time_us": %s}}\n' \
		$(($1 / 60)) $(($1 % 60)) $2 $3 $4 $5 $6 $5 $6
}
mkdir -p $T/a $T/b
{
	# solo: one timing
	line 1 0 INFO gpu solo 42.5
	# chain: INFO, WARNING 200 us later (a copy), INFO (its WARNING paired
	# already: a launch), WARNING (a copy); then 300: 100, 100, 300
	line 2 0 INFO gpu chain 100
	line 2 200 WARNING gpu chain 100
	line 2 400 INFO gpu chain 100
	line 2 600 WARNING gpu chain 100
	line 12 0 INFO gpu chain 300
	# same: two INFO at one microsecond (a copy), an INFO 1000 us later (not
	# within the tolerance: a launch), a WARNING 500 us after it (a copy)
	line 3 0 INFO gpu same 50
	line 3 0 INFO gpu same 50
	line 3 1000 INFO gpu same 50
	line 3 1500 WARNING gpu same 50
	# pair: two INFO at one microsecond (a copy), a WARNING 100 us later
	# (not a copy: the INFO before it paired already), an INFO (a copy of
	# the WARNING), a WARNING (that INFO paired: a launch): 60, 60, 60
	line 4 0 INFO gpu pair 60
	line 4 0 INFO gpu pair 60
	line 4 100 WARNING gpu pair 60
	line 4 200 INFO gpu pair 60
	line 4 300 WARNING gpu pair 60
	# ties: 7 7 7 9 9 9 9 11 11 11
	for i in 0 1 2 3 4 5 6 7 8 9; do
		line $((20 + i)) 0 INFO io ties $(( i < 3 ? 7 : i < 7 ? 9 : 11 ))
	done
	# shared: node b logs the same launch at the same instant as a WARNING
	line 30 0 INFO gpu shared 70
	# many kernels: m00..m59, 1 to 7 timings each, durations with ties
	awk 'BEGIN { for (k = 0; k < 60; k++) for (j = 0; j <= k % 7; j++)
		printf("{\"timestamp\": \"2025-11-16T11:%02d:%02d.%06dZ\", \"level\": \"%s\", \"component\": \"%s\", \"message\": \"m\", \"gpu_metrics\": {\"kernel_name\": \"m%02d\", \"execution_time_us\": %.3f}}\n",
			k, j, (k * 7919 + j * 104729) % 1000000, j == 3 ? "WARNING" : "INFO", k % 2 ? "gpu" : "io",
			k, 10 + (k * 13 + j * 7) % 5 + (j % 3) * 0.125) }'
	# big: 20,000 timings of one kernel, pairs of a launch and its copy (a
	# server that copied each row's array per row would need 3 GB for it)
	awk 'BEGIN { for (j = 0; j < 20000; j++)
		printf("{\"timestamp\": \"2025-11-16T%02d:%02d:%02d.%06dZ\", \"level\": \"%s\", \"component\": \"gpu\", \"message\": \"b\", \"gpu_metrics\": {\"kernel_name\": \"big\", \"execution_time_us\": %d.25}}\n",
			12 + int(j / 2 / 3600), int(j / 2 / 60) % 60, int(j / 2) % 60, j % 2 ? 300 : 0, j % 2 ? "WARNING" : "INFO", 100 + int(j / 2) % 97) }'
} > $T/a/app.log
{
	line 30 0 WARNING gpu shared 70
	line 31 0 INFO gpu shared 80.25
	line 1 0 INFO io solo 43.5
	printf '{"timestamp": "2025-11-16T10:00:40.000000Z", "level": "ERROR", "component": "io", "message": "disk full"}\n'
	printf '{"timestamp": "2025-11-16T10:00:41.000000Z", "level": "CRITICAL", "component": "gpu", "message": "Xid 79"}\n'
} > $T/b/app.log
ingest $T/a.db --host a $T/a || fail "ingest a"
ingest $T/b.db --host b $T/b || fail "ingest b"
ingest $T/ab.db --host a $T/a || fail "ingest ab, a"
ingest $T/ab.db --host b $T/b || fail "ingest ab, b"

ch_start one
U=$CH_URL_one
"$SHIP" -q --db $T/a.db --to $U --node a || fail "ship a"
"$SHIP" -q --db $T/b.db --to $U --node b || fail "ship b"

W="--since 2025-11-16 --until 2025-11-17 --top 100"
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
same_report "host a" --format csv --no-charts --host a
same_report "host b" --format csv --no-charts --host 'b*'
same_report "component io" --format csv --no-charts --component io
same_report "kernels m1*" --format csv --no-charts --kernel 'm1*' --component gpu
same_report "top 3" --format csv --no-charts --top 3
same_report "no such component" --format csv --no-charts --component nomatch
# at most 100 timings held at once (the kernel pass read again from the
# server, the kernels described in groups: m00..m59, big alone, ...)
GPULOG_REPORT_TEST_KERNEL_CACHE=100 same_report "groups" --format csv --no-charts

# By hand (both nodes): kernel, count, min, max, mean, stddev, p50, p90, p95, p99, total.
rm -rf $T/c
"$REPORT" --clickhouse $U $W --format csv --no-charts --output-dir $T/c > /dev/null || fail "csv"
row() { tr -d '\r' < $T/c/kernels.csv | awk -F, -v k="$1" '$1 == k { print $2, $3, $4, $5, $6, $7, $8, $9, $10, $11 }'; }
# solo: 42.5 (a) and 43.5 (b): mean 43, stddev sqrt(0.5), p90 = 42.5 + 0.9
expect_eq "solo" "2 42.5 43.5 43 0.707106781186548 43 43.4 43.45 43.49 86" "$(row solo)"
# chain: 100 100 300; mean 500/3; variance (2 (200/3)^2 + (400/3)^2) / 2 = 40000/3;
# p90: h = 1.8, 0.2 100 + 0.8 300 = 260; p95 280; p99 296
expect_eq "chain" "3 100 300 166.666666666667 115.470053837925 100 260 280 296 500" "$(row chain)"
expect_eq "same" "2 50 50 50 0 50 50 50 50 100" "$(row same)"
expect_eq "pair" "3 60 60 60 0 60 60 60 60 180" "$(row pair)"
# ties: 7 7 7 9 9 9 9 11 11 11: mean 9, variance (3 4 + 3 4) / 9; p50 = x(4) = x(5) = 9
expect_eq "ties" "10 7 11 9 1.63299316185545 9 11 11 11 90" "$(row ties)"
# shared: a's INFO and b's WARNING at one instant are one launch; b's 80.25;
# stddev 5.125 sqrt(2)
expect_eq "shared" "2 70 80.25 75.125 7.24784450716211 75.125 79.225 79.7375 80.1475 150.25" "$(row shared)"
# big: 10,000 launches of 100.25 to 196.25 (i % 97), each logged twice
expect_eq "big" 10000 "$(row big | cut -d' ' -f1)"
expect_eq "kernels listed" 67 "$(tr -d '\r' < $T/c/kernels.csv | tail -n +2 | wc -l)"

# The trend of ties (by hand, x in seconds since 10:00:00): x 20..29, mean
# 24.5, Sxx 82.5; y - 9 = -2 -2 -2 0 0 0 0 2 2 2, Sxy 42, Syy 24: slope 42 /
# 82.5 a second (86400 times that a day), at the window's start (x = -36000)
# 9 - (42 / 82.5) 36024.5, r2 42^2 / (82.5 24); p: twice the tail past
# t = r sqrt(8 / (1 - r2)) of Student's density with 8 degrees of freedom,
# integrated by Simpson's rule (4.054e-5)
rm -rf $T/j
"$REPORT" --clickhouse $U $W --format json --no-charts --output-dir $T/j > /dev/null || fail "json"
python3 - $T/j/report.json <<'PY' || fail "ties' trend"
import json, math, sys
t = [x for x in json.load(open(sys.argv[1]))["trends"] if x.get("kernel") == "ties"][0]
b = 42 / 82.5
want = {"n": 10, "slope_per_day": b * 86400, "intercept": 9 - b * 36024.5, "r2": 42 ** 2 / (82.5 * 24)}
for k, v in want.items():
    if abs(t[k] - v) > 1e-9 * abs(v):
        sys.exit("ties' trend: %s %r, want %r" % (k, t[k], v))
r2 = want["r2"]
tt = math.sqrt(r2 * 8 / (1 - r2))
c = math.gamma(4.5) / (math.sqrt(8 * math.pi) * math.gamma(4))
f = lambda u: c * (1 + u * u / 8) ** -4.5
h = 400 / 200000
p = 2 * h / 3 * (f(tt) + f(tt + 400) + sum((4 if i % 2 else 2) * f(tt + i * h) for i in range(1, 200000)))
if abs(t["p_value"] - p) > 1e-6 * p:
    sys.exit("ties' trend: p %r, want %r" % (t["p_value"], p))
PY

# Errors (both nodes): b's ERROR and CRITICAL; warnings: the WARNING lines,
# chain 2, same 1, pair 2, shared 1, big 10,000, m 33 (k % 7 >= 3, j = 3)
ev() { tr -d '\r' < $T/c/errors.csv | awk -F, -v k="$1" -v n="$2" '$1 == k && $2 == n { print $3 }'; }
expect_eq "errors" 2 "$(ev errors '')"
expect_eq "warnings" 10039 "$(ev warnings '')"
expect_eq "critical" 1 "$(ev by_level CRITICAL)"

# The server described them: each report above asked it once for its
# listed kernels (none listed with no such component; the groups' report
# four times: big alone, the others' 253 timings in three), and its
# answers held a row per listed kernel.
chq one "SYSTEM FLUSH LOGS"
STATS="type = 2 AND query LIKE '%arraySort(groupArray((ts_us, node, src_id, %' AND query LIKE '%GROUP BY kernel%'"
expect_eq "statements" 12 "$(chq one "SELECT count() FROM system.query_log WHERE $STATS")"
expect_eq "first report's kernels described" 67 \
	"$(chq one "SELECT result_rows FROM system.query_log WHERE $STATS ORDER BY event_time, query_start_time LIMIT 1")"
# The trends' sums in the same statements: Welford's states of the kept
# timings against their days (gl_fit_acc_add's recurrence, bit for bit).
expect_eq "trends' sums" 12 "$(chq one "SELECT count() FROM system.query_log WHERE $STATS AND query LIKE '%covarPopStableState'', k, kx%'")"
# The summary's and the errors' counts too: a statement each per logged
# report but the one whose filter keeps no component (nothing to ask).
COUNTS="type = 2 AND query LIKE '%GROUP BY level, component, m, la %'"
expect_eq "counted on the server" 18 "$(chq one "SELECT count() FROM system.query_log WHERE $COUNTS")"
expect_eq "events" "$(q $T/ab.db 'select count(*) from events where dup_of is null')" \
	"$(tr -d '\r' < $T/c/summary.csv | sed -n 's/^events,,//p')"
echo ok
