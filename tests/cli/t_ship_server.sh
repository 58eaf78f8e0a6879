# gpulog-ship and a server that is down, stopped in the middle of a ship,
# or holds half a batch; rows after an open record wait; --keep-days drops
# day partitions.
. tests/cli/lib.sh
. tests/cli/clickhouse.sh

# exact NODE DB: the server holds each of the node's events once, and all.
exact() {
	expect_eq "$1 events on the server" "$(q $2 'select count(*) from events')" \
		"$(chq one "SELECT count() FROM gpulog_events WHERE node = '$1'")"
	expect_eq "$1 distinct events" "$(q $2 'select count(*) from events')" \
		"$(chq one "SELECT uniqExact(src_id) FROM gpulog_events WHERE node = '$1'")"
}

mkdir -p $T/a
genlines a 0 4000 > $T/a/gpu.log
ingest $T/a.db --host node-a $T/a || fail "ingest a"

# 1. Nobody listens: tries 1 + 2, waits 0.2 + 0.4 s, exit status 3.
port=$(ch_port down)
t0=$(date +%s%N)
"$SHIP" --db $T/a.db --to http://127.0.0.1:$port/ --node a --retries 2 --retry-wait-ms 200 \
	2> $T/err
rc=$?
t1=$(date +%s%N)
cat $T/err
expect_eq "exit status, server down" 3 $rc
grep -q "^gpulog-ship: cannot reach the server 'http://127.0.0.1:$port/': .*onnect" $T/err ||
	fail "message: $(cat $T/err)"
grep -q "gave up after 3 tries" $T/err || fail "tries: $(cat $T/err)"
[ $(( (t1 - t0) / 1000000 )) -ge 600 ] || fail "backoff: $(( (t1 - t0) / 1000000 )) ms, expected >= 600"
"$SHIP" --db $T/a.db --to ftp://127.0.0.1/ --node a 2> $T/err
expect_eq "exit status, not http" 2 $?
"$SHIP" --db $T/a.db 2> $T/err
expect_eq "exit status, no --to" 2 $?

ch_start one
U=$CH_URL_one

# 2. A request the server refuses (a database it does not have): 1, at once.
"$SHIP" --db $T/a.db --to "${U}?database=nosuch" --node a 2> $T/err
expect_eq "exit status, refused" 1 $?
grep -q "nosuch" $T/err || fail "message: $(cat $T/err)"

# 3. The server stopped (SIGTERM, then SIGKILL) in the middle of a ship and
# started again a second later: the shipper waits and goes on; every row
# once.
for how in stop kill; do
	db=$T/a-$how.db
	cp $T/a.db $db
	"$SHIP" --db $db --to $U --node a-$how --batch-rows 100 --retries 8 --retry-wait-ms 200 \
		> $T/out 2> $T/err &
	pid=$!
	sleep 0.3
	kill -0 $pid 2>/dev/null || fail "the ship ended before the server was stopped"
	ch_$how one
	sleep 1
	ch_restart one
	wait $pid
	rc=$?
	cat $T/out $T/err
	expect_eq "ship across a server $how" 0 $rc
	# SIGKILL cuts the connection in the middle of the ship: tried again
	[ $how = stop ] || grep -q "requests failed and were tried again" $T/out ||
		fail "the server was not stopped during the ship"
	exact a-$how $db
done

# 4. Half a batch on the server (as a server dying in the middle of an
# insert over several day partitions leaves it): deleted, sent again.
mkdir -p $T/c
genlines c 0 3000 > $T/c/gpu.log
ingest $T/c.db --host node-c $T/c || fail "ingest c"
"$SHIP" -q --db $T/c.db --to $U --node c || fail "ship c"
genlines c 3000 500 >> $T/c/gpu.log
ingest $T/c.db --host node-c $T/c || fail "ingest c again"
chq one "INSERT INTO gpulog_events (node, src_id, ts_us, host, message) VALUES
	('c', 3002, 1763251200000000, 'node-c', 'half 1'), ('c', 3003, 1763251200000000, 'node-c', 'half 2')"
