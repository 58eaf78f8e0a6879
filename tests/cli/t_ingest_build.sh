# A new database is built aside (<db>-build, no journal on disk) and moved
# into place when the run ends (issue 12): it holds what --in-place writes,
# row for row; until it is moved, <db> stays empty; a killed build is
# started over; SIGINT and SIGTERM stop a run with what it stored kept; an
# ingest waiting for the lock meanwhile reads the finished database.
. tests/cli/lib.sh

# wait_size FILE: until FILE holds more than 1 MB (at most 20 s).
wait_size() {
	for _i in $(seq 200); do
		[ "$(stat -c %s "$1" 2>/dev/null || echo 0)" -gt 1000000 ] && return 0
		sleep 0.1
	done
	fail "$1 never grew past 1 MB"
}

# 1. Built and in place: the same rows, state and report bytes.
printf '#!/bin/sh\nexec "%s" --in-place "$@"\n' "$INGEST" > $T/in-place
chmod +x $T/in-place
out=$(CONFIG=fixtures/sample-logs.ingest.json sh tests/bench/diff-ingest $T/in-place "$INGEST" \
	fixtures/sample-logs) || fail "built and in-place differ on the sample logs: $out"
echo "$out" | grep -q "^diff-ingest: same: fixtures/sample-logs (" || fail "diff-ingest: $out"
echo "$out"
if [ -d "$REALDATA" ]; then
	out=$(sh tests/bench/diff-ingest $T/in-place "$INGEST" "$REALDATA") ||
		fail "built and in-place differ on $REALDATA: $out"
	echo "$out" | grep -q "^diff-ingest: same: " || fail "diff-ingest: $out"
	echo "$out"
else
	echo "skipped: $REALDATA absent (the realdata comparison)"
fi

# 2. The built file: WAL mode, 16 KiB pages, incremental vacuum, the same
# shape as one made in place; no build left; the next run adds in place.
mkdir -p $T/logs
genlines a 0 200000 > $T/logs/gpu.log
touch -d '1 hour ago' $T/logs/gpu.log
ingest $T/b.db $T/logs || fail "build run"
ingest $T/p.db --in-place $T/logs || fail "in-place run"
[ -e $T/b.db-build ] && fail "the build file was left"
expect_eq "journal mode" wal "$(q $T/b.db 'pragma journal_mode')"
expect_eq "page size" 16384 "$(q $T/b.db 'pragma page_size')"
expect_eq "auto_vacuum" 2 "$(q $T/b.db 'pragma auto_vacuum')"
expect_eq "integrity" ok "$(q $T/b.db 'pragma integrity_check')"
[ "$(db_shape $T/b.db)" = "$(db_shape $T/p.db)" ] || fail "built and in-place shapes differ"
check_exact $T/b.db 200000
genlines a 200000 1000 >> $T/logs/gpu.log
touch -d '1 hour ago' $T/logs/gpu.log
ingest $T/b.db $T/logs || fail "second run"
[ -e $T/b.db-build ] && fail "a second run built aside"
check_exact $T/b.db 201000

# 3. Killed during the build: the database stays empty, the report says a
# run is creating it, the next run deletes the build and stores every line.
mkdir -p $T/big
genlines k 0 400000 > $T/big/gpu.log
touch -d '1 hour ago' $T/big/gpu.log
db=$T/k.db
"$INGEST" -q --db $db $T/big &
pid=$!
wait_size $db-build
kill -9 $pid
wait $pid 2>/dev/null
expect_eq "database after a killed build" 0 "$(stat -c %s $db)"
[ -e $db-build ] || fail "the killed build is not there to be deleted"
out=$("$REPORT" --db $db --days 1 --output-dir $T/r 2>&1) && fail "report on an empty database: $out"
echo "$out" | grep -q "empty: a gpulog-ingest is creating it" || fail "report's message: $out"
ingest $db $T/big || fail "run after the killed build"
[ -e $db-build ] && fail "the killed build was left"
check_exact $db 400000

