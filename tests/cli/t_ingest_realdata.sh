# Real logs from ../shared/realdata (when present): every RMM sample is read
# without a single reject; GPU flight recorder NDJSON is read (fmt_gpufl.c:
# its init and shutdown lines are events), inference receipts are skipped,
# not rejected.
. tests/cli/lib.sh
[ -d "$REALDATA/rmm" ] || skip "no real data at $REALDATA"

out=$("$INGEST" --db $T/db "$REALDATA/rmm" 2>&1) || fail "ingest failed: $out"
expect_eq "rejects" 0 "$(q $T/db 'select count(*) from rejects')"
# Independent counts: every line of the debug logs is a record; the CSV has
# a header and 2 rows.
lines=$(cat "$REALDATA"/rmm/debug_logs/*/rmm_log.txt | wc -l | tr -d ' ')
expect_eq "debug log events" "$lines" "$(q $T/db 'select count(*) from events')"
expect_eq "memory events" 2 "$(q $T/db 'select count(*) from mem_events')"
errs=$(cat "$REALDATA"/rmm/debug_logs/*/rmm_log.txt | grep -c '\[error \]')
expect_eq "error events" "$errs" "$(q $T/db "select count(*) from v_events where level = 'ERROR'")"
expect_eq "failures carry their size" "$errs" \
	"$(q $T/db "select count(*) from events where json_extract(metadata, '$.upstream_bytes') > 0")"

if [ -d "$REALDATA/gpufl" ]; then
	out=$("$INGEST" --db $T/db2 "$REALDATA/gpufl" "$REALDATA/bitnet-rs" 2>&1) || fail "ingest gpufl: $out"
	expect_eq "gpufl rejects" 0 "$(q $T/db2 'select count(*) from rejects')"
	n=$(find "$REALDATA/bitnet-rs" -type f | wc -l | tr -d ' ')
	expect_eq "skipped" "$n" "$(q $T/db2 "select count(*) from files where status = 'skipped'")"
	# every gpufl file opens with init and closes with shutdown
	n=$(cat $(find "$REALDATA/gpufl" -type f) | grep -c '"type":"\(init\|shutdown\)"')
	expect_eq "gpufl init/shutdown events" "$n" "$(q $T/db2 "select count(*) from events")"
fi
exit 0
