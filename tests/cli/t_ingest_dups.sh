# Each record once (issue 7): an identical record found in two files is
# stored twice and the second is marked events.dup_of = the first's id.
# Expected values are counted from the lines this script writes.
. tests/cli/lib.sh

d=$T/logs; mkdir -p $d; db=$T/db
err='{"timestamp": "2025-11-16T10:00:00.000001Z", "level": "ERROR", "component": "gpu", "message": "CUDA out of memory", "gpu_metrics": {"error_count": 3}}'
other='{"timestamp": "2025-11-16T10:00:01.000000Z", "level": "INFO", "component": "gpu", "message": "tick"}'
# first LINE: a first line of its own, so that no file is taken for a
# rotated copy of another (streams are identified by content).
first() { echo "{\"timestamp\": \"2025-11-16T09:00:00Z\", \"level\": \"INFO\", \"message\": \"start $1\"}"; }
# The service writes each GPU error to gpu.log and to error.log.
{ first gpu; echo "$err"; echo "$other"; } > $d/gpu.log
{ first error; echo "$err"; } > $d/error.log
# The same plain line in two more files; and in one file the same text at
# two different times (two records, neither a duplicate).
line='{"timestamp": "2025-11-16T10:00:02Z", "level": "WARN", "message": "slow"}'
{ first a; echo "$line"; } > $d/a.log
{ first b; echo "$line"; } > $d/b.log
{ first c; echo '{"timestamp": "2025-11-16T10:00:03Z", "level": "WARN", "message": "again"}'
  echo '{"timestamp": "2025-11-16T10:00:04Z", "level": "WARN", "message": "again"}'; } > $d/c.log
