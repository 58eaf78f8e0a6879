# A run killed at any instant (SIGKILL) leaves a consistent database, and
# the next run stores exactly the lines still missing: the result equals an
# uninterrupted run's, line for line.
. tests/cli/lib.sh

mkdir -p $T/logs/archived
genlines old 0 120000 | gzip -c > $T/logs/archived/gpu_20251114_000000.log.gz
genlines mid 0 80000 > $T/logs/gpu.log.1
genlines new 0 60000 > $T/logs/gpu.log
printf '2025-11-16 10:00:00,000 - monitor - INFO - start\nTraceback (most recent call last):\n  File "x.py", line 1\n' > $T/logs/monitor.log
touch -d '1 hour ago' $T/logs/*.log $T/logs/gpu.log.1

ingest $T/ref.db $T/logs || fail "reference run"
q $T/ref.db "select replace(message, char(10), '|') from events order by 1" > $T/ref.txt
expect_eq "reference events" 260001 "$(wc -l < $T/ref.txt | tr -d ' ')"

# Kill after various delays; several kills in a row before a run completes.
# A first run builds the database aside (a kill leaves it empty, the build
# is started over) unless --in-place (a kill keeps what was committed):
# both, each after kills at every delay.
for mode in build in-place; do
[ $mode = in-place ] && place=--in-place || place=
for delays in "0.05" "0.2" "0.4 0.3" "0.7 0.1 0.5" "1.0" "0.02 0.02 0.02"; do
	db=$T/k.db
	rm -f $db $db-wal $db-shm $db-journal
	for d in $delays; do
		"$INGEST" -q $place --db $db $T/logs &
		pid=$!
		sleep $d
		kill -9 $pid 2>/dev/null
		wait $pid 2>/dev/null
		if [ -s $db ]; then
			expect_eq "integrity after kill ($mode $delays)" ok "$(q $db 'pragma integrity_check')"
		fi
	done
	ingest $db $T/logs || fail "run after kill ($delays)"
	q $db "select replace(message, char(10), '|') from events order by 1" > $T/k.txt
	cmp -s $T/ref.txt $T/k.txt || fail "after kills at $delays: $(wc -l < $T/k.txt) events, expected 260001 (diff: $(diff $T/ref.txt $T/k.txt | head -3))"
	expect_eq "duplicate stream lines ($delays)" 0 \
		"$(q $db 'select count(*) from (select 1 from events group by stream_id, line having count(*) > 1)')"
	expect_eq "continuation kept ($delays)" 1 \
		"$(q $db "select count(*) from events where message like 'start%File \"x.py\", line 1'")"
	[ -e $db-build ] && fail "a build left after the run ($mode $delays)"
done
done
# Killed while creating the database: in place, the half-written file and
# its hot journal are rolled back and the database created again, never
# refused as "not a gpulog database"; built aside, the build is deleted and
# made again.
hot=0
for place in --in-place ""; do
for d in 0.001 0.002 0.003 0.004 0.005 0.006 0.008 0.010 0.012 0.015 0.020 0.025 0.030 0.040; do
	db=$T/c.db
	rm -f $db $db-wal $db-shm $db-journal
	"$INGEST" -q $place --db $db $T/logs/gpu.log &
	pid=$!
	sleep $d
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
	[ -s $db-journal ] && hot=$((hot + 1))
	out=$("$INGEST" -q --db $db $T/logs/gpu.log 2>&1) || fail "after a kill at ${d}s during creation: $out"
	expect_eq "events after a kill at ${d}s ($place)" 60000 "$(q $db 'select count(*) from events')"
	[ -e $db-build ] && fail "a build left after the run (kill at ${d}s)"
done
done
echo "kills during creation that left a hot journal: $hot of 14"

# Killed while an open record is replaced (issue 11 D7): the first run
# stores a cut last line (its writer paused), the writer completes it and
# writes on, and the run that reads on is killed: the next run's result
# equals a run on the finished file, the cut line replaced by the whole one.
mkdir -p $T/open
genlines o 0 100 > $T/open/gpu.log
printf '{"timestamp": "2025-11-16T00:00:00Z", "level": "INFO", "message": "o paused' >> $T/open/gpu.log
touch -d '1 hour ago' $T/open/gpu.log
ingest $T/open.db $T/open || fail "open record run"
expect_eq "open record stored" "100|1" "$(q $T/open.db "select count(*), (select count(*) from rejects) from events")"
printf ' then resumed"}\n' >> $T/open/gpu.log
genlines o 100 100000 >> $T/open/gpu.log
touch -d '1 hour ago' $T/open/gpu.log
mkdir -p $T/openref
cp $T/open/gpu.log $T/openref/gpu.log
ingest $T/openref.db $T/openref || fail "open record reference"
q $T/openref.db "select message from events order by 1" > $T/openref.txt
expect_eq "open reference" 100101 "$(wc -l < $T/openref.txt | tr -d ' ')"
for delays in "0.05" "0.3" "0.1 0.2"; do
	db=$T/ok.db
	rm -f $db $db-wal $db-shm $db-journal
	cp $T/open.db $db
	for d in $delays; do
		"$INGEST" -q --db $db $T/open &
		pid=$!
		sleep $d
		kill -9 $pid 2>/dev/null
		wait $pid 2>/dev/null
		expect_eq "integrity after kill ($delays, open record)" ok "$(q $db 'pragma integrity_check')"
	done
	ingest $db $T/open || fail "run after kill ($delays, open record)"
	q $db "select message from events order by 1" > $T/ok.txt
	cmp -s $T/openref.txt $T/ok.txt || fail "open record, kills at $delays: $(wc -l < $T/ok.txt) events (diff: $(diff $T/openref.txt $T/ok.txt | head -3))"
	expect_eq "open record, rejects ($delays)" 0 "$(q $db "select count(*) from rejects")"
	expect_eq "open record, closed ($delays)" 0 "$(q $db "select count(*) from streams where open_end != 0")"
done
exit 0
