# gpulog-report --clickhouse: two nodes shipped (one killed in the middle
# and run again) give the same report, byte for byte, as gpulog-report over
# one SQLite database into which both nodes' logs were ingested: every
# format, charts, --host to narrow. Then the same through a Distributed
# table over two servers, each holding one node.
. tests/cli/lib.sh
. tests/cli/clickhouse.sh

# Node a: the sample logs. Node b: its own lines, a copy of gpu.log.1 with
# other whitespace (the same times as a's: rows of two nodes at one
# instant) and nvidia-smi samples of other values.
mkdir -p $T/b/telemetry
sed 's/"level": /"level":  /' fixtures/sample-logs/gpu.log.1 > $T/b/gpu.log.1
genlines b 0 3000 > $T/b/gpu.log
awk -F', ' 'BEGIN { OFS = ", " } NR == 1 { sub(/timestamp, index/, "timestamp,  index"); print; next }
	{ w = $9; sub(/ W/, "", w); $9 = sprintf("%.2f W", w + 1.5); print }' \
	fixtures/sample-logs/telemetry/nvidia-smi.csv > $T/b/telemetry/nvidia-smi.csv
CFG="--config fixtures/sample-logs.ingest.json"
ingest $T/a.db --host a $CFG fixtures/sample-logs || fail "ingest a"
ingest $T/b.db --host b $T/b || fail "ingest b"
# the one database of both, a first (rows of one instant: a's, then b's)
ingest $T/ab.db --host a $CFG fixtures/sample-logs || fail "ingest ab, a"
ingest $T/ab.db --host b $T/b || fail "ingest ab, b"
expect_eq "events of both" $(( $(q $T/a.db 'select count(*) from events') + $(q $T/b.db 'select count(*) from events') )) \
	"$(q $T/ab.db 'select count(*) from events')"

ch_start one
U=$CH_URL_one
"$SHIP" -q --db $T/a.db --to $U --node a || fail "ship a"
GPULOG_SHIP_TEST_KILL=0:2 "$SHIP" -q --db $T/b.db --to $U --node b --batch-rows 1000
expect_eq "b killed between ship and mark" 137 $?
"$SHIP" -q --db $T/b.db --to $U --node b --batch-rows 1000 || fail "ship b again"

# same_report NAME URL ARGS...: the SQLite and the ClickHouse report agree.
same_report() {
	name=$1 url=$2
	shift 2
	rm -rf $T/r1 $T/r2
	"$REPORT" --db $T/ab.db "$@" --output-dir $T/r1 > /dev/null 2> $T/e1 || fail "$name: sqlite report: $(cat $T/e1)"
	"$REPORT" --clickhouse "$url" "$@" --output-dir $T/r2 > /dev/null 2> $T/e2 ||
		fail "$name: clickhouse report: $(cat $T/e2)"
	diff -r $T/r1 $T/r2 > $T/d || fail "$name: reports differ: $(head -20 $T/d)"
	# (the notes only: under make check LeakSanitizer adds its own lines)
	[ "$(grep '^gpulog-report:' $T/e1)" = "$(grep '^gpulog-report:' $T/e2)" ] ||
		fail "$name: notes differ: $(cat $T/e1 $T/e2)"
}
W="--since 2025-11-01 --until 2025-12-01"
same_report "json, charts" $U $W --format json
same_report "csv" $U $W --format csv --no-charts
same_report "text" $U $W --format text --no-charts
same_report "host b" $U $W --format json --no-charts --host b
same_report "host a" $U $W --format json --no-charts --host 'a*'
same_report "3 days" $U --until 2025-11-17 --days 3 --format json --no-charts
same_report "empty window" $U --until 2020-01-01 --format json --no-charts
# A window read in time slices (at whole minutes, of at most 200 rows
# but for a minute that holds more), one statement each: the same report,
# and the server sorted every row of the window once, no slice above its
# bound. The bound: 200, or the most rows one minute of the window holds.
export GPULOG_REPORT_TEST_SLICE_ROWS=200
same_report "slices" "${U}?log_queries=1" $W --format json --no-charts
unset GPULOG_REPORT_TEST_SLICE_ROWS
chq one "SYSTEM FLUSH LOGS"
SLICES="type = 2 AND query LIKE '% FROM gpulog_events WHERE %ORDER BY ts_us, node, src_id%'
	AND query LIKE '%(exec_ms)), ifNull(dup_of, 0)%'
	AND position(query, 'dur_us IS NOT NULL AND dup_of IS NULL') = 0"
