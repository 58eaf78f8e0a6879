# gpulog-ingest --keep-days N: rows older than N days before the run's
# start are deleted (events, samples, rejects), newer ones kept, the ingest
# state kept (a re-run reads nothing again), the file shrinks; a kill -9
# during pruning loses nothing and the next run finishes it.
. tests/cli/lib.sh

now=$(date -u +%s)
# jsonl FILE TAG DAYS_AGO COUNT: COUNT JSON lines DAYS_AGO days (+ i s) before now
jsonl() {
	awk -v tag="$2" -v t0=$((now - $3 * 86400)) -v n="$4" '
	function iso(t,   d, s, y, m, doy, mp, dd) {
		d = int(t / 86400); s = t - d * 86400
		# days -> civil date (Howard Hinnant), d >= 0
		d += 719468; era = int(d / 146097); doe = d - era * 146097
		yoe = int((doe - int(doe / 1460) + int(doe / 36524) - int(doe / 146096)) / 365)
		y = yoe + era * 400; doy = doe - (365 * yoe + int(yoe / 4) - int(yoe / 100))
		mp = int((5 * doy + 2) / 153); dd = doy - int((153 * mp + 2) / 5) + 1
		m = mp < 10 ? mp + 3 : mp - 9; if (m <= 2) y++
		return sprintf("%04d-%02d-%02dT%02d:%02d:%02dZ", y, m, dd, int(s / 3600), int(s % 3600 / 60), s % 60)
	}
	BEGIN { for (i = 0; i < n; i++)
		printf("{\"timestamp\": \"%s\", \"level\": \"INFO\", \"component\": \"c\", \"message\": \"%s %d\", \"memory_usage_mb\": %d}\n", iso(t0 + i), tag, i, 100 + i) }' >> "$1"
}

L=$T/logs
mkdir -p $L
# 40, 35 and 31 days old: pruned with --keep-days 30; 29, 10 and 1: kept.
# Every line also gives one sample (memory_usage_mb -> gpu.memory_used_mib).
jsonl $L/a.log a40 40 50
jsonl $L/a.log a35 35 30
echo 'not json, rejected: its time is the line before (35 days)' >> $L/a.log
jsonl $L/a.log a31 31 20
jsonl $L/a.log a29 29 10
echo 'not json, rejected: 29 days' >> $L/a.log
jsonl $L/b.log b10 10 7
jsonl $L/b.log b1 1 3
db=$T/db
ingest $db $L || fail "first ingest"
expect_eq "events before" 120 "$(q $db 'select count(*) from events')"
expect_eq "samples before" 120 "$(q $db 'select count(*) from v_samples')"
expect_eq "rejects before" 2 "$(q $db 'select count(*) from rejects')"
expect_eq "auto_vacuum of a new database" 2 "$(q $db 'pragma auto_vacuum')"

