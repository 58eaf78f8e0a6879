#!/bin/sh
# gpulog-report on a tree where every GPU error is written to both gpu.log
# and error.log (the analytics service's log_gpu_error): gpulog-ingest marks
# the mirror (events.dup_of), and each error counts once in the report.
# Expected counts follow from the lines written: 3 kernel lines + 2 errors in
# gpu.log, the same 2 errors + 1 warning in error.log.
. tests/cli/lib.sh

mkdir -p $T/logs
e1='{"timestamp": "2025-11-16T10:00:05.000000Z", "level": "ERROR", "component": "gpu", "message": "CUDA out of memory. Tried to allocate 2.00 GiB", "gpu_metrics": {"error_count": 1, "recovery_attempts": 1}}'
e2='{"timestamp": "2025-11-16T10:03:05.000000Z", "level": "ERROR", "component": "gpu", "message": "CUDA out of memory. Tried to allocate 1.50 GiB", "gpu_metrics": {"error_count": 2, "recovery_attempts": 2}}'
{
	genlines run 36000 3
	echo "$e1"
	echo "$e2"
} > $T/logs/gpu.log
{
	echo "$e1"
	echo "$e2"
	echo '{"timestamp": "2025-11-16T10:04:00.000000Z", "level": "WARNING", "component": "gpu", "message": "ECC error corrected"}'
} > $T/logs/error.log
"$INGEST" -q --db $T/db $T/logs || fail "ingest"

report() {
	"$REPORT" --db $T/db --since 2025-11-16 --days 1 --format json --output-dir $T/$1 \
		--no-charts >/dev/null || fail "report $1"
}
jq_num() { sed -n "s/^    \"$2\": \\([0-9]*\\),*\$/\\1/p" $T/$1/report.json | head -n 1; }

# gpulog-ingest marks each record identical to one read from another file
expect_eq "rows kept" 8 "$(q $T/db 'select count(*) from events')"
expect_eq "marked mirrors" "2" "$(q $T/db 'select count(*) from events where dup_of is not null')"
# each mirror points at the same record in the other file
expect_eq "mirror and original in two files" 2 \
	"$(q $T/db 'select count(*) from events d join events o on o.id = d.dup_of where d.path_id != o.path_id and d.message = o.message and d.ts_us = o.ts_us')"
report v3
expect_eq "events" 6 "$(jq_num v3 events)"
expect_eq "duplicates" 2 "$(jq_num v3 duplicates)"
expect_eq "errors" 2 "$(jq_num v3 errors)"
expect_eq "mirrored" 2 "$(jq_num v3 mirrored)"
expect_eq "warnings" 1 "$(jq_num v3 warnings)"
# the counters: 1 -> 2, whatever the mirror says; nothing is stored before the
# window, so the process started in it and its counter counts from zero: the
# two errors and two recovery attempts written
expect_eq "error_count" 2 "$(jq_num v3 error_count)"
expect_eq "recovery_attempts" 2 "$(jq_num v3 recovery_attempts)"
# a window that starts after the process did: the first value is a base
"$REPORT" --db $T/db --since 2025-11-16T10:00:01 --days 1 --format json --output-dir $T/late \
	--no-charts >/dev/null || fail "report late"
expect_eq "error_count, late window" 1 "$(jq_num late error_count)"
exit 0