"$SHIP" --db $T/c.db --to $U --node c > $T/out || fail "ship c after half a batch"
cat $T/out
grep -q "half stored was deleted and sent again" $T/out || fail "half batch not seen: $(cat $T/out)"
exact c $T/c.db
expect_eq "half rows gone" 0 "$(chq one "SELECT count() FROM gpulog_events WHERE message LIKE 'half %'")"

# 5. An open record (a line cut by a writer pausing mid-line) and the rows
# after it wait; once the line is whole, they go, the record once.
d=$T/open; mkdir -p $d
genlines w 0 10 > $d/gpu.log
printf '2025-11-16 00:00:00,000 - svc - ERROR - worker crashed' > $d/py.log
touch -d '2 hours ago' $d/gpu.log $d/py.log
ingest $T/open.db --host node-o $d || fail "ingest open"
expect_eq "open stream" 1 "$(q $T/open.db "select count(*) from streams where open_end != 0")"
first_open=$(q $T/open.db "select min(e.id) from events e join streams s on s.id = e.stream_id
	where s.open_end != 0 and e.line > s.lines")
"$SHIP" --db $T/open.db --to $U --node o > $T/out || fail "ship with an open record"
cat $T/out
grep -q "wait for the next run" $T/out || fail "open record not held: $(cat $T/out)"
expect_eq "events before the open record" $((first_open - 1)) \
	"$(chq one "SELECT count() FROM gpulog_events WHERE node = 'o'")"
printf ' in step 3\n' >> $d/py.log
genlines w 10 2 >> $d/gpu.log
ingest $T/open.db --host node-o $d || fail "ingest, line closed"
"$SHIP" -q --db $T/open.db --to $U --node o || fail "ship, line closed"
expect_eq "whole record" 1 "$(chq one "SELECT count() FROM gpulog_events WHERE node = 'o'
	AND message = 'worker crashed in step 3'")"
expect_eq "cut record" 0 "$(chq one "SELECT count() FROM gpulog_events WHERE node = 'o'
	AND message = 'worker crashed'")"
exact_o=$(q $T/open.db 'select count(*) from events')
expect_eq "events once" "$exact_o|$exact_o" "$(chq one "SELECT count(), uniqExact(src_id)
	FROM gpulog_events WHERE node = 'o'" | tr '\t' '|')"

# 6. --keep-days: lines of two days; keeping days back to the second one
# drops the first day's partitions and sends no row older.
mkdir -p $T/k
awk 'BEGIN { for (d = 14; d <= 15; d++) for (i = 0; i < 100; i++)
	printf("{\"timestamp\": \"2025-11-%02dT10:00:%02dZ\", \"level\": \"INFO\", \"message\": \"k %d %d\"}\n", d, i % 60, d, i) }' \
	> $T/k/gpu.log
ingest $T/k.db --host node-k $T/k || fail "ingest k"
now_day=$(( $(date +%s) / 86400 ))
day15=$(( $(date -u -d 2025-11-15 +%s) / 86400 ))
"$SHIP" -q --db $T/k.db --to $U --node k --keep-days $((now_day - day15 + 5)) || fail "ship k"
expect_eq "both days" 200 "$(chq one "SELECT count() FROM gpulog_events WHERE node = 'k'")"
"$SHIP" --db $T/k.db --to $U --node k --keep-days $((now_day - day15)) > $T/out || fail "keep-days"
cat $T/out
expect_eq "day 15 kept, 14 dropped" "100|2025-11-15" "$(chq one "SELECT count(), toString(toDate(min(intDiv(ts_us, 1000000))))
	FROM gpulog_events WHERE node = 'k'" | tr '\t' '|')"
expect_eq "partitions of day 14" 0 "$(chq one "SELECT count() FROM system.parts WHERE active
	AND substring(table, 1, 7) = 'gpulog_' AND partition = '$((day15 - 1))'")"
echo ok