"$INGEST" --db $db --keep-days 30 $L 2>$T/err || fail "pruning run: $(cat $T/err)"
# 100 old events + 100 samples + 1 reject
grep -q "retention: 201 rows older than .* deleted" $T/err || fail "summary: $(cat $T/err)"
expect_eq "events kept" "a29|10
b1|3
b10|7" "$(q $db "select substr(message, 1, instr(message, ' ') - 1), count(*) from events group by 1 order by 1")"
expect_eq "samples kept" 20 "$(q $db 'select count(*) from v_samples')"
expect_eq "reject kept" "not json, rejected: 29 days" "$(q $db 'select excerpt from v_rejects')"
horizon=$(q $db 'select pruned_before_us from runs order by id desc limit 1')
started=$(q $db 'select started_us from runs order by id desc limit 1')
# the horizon is 30 days before the run's start (within the second it took to begin)
d=$((started - horizon - 30 * 86400 * 1000000)); [ ${d#-} -lt 2000000 ] || fail "horizon $horizon vs start $started"
expect_eq "no event before the horizon" 0 "$(q $db "select count(*) from events where ts_us < $horizon")"
expect_eq "ingest state kept" 2 "$(q $db 'select count(*) from streams')"

# a re-run reads nothing again (the deleted lines stay stored as far as
# the ingest state goes), also without --keep-days
ingest $db $L || fail "re-run"
expect_eq "re-run stores nothing" "0|0" "$(q $db 'select lines_stored, lines_rejected from runs order by id desc limit 1')"
expect_eq "events after re-run" 20 "$(q $db 'select count(*) from events')"
# appended lines are read, old ones among them pruned by the next run
jsonl $L/b.log b40 40 5
jsonl $L/b.log b0 0 2
"$INGEST" --db $db --keep-days 30 $L 2>$T/err || fail "append run"
grep -q "7 lines stored" $T/err || fail "append: $(cat $T/err)"
expect_eq "events after append" 22 "$(q $db 'select count(*) from events')"

# gpulog-report says when its window starts before the retained data: the
# horizon is the latest runs.pruned_before_us, printed here by sqlite3
horizon=$(q $db "select strftime('%Y-%m-%dT%H:%M:%S', max(pruned_before_us) / 1000000, 'unixepoch') || '.' || printf('%06d', max(pruned_before_us) % 1000000) || 'Z' from runs")
"$REPORT" --db $db --days 60 --format json --no-charts --output-dir $T/rep >/dev/null || fail "report"
grep -q "\"retained_since\": \"$horizon\"" $T/rep/report.json \
	|| fail "retained_since (want $horizon): $(grep retained $T/rep/report.json)"
grep -q '"before_retained": true' $T/rep/report.json || fail "before_retained: $(grep before_ $T/rep/report.json)"
"$REPORT" --db $db --days 60 --format text --no-charts > $T/rep.txt || fail "text report"
grep -q "the window starts before the retained data" $T/rep.txt || fail "text note: $(head -5 $T/rep.txt)"
"$REPORT" --db $db --days 5 --format json --no-charts --output-dir $T/rep5 >/dev/null || fail "report 5 days"
grep -q '"before_retained": false' $T/rep5/report.json || fail "5-day window: $(grep before_ $T/rep5/report.json)"

# --- space: a bigger set, pruned, the file shrinks ----------------------
B=$T/big
mkdir -p $B
jsonl $B/old.log old 60 60000
jsonl $B/new.log new 2 2000
bdb=$T/big.db
ingest $bdb $B || fail "big ingest"
before=$(q $bdb 'pragma page_count')
ingest $bdb --keep-days 7 $B || fail "big prune"
after=$(q $bdb 'pragma page_count')
expect_eq "big: events kept" 2000 "$(q $bdb 'select count(*) from events')"
expect_eq "big: free pages left" 0 "$(q $bdb 'pragma freelist_count')"
# 62,000 -> 2,000 rows: the file must lose most of its pages
[ $((after * 4)) -lt "$before" ] || fail "page_count $before -> $after: space not given back"
psize=$(q $bdb 'pragma page_size')
[ $(($(stat -c %s $bdb) / psize * 4)) -lt "$before" ] || fail "file size $(stat -c %s $bdb) after pruning ($before pages before)"

# a database made before auto_vacuum was set at creation: converted once
odb=$T/old.db
ingest $odb $B || fail "old ingest"
sqlite3 $odb 'pragma auto_vacuum = NONE; vacuum;'
expect_eq "auto_vacuum off" 0 "$(q $odb 'pragma auto_vacuum')"
before=$(q $odb 'pragma page_count')
ingest $odb --keep-days 7 $B || fail "old prune"
expect_eq "converted" 2 "$(q $odb 'pragma auto_vacuum')"
after=$(q $odb 'pragma page_count')
[ $((after * 4)) -lt "$before" ] || fail "old db: page_count $before -> $after"
expect_eq "old db: events" 2000 "$(q $odb 'select count(*) from events')"

# --- kill -9 during pruning --------------------------------------------
K=$T/kill
mkdir -p $K
jsonl $K/old.log old 60 300000
jsonl $K/new.log new 2 3000
kdb=$T/k.db
ingest $kdb $K || fail "kill: ingest"
cp $kdb $T/k0.db
mid=0
for delay in 0.1 0.3 0.6 0.9 1.2 1.6; do
	cp $T/k0.db $kdb
	rm -f $kdb-wal $kdb-shm
	"$INGEST" -q --db $kdb --keep-days 7 $K &
	pid=$!
	sleep $delay
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
	# mid-prune: some of the 600,000 old rows (events, samples) gone, or
	# all gone but their pages not yet given back
	left=$(q $kdb "select (select count(*) from events where message like 'old %')
		+ (select count(*) from v_samples where ts_us < $(( (now - 30 * 86400) * 1000000 )))")
	free=$(q $kdb 'pragma freelist_count')
	if [ "$left" -gt 0 ] && [ "$left" -lt 600000 ] || [ "$left" -eq 0 ] && [ "$free" -gt 0 ]; then
		mid=$((mid + 1))
	fi
	ingest $kdb --keep-days 7 $K || fail "kill $delay: next run"
	expect_eq "kill $delay: integrity" ok "$(q $kdb 'pragma integrity_check')"
	expect_eq "kill $delay: events" "0|3000" \
		"$(q $kdb "select count(*) filter (where message like 'old %'), count(*) filter (where message like 'new %') from events")"
	expect_eq "kill $delay: samples" 3000 "$(q $kdb 'select count(*) from v_samples')"
	expect_eq "kill $delay: distinct" 3000 "$(q $kdb 'select count(distinct message) from events')"
	expect_eq "kill $delay: free pages" 0 "$(q $kdb 'pragma freelist_count')"
done
echo "kills that landed mid-prune: $mid of 6"
[ $mid -ge 1 ] || fail "no kill landed while pruning was under way"

# bad values
"$INGEST" --db $db --keep-days 0 $L 2>$T/err; expect_eq "--keep-days 0" 2 $?
"$INGEST" --db $db --keep-days x $L 2>$T/err; expect_eq "--keep-days x" 2 $?
grep -q "keep-days: not a number of days" $T/err || fail "message: $(cat $T/err)"
exit 0
