# The ingest stores each operation timing (table operations, schema 10):
# a JSON line with execution_time_ms (named by metadata.operation, else by
# its message "Operation X completed in ...", else nameless), a text line
# "Operation X completed in 350us"; never a kernel timing, never a record
# with metadata.duration_ms alone. Expected rows are written out by hand
# from the lines below. A record and its operation go together: --keep-days
# deletes both, and gpulog-report's operations section counts the rows.
. tests/cli/lib.sh

L=$T/logs
mkdir -p $L
old=$(date -u -d '40 days ago' +%Y-%m-%dT%H:%M:%SZ)
new=$(date -u -d '1 day ago' +%Y-%m-%d)
cat > $L/perf.log <<EOF2
{"timestamp": "$old", "level": "INFO", "component": "performance", "message": "Operation layout_step completed in 9ms", "metadata": {"operation": "layout_step"}, "execution_time_ms": 9}
{"timestamp": "${new}T10:00:00Z", "level": "INFO", "component": "performance", "message": "Operation layout_step completed in 2.38ms", "metadata": {"operation": "layout_step", "duration_ms": 2.38, "throughput": 412.5}, "execution_time_ms": 2.5}
{"timestamp": "${new}T10:00:01Z", "level": "INFO", "component": "performance", "message": "Operation other completed in 9ms", "metadata": {"operation": "from_meta"}, "execution_time_ms": 3}
{"timestamp": "${new}T10:00:02Z", "level": "INFO", "component": "server", "message": "GET /x 200", "execution_time_ms": 4}
{"timestamp": "${new}T10:00:03Z", "level": "INFO", "component": "performance", "message": "checkpoint", "metadata": {"duration_ms": 7}}
{"timestamp": "${new}T10:00:04Z", "level": "INFO", "component": "gpu", "message": "Operation k completed in 1ms", "gpu_metrics": {"kernel_name": "k1", "execution_time_us": 5.5}}
EOF2
cat > $L/service.log <<EOF2
${new} 10:00:05,000 - performance - INFO - Operation decode completed in 350us
${new} 10:00:06,000 - performance - INFO - Operation encode completed in 1.5 s
${new} 10:00:07,000 - performance - INFO - Operation idle completed in
EOF2
db=$T/db
ingest $db $L || fail "ingest"
ops="select ifnull(n.name, '-'), o.ms, ifnull(o.throughput, '-') from operations o
	left join names n on n.id = o.name_id order by o.event_id"
expect_eq "operations stored" "layout_step|9.0|-
layout_step|2.5|412.5
from_meta|3.0|-
-|4.0|-
decode|0.35|-
encode|1500.0|-" "$(q $db "$ops")"
expect_eq "each of an event without a kernel" "6|0" \
	"$(q $db 'select count(*), sum(e.kernel_id is not null) from operations o join events e on e.id = o.event_id')"

# the report counts them (the nameless one by its component)
"$REPORT" --db $db --days 3 --format csv --no-charts --output-dir $T/r >/dev/null || fail "report"
expect_eq "report's operations" "decode 1
encode 1
from_meta 1
layout_step 1
server 1" "$(awk -F, 'NR > 1 { print $1, $3 }' $T/r/operations.csv | sort)"

# pruned with their events
"$INGEST" -q --db $db --keep-days 30 $L || fail "pruning run"
expect_eq "operation of the pruned event gone" "0|5" \
	"$(q $db 'select (select count(*) from operations where event_id not in (select id from events)), count(*) from operations')"
exit 0
