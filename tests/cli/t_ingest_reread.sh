#!/bin/sh
# Following a reject's advice works (issue 30): a headerless nvidia-smi CSV
# has every line rejected ("give its columns in the ingest config"); the
# summary names the file with the reason; gpulog-report counts those
# rejects though they have no time; once the config gives the columns, the
# next run reads the file again, stores its samples and drops its rejects;
# a run after that reads nothing. A file with any line stored is never
# read twice.
. tests/cli/lib.sh

mkdir $T/logs
# --query-gpu=timestamp,index,utilization.gpu,memory.used --format=csv,noheader:
# 7 rows, one a second from 2025-11-16 10:00:00 (no zone: UTC)
for i in 0 1 2 3 4 5 6; do
	printf '2025/11/16 10:00:0%d.000, 0, %d %%, %d MiB\n' $i $((20 + i)) $((800 + i))
done > $T/logs/gpu-noheader.csv
# a JSON log with 2 good lines and 1 bad one
{ genlines g 0 2; echo '{"timestamp": broken'; } > $T/logs/app.log
touch -d '1 hour ago' $T/logs/*

"$INGEST" --db $T/db $T/logs 2>$T/err || fail "first run: $(cat $T/err)"
grep -q "^gpulog-ingest: every line rejected '$T/logs/gpu-noheader.csv': 7 lines, nothing stored: CSV without a header: give its columns in the ingest config (\"columns\")$" $T/err ||
	fail "not named: $(cat $T/err)"
grep -q "every line rejected '$T/logs/app.log'" $T/err && fail "app.log named: $(cat $T/err)"
expect_eq "rejects" 8 "$(q $T/db 'select count(*) from rejects')"
expect_eq "rejects without a time" 7 "$(q $T/db 'select count(*) from rejects where ts_us is null')"
# -q: not a word
out=$("$INGEST" -q --db $T/q.db $T/logs 2>&1) || fail "-q run"
expect_eq "-q" "" "$out"

# The report counts every reject: the CSV's 7 (no time) and app.log's 1
# (the time of the record before it, 2025-11-16T00:00:01.000001Z)
"$REPORT" --db $T/db --since 2025-11-16 --until 2025-11-17 --format text >$T/r.txt 2>/dev/null ||
	fail "report"
grep -q '^Database 2 files, 8 rejected lines' $T/r.txt || fail "report rejects: $(grep Database $T/r.txt)"
# a window without app.log's reject still counts the 7 without a time
"$REPORT" --db $T/db --since 2020-01-01 --until 2020-01-02 --format text >$T/r.txt 2>/dev/null ||
	fail "report 2020"
grep -q '^Database 2 files, 7 rejected lines' $T/r.txt || fail "report rejects 2020: $(grep Database $T/r.txt)"

# The advice followed: the columns given. The CSV is read again, app.log not.
cat > $T/cfg.json <<'X'
{"inputs": [{"path": "gpu-noheader.csv", "columns": ["timestamp", "index", "utilization.gpu", "memory.used"]}]}
X
"$INGEST" --db $T/db --config $T/cfg.json $T/logs 2>$T/err || fail "second run: $(cat $T/err)"
grep -q "read again '$T/logs/gpu-noheader.csv'" $T/err || fail "no re-read notice: $(cat $T/err)"
grep -q "1 files read again" $T/err || fail "summary: $(cat $T/err)"
# 7 rows x 2 metrics
grep -q "14 metric samples stored" $T/err || fail "samples: $(cat $T/err)"
expect_eq "rejects after the re-read" 1 "$(q $T/db 'select count(*) from rejects')"
expect_eq "samples" "7|2025-11-16T10:00:00.000Z|2025-11-16T10:00:06.000Z|20.0|26.0" \
	"$(q $T/db "select count(*), min(time), max(time), min(value), max(value) from v_samples where metric = 'gpu.utilization_pct'")"
expect_eq "memory" "800.0|806.0" \
	"$(q $T/db "select min(value), max(value) from v_samples where metric = 'gpu.memory_used_mib'")"
expect_eq "app.log events" 2 "$(q $T/db 'select count(*) from events')"
expect_eq "file note cleared" "" "$(q $T/db "select ifnull(note, '') from files where path like '%noheader.csv'")"

# A third run with the same config: nothing is read.
"$INGEST" --db $T/db --config $T/cfg.json $T/logs 2>$T/err || fail "third run"
grep -q "2 files: 0 new, 2 unchanged" $T/err || fail "third run: $(cat $T/err)"
grep -q "read again" $T/err && fail "read again twice: $(cat $T/err)"
expect_eq "samples after a third run" 14 "$(q $T/db 'select count(*) from v_samples')"

# A file with lines stored is not read again when the config changes.
printf '{"timezone": "Europe/Berlin", "inputs": [{"path": "gpu-noheader.csv", "columns": ["timestamp", "index", "utilization.gpu", "memory.used"]}]}' > $T/cfg2.json
"$INGEST" --db $T/db --config $T/cfg2.json $T/logs 2>$T/err || fail "fourth run"
grep -q "2 files: 0 new, 2 unchanged" $T/err || fail "fourth run: $(cat $T/err)"
expect_eq "events after a zone change" 2 "$(q $T/db 'select count(*) from events')"
expect_eq "samples after a zone change" 14 "$(q $T/db 'select count(*) from v_samples')"
exit 0