# 4. SIGINT and SIGTERM: the run stops with 130 / 143, says so, keeps what
# it stored (a build is moved into place); the next run stores the rest,
# each line once. Also for a run in place on an existing database.
for sig in INT TERM; do
	for mode in build in-place; do
		db=$T/s-$sig-$mode.db
		if [ $mode = in-place ]; then
			genlines f 0 1000 > $T/first.log
			ingest $db $T/first.log || fail "$sig $mode: first run"
			watch=$db-wal first=1000
		else
			watch=$db-build first=0
		fi
		"$INGEST" --db $db $T/big > $T/sig.out 2>&1 &
		pid=$!
		wait_size $watch
		kill -$sig $pid
		wait $pid
		rc=$?
		[ $sig = INT ] && want=130 || want=143
		expect_eq "$sig $mode: exit status" $want $rc
		grep -q "^gpulog-ingest: interrupted: what was stored is kept" $T/sig.out ||
			fail "$sig $mode: message: $(cat $T/sig.out)"
		[ -e $db-build ] && fail "$sig $mode: the build was left"
		expect_eq "$sig $mode: integrity" ok "$(q $db 'pragma integrity_check')"
		n=$(q $db "select count(*) from events where message like 'k %'")
		[ "$n" -gt 0 ] && [ "$n" -lt 400000 ] || fail "$sig $mode: $n lines stored when stopped"
		ingest $db $T/big || fail "$sig $mode: the run after"
		expect_eq "$sig $mode: lines after" 400000 \
			"$(q $db "select count(distinct message) from events where message like 'k %'")"
		expect_eq "$sig $mode: events after" $((400000 + ${first:-0})) \
			"$(q $db "select count(*) from events")"
		expect_eq "$sig $mode: duplicate stream lines" 0 \
			"$(q $db 'select count(*) from (select 1 from events group by stream_id, line having count(*) > 1)')"
	done
done

# 5. Another ingest waiting for the lock while the first builds: it opens
# the finished database (not the empty file it first found) and stores
# nothing again; one with --no-wait is refused meanwhile.
db=$T/w.db
"$INGEST" -q --db $db $T/big &
pid=$!
wait_size $db-build
"$INGEST" --db $db $T/big > $T/w2.out 2>&1 &
pid2=$!
out=$("$INGEST" -q --no-wait --db $db $T/big 2>&1)
expect_eq "--no-wait during a build" 2 $?
echo "$out" | grep -q "database busy" || fail "--no-wait's message: $out"
wait $pid || fail "the building run"
wait $pid2 || fail "the waiting run: $(cat $T/w2.out)"
grep -q "waiting for database" $T/w2.out || fail "the second run did not wait: $(cat $T/w2.out)"
grep -q " 0 lines stored" $T/w2.out || fail "the waiting run stored lines again: $(cat $T/w2.out)"
check_exact $db 400000

# 6. --db a symbolic link to an empty file made private: the build replaces
# the file the link names, keeps its mode; the link stays a link.
mkdir -p $T/real
: > $T/real/priv.db
chmod 600 $T/real/priv.db
ln -s $T/real/priv.db $T/link.db
ingest $T/link.db $T/logs || fail "run through a link"
[ -L $T/link.db ] || fail "the link was replaced by the database"
[ -e $T/real/priv.db-build ] || [ -e $T/link.db-build ] && fail "a build was left"
expect_eq "mode of the built database" 600 "$(stat -c %a $T/real/priv.db)"
check_exact $T/real/priv.db 201000

# 7. A database inside the tree it reads: its build is never read as a log.
mkdir -p $T/self
genlines s 0 300000 > $T/self/gpu.log
touch -d '1 hour ago' $T/self/gpu.log
"$INGEST" --db $T/self/g.db $T/self > $T/self.out 2>&1 || fail "self run: $(cat $T/self.out)"
grep -q "g.db" $T/self.out && fail "the database or its build was read: $(cat $T/self.out)"
check_exact $T/self/g.db 300000

# 8. An empty database beside the hot journal of a killed creation (an
# --in-place first run killed after writing its journal, before the
# database): the build moved over it must not be rolled back to nothing by
# that journal. The journal is made by an sqlite3 shell whose transaction
# spilled to the file, killed, the file then emptied as the journal says
# it was before.
mkdir -p $T/hot
( printf 'PRAGMA journal_mode=DELETE; PRAGMA cache_size=2; BEGIN; CREATE TABLE t(x);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < 20000)
INSERT INTO t SELECT randomblob(200) FROM c;\n'; sleep 30 ) | sqlite3 $T/hot/h.db >/dev/null &
pid=$!
for _i in $(seq 200); do
	[ "$(stat -c %s $T/hot/h.db-journal 2>/dev/null || echo 0)" -gt 0 ] &&
		[ "$(stat -c %s $T/hot/h.db 2>/dev/null || echo 0)" -gt 1000000 ] && break
	sleep 0.1
done
pkill -9 -f "sqlite3 $T/hot/h.db"
kill $pid 2>/dev/null
wait $pid 2>/dev/null
[ -s $T/hot/h.db-journal ] || fail "no journal was left to test with"
: > $T/hot/h.db
genlines h 0 1000 > $T/hot.log
ingest $T/hot/h.db $T/hot.log || fail "run beside a hot journal"
[ -e $T/hot/h.db-journal ] && fail "the killed creation's journal was left beside the new database"
check_exact $T/hot/h.db 1000
exit 0