WALL="ts_us >= 1761955200000000 AND ts_us < 1764547200000000"
minute=$(chq one "SELECT max(c) FROM (SELECT count() AS c FROM gpulog_events WHERE $WALL
	GROUP BY intDiv(ts_us - 1761955200000000, 60000000))")
expect_eq "rows sorted in slices" "$(chq one "SELECT count() FROM gpulog_events WHERE $WALL")" \
	"$(chq one "SELECT sum(result_rows) FROM system.query_log WHERE $SLICES")"
[ "$(chq one "SELECT count() FROM system.query_log WHERE $SLICES")" -gt 10 ] ||
	fail "too few slices: $(chq one "SELECT count() FROM system.query_log WHERE $SLICES")"
[ "$(chq one "SELECT max(result_rows) FROM system.query_log WHERE $SLICES")" -le \
	"$(( minute > 200 ? minute : 200 ))" ] || fail "a slice above its bound"
# The kernel pass read again from the server when the kernels' timings do
# not fit in memory (at most 300 here): a group of kernels at a time, and
# the server sends each group's rows only, so every kernel timing of the
# window comes once (not once per group); the same report.
export GPULOG_REPORT_TEST_KERNEL_CACHE=300
same_report "kernel groups" "${U}?log_queries=1" $W --format json --no-charts
unset GPULOG_REPORT_TEST_KERNEL_CACHE
chq one "SYSTEM FLUSH LOGS"
KPASS="type = 2 AND query LIKE '%ts_us >= 1761955200000000 AND ts_us < 1764547200000000 AND kernel !=%'
	AND query LIKE '%dur_us IS NOT NULL AND dup_of IS NULL AND kernel IN (%ORDER BY ts_us%'"
[ "$(chq one "SELECT count() FROM system.query_log WHERE $KPASS")" -ge 3 ] ||
	fail "too few kernel groups: $(chq one "SELECT count() FROM system.query_log WHERE $KPASS")"
expect_eq "kernel timings sent once" \
	"$(chq one "SELECT count() FROM gpulog_events WHERE $WALL AND dup_of IS NULL AND kernel != '' AND dur_us IS NOT NULL")" \
	"$(chq one "SELECT sum(result_rows) FROM system.query_log WHERE $KPASS")"
"$REPORT" --db $T/ab.db $W --format text > $T/t1 && "$REPORT" --clickhouse $U $W --format text > $T/t2 ||
	fail "text to stdout"
cmp $T/t1 $T/t2 || fail "text to stdout differs"

# The figures the issue names, computed apart from the report's code, by
# SQL on the server and awk: events, events by level, and per kernel the
# count, mean, p50 and p99 (linear interpolation between order statistics,
# type 7), each within 1e-9 of the report's (CSV from ClickHouse).
rm -rf $T/c
"$REPORT" --clickhouse $U $W --format csv --no-charts --output-dir $T/c > /dev/null || fail "csv"
WIN="ts_us >= 1761955200000000 AND ts_us < 1764547200000000 AND dup_of IS NULL"
expect_eq "events" "$(chq one "SELECT count() FROM gpulog_events WHERE $WIN")" \
	"$(tr -d '\r' < $T/c/summary.csv | sed -n 's/^events,,//p')"
chq one "SELECT ['NONE','TRACE','DEBUG','INFO','WARN','ERROR','CRITICAL'][level + 1], count()
	FROM gpulog_events WHERE $WIN GROUP BY level ORDER BY level" | tr '\t' , > $T/want
tr -d '\r' < $T/c/summary.csv | grep '^by_level,' | sed 's/^by_level,//' | grep -v ',0$' > $T/got
cmp $T/want $T/got || fail "by level: $(diff $T/want $T/got)"
# One launch is one timing (reports/launch_once.h): a timing of a kernel at
# the same microsecond and of the same duration as that kernel's previous
# timing (in the report's order: time, node, row) is a copy, not counted.
TAB=$(printf '\t')
chq one "SELECT kernel, ts_us, dur_us FROM gpulog_events WHERE $WIN AND kernel != '' AND dur_us IS NOT NULL
	ORDER BY kernel, ts_us, node, src_id" |
	awk -F'\t' '$1 == k && $2 == t && $3 == d { next } { k = $1; t = $2; d = $3; print $1 "\t" $3 }' |
	LC_ALL=C sort -t "$TAB" -k1,1 -k2,2g | awk -F'\t' '
	function flush() { if (n == 0) return
		printf("%s\t%d\t%.17g\t%.17g\t%.17g\n", k, n, s / n, q(0.5), q(0.99)) }
	function q(p,  h, lo) { h = (n - 1) * p; lo = int(h); return lo + 1 < n ? v[lo] + (h - lo) * (v[lo + 1] - v[lo]) : v[lo] }
	$1 != k { flush(); k = $1; n = 0; s = 0 }
	{ v[n++] = $2 + 0; s += $2 }
	END { flush() }' | LC_ALL=C sort > $T/want
