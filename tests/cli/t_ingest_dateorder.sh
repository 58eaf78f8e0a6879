# Text dates dd/dd/yyyy whose order the file does not tell (03/04/2026):
# month/day by default, day/month with the ingest config's
# "date_order": "day_first" (top level or per input); a file with one
# unambiguous date (25/04/2026) decides for all its lines, the ones before
# it too, whatever the config says. Expected times written by hand.
. tests/cli/lib.sh

mkdir -p $T/logs
printf '03/04/2026 10:00:00 - INFO - job - first\n03/05/2026 11:00:00 - INFO - job - second\n' \
	>$T/logs/amb.log
printf '03/04/2026 10:00:00 - INFO - job - first\n25/04/2026 11:00:00 - INFO - job - second\n' \
	>$T/logs/dmy.log
touch -d '2026-06-01T00:00:00Z' $T/logs/*.log
tms() { q "$1" "select time from v_events where path like '%/$2' order by line" | tr '\n' ' '; }

"$INGEST" -q --db $T/a.db $T/logs 2>/dev/null || fail "ingest without config"
expect_eq "month first by default" "2026-03-04T10:00:00.000Z 2026-03-05T11:00:00.000Z " "$(tms $T/a.db amb.log)"
expect_eq "the file's own 25/04" "2026-04-03T10:00:00.000Z 2026-04-25T11:00:00.000Z " "$(tms $T/a.db dmy.log)"

printf '{"date_order": "day_first"}\n' >$T/day.json
"$INGEST" -q --db $T/b.db --config $T/day.json $T/logs 2>/dev/null || fail "ingest day_first"
expect_eq "day first by config" "2026-04-03T10:00:00.000Z 2026-05-03T11:00:00.000Z " "$(tms $T/b.db amb.log)"

# per input, over the top level; the file that tells keeps its order
printf '{"date_order": "day_first", "inputs": [{"path": "*.log", "date_order": "month_first"}]}\n' >$T/mix.json
"$INGEST" -q --db $T/c.db --config $T/mix.json $T/logs 2>/dev/null || fail "ingest per input"
expect_eq "month first per input" "2026-03-04T10:00:00.000Z 2026-03-05T11:00:00.000Z " "$(tms $T/c.db amb.log)"
expect_eq "the file over the config" "2026-04-03T10:00:00.000Z 2026-04-25T11:00:00.000Z " "$(tms $T/c.db dmy.log)"

printf '{"date_order": "dmy"}\n' >$T/bad.json
rc=0; out=$("$INGEST" -q --db $T/d.db --config $T/bad.json $T/logs 2>&1) || rc=$?
expect_eq "bad date_order: usage status" 2 "$rc"
echo "$out" | grep -q 'date_order.*month_first' || fail "message names the key and its values: $out"
exit 0