touch -d '1 hour ago' $d/*.log

out=$("$INGEST" --db $db $d 2>&1) || fail "ingest: $out"
# 12 lines stored (5 first lines + 7); 2 duplicates (gpu.log's error, b.log's line).
expect_eq "events" 12 "$(q $db 'select count(*) from events')"
expect_eq "duplicates" 2 "$(q $db 'select count(*) from events where dup_of is not null')"
echo "$out" | grep -q "2 events marked as duplicates" || fail "summary: $out"
# Files are read oldest first, equal times in path order: here all have one
# time, so a.log, b.log, c.log, error.log, gpu.log.
expect_eq "error.log's error is the original" "error.log|gpu.log" \
	"$(q $db "select o.path, d.path from v_events d join v_events o on o.id = d.dup_of
		  where d.message = 'CUDA out of memory'" | sed "s|$d/||g")"
expect_eq "a.log's line is the original" "a.log|b.log" \
	"$(q $db "select o.path, d.path from v_events d join v_events o on o.id = d.dup_of
		  where d.message = 'slow'" | sed "s|$d/||g")"
expect_eq "same text, other times: originals" 2 \
	"$(q $db "select count(*) from events where message = 'again' and dup_of is null")"
# What a report counts: each record once.
expect_eq "originals" 10 "$(q $db 'select count(*) from v_events where dup_of is null')"
# The hash leaves out the file and line: both copies hash alike.
expect_eq "one hash per mirrored pair" 1 \
	"$(q $db "select count(distinct rec_hash) from events where message = 'CUDA out of memory'")"

# A re-run stores and marks nothing new; a later copy of the error in a
# third file is marked too, against the first original.
out=$("$INGEST" --db $db $d 2>&1) || fail "re-run: $out"
echo "$out" | grep -q "0 events marked as duplicates" || fail "re-run summary: $out"
expect_eq "events after re-run" 12 "$(q $db 'select count(*) from events')"
{ first worker; echo "$err"; } > $d/worker.log
touch -d '1 hour ago' $d/worker.log
ingest $db $d || fail "third run"
expect_eq "third copy points at the original" \
	"$(q $db "select id from events where message = 'CUDA out of memory' and dup_of is null")" \
	"$(q $db "select dup_of from v_events where message = 'CUDA out of memory' and path like '%worker.log'")"
expect_eq "duplicates after the third copy" 3 "$(q $db 'select count(*) from events where dup_of is not null')"

# Files of different ages: the older is read first, whatever the names
# (z.log two hours old, a.log one hour): z.log's copy is the original, and
# its rows come first.
mkdir $T/age
{ first z; echo "$err"; } > $T/age/z.log
{ first a; echo "$err"; } > $T/age/a.log
touch -d '2 hours ago' $T/age/z.log
touch -d '1 hour ago' $T/age/a.log
ingest $T/dbage $T/age || fail "age run"
expect_eq "the older file's copy is the original" "z.log|a.log" \
	"$(q $T/dbage "select o.path, d.path from v_events d join v_events o on o.id = d.dup_of" |
		sed "s|$T/age/||g")"
expect_eq "rows in reading order" "z.log z.log a.log a.log" \
	"$(q $T/dbage 'select path from v_events order by id' | sed "s|$T/age/||" | tr '\n' ' ' | sed 's/ $//')"

# One record repeated thousands of times in one file at one time (a retry
# loop, second-resolution times): all originals; its copies in a file read
# later are mirrors of the first copy; a second run appending more of both
# adds originals to the first and mirrors to the second. (The mirror check
# keeps its last answer per record and stream: without it each copy walked
# all the earlier ones.)
mkdir $T/rep
rl='{"timestamp": "2025-11-16T10:00:00Z", "level": "ERROR", "component": "gpu", "message": "CUDA error: out of memory (retry)"}'
{ first rep; awk -v l="$rl" 'BEGIN { for (i = 0; i < 5000; i++) print l }'; } > $T/rep/a.log
{ first rep2; echo "$rl"; echo "$rl"; echo "$rl"; } > $T/rep/b.log
touch -d '2 hours ago' $T/rep/a.log
touch -d '1 hour ago' $T/rep/b.log
ingest $T/dbrep $T/rep || fail "repeated record run"
expect_eq "copies in a.log: originals" "5000|0" \
	"$(q $T/dbrep "select count(*), count(dup_of) from v_events where path like '%/a.log' and message like 'CUDA%'")"
first_id=$(q $T/dbrep "select min(id) from v_events where path like '%/a.log' and message like 'CUDA%'")
expect_eq "copies in b.log: mirrors of a.log's first" "3|3|$first_id" \
	"$(q $T/dbrep "select count(*), count(dup_of), min(dup_of) from v_events where path like '%/b.log' and message like 'CUDA%' and dup_of = $first_id")"
awk -v l="$rl" 'BEGIN { for (i = 0; i < 2000; i++) print l }' >> $T/rep/a.log
echo "$rl" >> $T/rep/b.log
touch -d '2 hours ago' $T/rep/a.log
touch -d '1 hour ago' $T/rep/b.log
ingest $T/dbrep $T/rep || fail "repeated record, second run"
expect_eq "after the appends: originals in a.log, mirrors in b.log" "7000|0 4|4" \
	"$(q $T/dbrep "select count(*), count(dup_of) from v_events where path like '%/a.log' and message like 'CUDA%'") $(q $T/dbrep "select count(*), count(dup_of) from v_events where path like '%/b.log' and message like 'CUDA%'")"

# Identical records within one file at the same time are all originals
# (a loop that logs the same thing twice in a microsecond).
mkdir $T/same; { first x; echo "$line"; echo "$line"; } > $T/same/x.log
touch -d '1 hour ago' $T/same/x.log
ingest $T/db2 $T/same || fail "same-file run"
expect_eq "same file, same time: no duplicates" "3|0" \
	"$(q $T/db2 'select count(*), count(dup_of) from events')"

# One record, one sample: the figures of a mirror are not stored again
# (gpu.log and error.log hold the same record with memory_usage_mb 2048.5
# and gpu_utilization_percent 91; gpu.log first a record of its own).
mkdir $T/fig
rec='{"timestamp": "2025-11-16T12:00:00Z", "level": "ERROR", "component": "gpu", "message": "OOM", "memory_usage_mb": 2048.5, "gpu_metrics": {"gpu_utilization_percent": 91}}'
{ echo '{"timestamp": "2025-11-16T11:59:59Z", "level": "INFO", "component": "gpu", "message": "ok", "memory_usage_mb": 100}'; echo "$rec"; } > $T/fig/gpu.log
echo "$rec" > $T/fig/error.log
touch -d '1 hour ago' $T/fig/*.log
out=$("$INGEST" --db $T/db3 $T/fig 2>&1) || fail "figures run: $out"
expect_eq "events and mirrors" "3|1" "$(q $T/db3 'select count(*), count(dup_of) from events')"
expect_eq "samples: the record's two once, the other's one (2048.5 + 100 MiB)" "3|2148.5" \
	"$(q $T/db3 "select count(*), sum(value) filter (where metric = 'gpu.memory_used_mib') from v_samples")"
echo "$out" | grep -q "3 metric samples stored; 1 events marked as duplicates" || fail "summary: $out"

# The probe (lib/store/store.c) is an index lookup, never a scan of events,
# and sorts nothing.
plan=$(q $db "explain query plan select min(id) from events indexed by events_ts where ts_us = 1 and rec_hash = 2 and stream_id <> 3 and dup_of is null")
echo "$plan" | grep -q "USING INDEX events_ts (ts_us=? AND rec_hash=?" || fail "probe plan: $plan"
echo "$plan" | grep -q "TEMP B-TREE" && fail "probe plan sorts: $plan"
exit 0
