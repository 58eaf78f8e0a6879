# gpulog-report --clickhouse, the baseline (the preceding window of equal
# length): its kernel timings are counted on the server (per kernel,
# component and host, the filters applied to the groups) and only the
# listed kernels' timings are sent, not every kernel's; the report is the
# same, byte for byte, as the one from the SQLite database shipped.
. tests/cli/lib.sh
. tests/cli/clickhouse.sh

# 40 kernels over 2 days: the report's day and the day before it
"$PWD/$BUILD/bench/report_bench" $T/k.db 20000 2 2025-01-03 40 > /dev/null || fail "report_bench"
q $T/k.db "PRAGMA user_version = $(sed -n 's/^#define GL_DB_USER_VERSION \([0-9]*\).*/\1/p' lib/store/query.h)"
ch_start one
U=$CH_URL_one
"$SHIP" -q --db $T/k.db --to $U --node k || fail "ship"

W="--until 2025-01-03 --days 1 --format json --no-charts"
# the queries of the last report logged on the server (system.query_log)
for args in "" "--kernel kernel_0*" "--kernel kernel_1* --component trainer"; do
	log=; [ "$args" = "--kernel kernel_1* --component trainer" ] && log="?log_queries=1"
	rm -rf $T/r1 $T/r2
	"$REPORT" --db $T/k.db $W $args --output-dir $T/r1 > /dev/null 2> $T/e1 || fail "sqlite report $args: $(cat $T/e1)"
	"$REPORT" --clickhouse "${U}$log" $W $args --output-dir $T/r2 > /dev/null 2> $T/e2 ||
		fail "clickhouse report $args: $(cat $T/e2)"
	diff -r $T/r1 $T/r2 > $T/d || fail "reports differ ($args): $(head -20 $T/d)"
	grep -q '"samples": [1-9]' $T/r1/report.json || fail "no baseline timings ($args)"
done

# The preceding window, 2025-01-01: the last report (--kernel kernel_1*
# --component trainer) read the timings of its listed kernels only (those
# of the report's day with a trainer's timing), of every component (the
# component filters the rows here), and counted all on the server.
chq one "SYSTEM FLUSH LOGS"
BEFORE="ts_us >= 1735689600000000 AND ts_us < 1735776000000000"
DAY="ts_us >= 1735776000000000 AND ts_us < 1735862400000000"
LAST="type = 2"
expect_eq "counted on the server" 1 \
	"$(chq one "SELECT count() FROM system.query_log WHERE $LAST AND query LIKE '%$BEFORE AND kernel != ''''%GROUP BY kernel, component, host%'")"
expect_eq "the listed kernels' timings sent" \
	"$(chq one "SELECT count() FROM gpulog_events WHERE $BEFORE AND kernel IN (SELECT kernel
		FROM gpulog_events WHERE $DAY AND startsWith(kernel, 'kernel_1') AND component = 'trainer'
		AND dur_us IS NOT NULL AND dup_of IS NULL) AND dur_us IS NOT NULL AND dup_of IS NULL")" \
	"$(chq one "SELECT sum(result_rows) FROM system.query_log WHERE $LAST AND query LIKE '%$BEFORE%AND kernel IN (%ORDER BY ts_us, node, src_id%'")"
[ "$(chq one "SELECT count() FROM gpulog_events WHERE $BEFORE AND kernel != '' AND dur_us IS NOT NULL")" -gt \
	"$(chq one "SELECT sum(result_rows) FROM system.query_log WHERE $LAST AND query LIKE '%$BEFORE%AND kernel IN (%ORDER BY ts_us, node, src_id%'")" ] ||
	fail "every kernel's timings sent"
echo ok