tr -d '\r' < $T/c/kernels.csv | awk -F, 'BEGIN { OFS = "\t" } NR > 1 && $1 !~ /"/ { print $1, $2, $5, $7, $10 }' |
	LC_ALL=C sort > $T/got
[ "$(wc -l < $T/got)" -ge 5 ] || fail "too few kernels: $(cat $T/got)"
LC_ALL=C join -t "$TAB" $T/want $T/got | awk -F'\t' '{ for (i = 2; i <= 5; i++) { d = $i - $(i + 4); if (d < 0) d = -d
	m = $i < 0 ? -$i : $i; if (d > 1e-9 * (m > 1 ? m : 1)) { print "kernel " $1 " field " i ": " $i " vs " $(i + 4); bad = 1 } } }
	END { exit bad }' || fail "per-kernel figures differ"
expect_eq "kernels joined" "$(wc -l < $T/got)" "$(LC_ALL=C join -t "$TAB" $T/want $T/got | wc -l)"

# Each event's kind (events.kind: log line, trace record, alert, access
# line; since schema 9 a trainer's step, an Xid, an nvidia-smi -q GPU) is
# shipped: the server counts as many of each as the database (of those
# with a time: gpulog-ship sends no untimed row).
kinds() { q $T/ab.db "select kind, count(*) from events where ts_us is not null group by kind order by kind" | tr '|' '\t'; }
expect_eq "kinds shipped" "$(kinds)" "$(chq one "SELECT kind, count() FROM gpulog_events GROUP BY kind ORDER BY kind")"
[ "$(kinds | cut -f1 | tr -d '\n')" = 0123567 ] || fail "the fixture's kinds: $(kinds)"
# A table shipped before the kind was: the report reads the kind from
# the rows' format and text (as the SQLite migration does), and the next
# gpulog-ship adds the column, whose default gives the old rows the same.
chq one "ALTER TABLE gpulog_events DROP COLUMN kind"
same_report "no kind column" $U $W --format json --no-charts
"$SHIP" -q --db $T/a.db --to $U --node a || fail "ship a, adding the kind"
expect_eq "kind added with the old rows' kinds" "$(kinds)" \
	"$(chq one "SELECT kind, count() FROM gpulog_events GROUP BY kind ORDER BY kind")"
same_report "kind column added" $U $W --format json --no-charts

"$REPORT" --clickhouse $U --db $T/ab.db 2> $T/err
expect_eq "--db and --clickhouse" 2 $?
"$REPORT" --clickhouse $U --events --format json --output-dir $T/r3 2> $T/err
expect_eq "--events and --clickhouse" 2 $?
"$REPORT" --clickhouse "${U}?database=system" $W 2> $T/err
expect_eq "no gpulog tables" 1 $?
grep -q "no gpulog tables" $T/err || fail "message: $(cat $T/err)"

# A Distributed table over two servers, one node on each.
ch_start two
"$SHIP" -q --db $T/b.db --to $CH_URL_two --node b || fail "ship b to two"
ch_start three "<remote_servers><gl><shard><replica><host>127.0.0.1</host><port>$CH_TCP_one</port></replica></shard>
  <shard><replica><host>127.0.0.1</host><port>$CH_TCP_two</port></replica></shard></gl></remote_servers>"
chq one "ALTER TABLE gpulog_events DELETE WHERE node = 'b'"
for t in events samples spans mem_events rejects runs nodes names; do
	chq one "ALTER TABLE gpulog_$t DELETE WHERE node = 'b'"
done
sleep 1
expect_eq "one holds a only" "a" "$(chq one "SELECT DISTINCT node FROM gpulog_events")"
# three holds no node: its tables (an empty database shipped) give the
# Distributed tables their columns
mkdir -p $T/none
ingest $T/none.db $T/none || fail "empty database"
"$SHIP" -q --db $T/none.db --to $CH_URL_three --node none || fail "tables on three"
chq three "CREATE DATABASE fleet"
for t in events samples spans mem_events rejects runs nodes names; do
	chq three "CREATE TABLE fleet.gpulog_$t AS default.gpulog_$t
		ENGINE = Distributed(gl, default, gpulog_$t)" || fail "distributed gpulog_$t"
done
same_report "distributed" "${CH_URL_three}?database=fleet" $W --format json
same_report "distributed, host b" "${CH_URL_three}?database=fleet" $W --format csv --no-charts --host b
echo ok
