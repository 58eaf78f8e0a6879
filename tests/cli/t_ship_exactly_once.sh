# gpulog-ship stores every row exactly once: killed right after a batch's
# rows are stored and before its mark (and right after a mark), and killed
# at random instants, the next run neither loses nor repeats a row. Two
# nodes ship to one server; a re-ship finds nothing new.
. tests/cli/lib.sh
. tests/cli/clickhouse.sh

ch_start one
U=$CH_URL_one
mkdir -p $T/a $T/b
genlines a 0 30000 > $T/a/gpu.log
genlines b 0 12000 > $T/b/gpu.log
ingest $T/a.db --host node-a $T/a || fail "ingest a"
ingest $T/b.db --host node-b $T/b || fail "ingest b"

# exact NODE DB: the server holds each of the node's rows once, and all.
exact() {
	expect_eq "$1 events on the server" "$(q $2 'select count(*) from events')" \
		"$(chq one "SELECT count() FROM gpulog_events WHERE node = '$1'")"
	expect_eq "$1 distinct events" "$(q $2 'select count(*) from events')" \
		"$(chq one "SELECT uniqExact(src_id) FROM gpulog_events WHERE node = '$1'")"
	expect_eq "$1 messages" "$(q $2 "select count(distinct message) from events")" \
		"$(chq one "SELECT uniqExact(message) FROM gpulog_events WHERE node = '$1'")"
	expect_eq "$1 runs" "$(q $2 'select count(*) from runs')" \
		"$(chq one "SELECT count() FROM gpulog_runs WHERE node = '$1'")"
}

# Killed between the INSERT of a batch and its mark (phase 0), or just
# after a mark (phase 1): deterministic points, one after another.
for point in 1:2 0:3 1:1 0:1 0:2; do
	GPULOG_SHIP_TEST_KILL=$point "$SHIP" -q --db $T/a.db --to $U --node a --batch-rows 2000
	rc=$?
	expect_eq "killed at $point" 137 "$rc"
done
marks=$(chq one "SELECT count() FROM gpulog_ship_log WHERE node = 'a'")
"$SHIP" --db $T/a.db --to $U --node a --batch-rows 2000 > $T/out || fail "run after the kills"
cat $T/out
grep -q "stored but not marked was marked" $T/out ||
	fail "the batch stored before the last kill was not recognised: $(cat $T/out)"
exact a $T/a.db

# Killed at random instants (milliseconds into the run), several times,
# then run to the end.
n=0
for d in $(awk 'BEGIN { srand(); for (i = 0; i < 12; i++) printf("%.3f\n", rand() * 0.25) }'); do
	"$SHIP" -q --db $T/b.db --to $U --node b --batch-rows 500 &
	pid=$!
	sleep $d
	kill -9 $pid 2>/dev/null && n=$((n + 1))
	wait $pid 2>/dev/null
done
echo "killed $n of 12 runs of node b at random instants"
"$SHIP" -q --db $T/b.db --to $U --node b --batch-rows 500 || fail "run after random kills"
exact b $T/b.db
exact a $T/a.db

# Nothing new: a re-ship sends nothing and writes no mark.
marks=$(chq one "SELECT count() FROM gpulog_ship_log")
"$SHIP" --db $T/a.db --to $U --node a > $T/out || fail "re-ship"
expect_eq "re-ship" "gpulog-ship: 0 rows in 0 batches (0 bytes gzip)" "$(cat $T/out)"
expect_eq "marks after a re-ship" "$marks" "$(chq one "SELECT count() FROM gpulog_ship_log")"

# New lines after the ship: exactly those go.
genlines a 30000 700 >> $T/a/gpu.log
ingest $T/a.db --host node-a $T/a || fail "ingest a again"
"$SHIP" --db $T/a.db --to $U --node a > $T/out || fail "ship of new lines"
expect_eq "new lines" "gpulog-ship: 701 rows in 2 batches" "$(sed 's/ (.*//' $T/out)"
exact a $T/a.db

# The same figures as the database per kernel, node b by its host label.
q $T/b.db "select k.name, count(*), printf('%.6f', sum(e.dur_us)) from events e join names k
	on k.id = e.kernel_id join names h on h.id = e.host_id where h.name = 'node-b'
	group by k.name order by 1" | tr '|' '\t' > $T/want
chq one "SELECT kernel, count(), toString(round(sum(dur_us), 6)) FROM gpulog_events
	WHERE host = 'node-b' GROUP BY kernel ORDER BY kernel" |
	awk -F'\t' '{ printf("%s\t%s\t%.6f\n", $1, $2, $3) }' > $T/got
cmp $T/want $T/got || fail "per-kernel figures differ: $(diff $T/want $T/got | head -5)"
echo "ok"
