# --timezone ZONE: Python logging's naive times are in ZONE. Expected UTC
# times are computed here with python3's zoneinfo, across Europe/Berlin's
# DST changes (2025-03-30 02:00 -> 03:00, 2025-10-26 03:00 -> 02:00).
. tests/cli/lib.sh

command -v python3 >/dev/null 2>&1 && python3 -c 'import zoneinfo; zoneinfo.ZoneInfo("Europe/Berlin")' 2>/dev/null ||
	skip "skipped: python3 with zoneinfo and Europe/Berlin needed"
[ -f /usr/share/zoneinfo/Europe/Berlin ] || skip "skipped: /usr/share/zoneinfo/Europe/Berlin absent"

mkdir -p $T/logs
times="2025-03-30 01:59:59,500
2025-03-30 03:00:00,000
2025-03-30 03:00:00,250
2025-07-01 12:00:00,000
2025-10-26 01:59:00,000
2025-10-26 03:00:00,000
2025-12-31 23:59:59,999"
echo "$times" | awk '{ printf("%s %s - worker - INFO - tick %d\n", $1, $2, NR) }' > $T/logs/worker.log
touch -d '1 hour ago' $T/logs/worker.log
"$INGEST" -q --db $T/db --timezone Europe/Berlin $T/logs || fail "ingest"
want=$(echo "$times" | python3 -c '
import sys, datetime, zoneinfo
z = zoneinfo.ZoneInfo("Europe/Berlin")
for l in sys.stdin:
    t = datetime.datetime.strptime(l.strip(), "%Y-%m-%d %H:%M:%S,%f").replace(tzinfo=z)
    print(round(t.timestamp() * 1e6))')
expect_eq "UTC times" "$want" "$(q $T/db 'select ts_us from events order by line')"

# Default and UTC: the naive time as it is.
"$INGEST" -q --db $T/utc.db --timezone UTC $T/logs || fail "UTC ingest"
"$INGEST" -q --db $T/dflt.db $T/logs || fail "default ingest"
expect_eq "UTC" "2025-03-30T01:59:59.500Z" "$(q $T/utc.db 'select time from v_events where message = "tick 1"')"
expect_eq "default is UTC" "$(q $T/utc.db 'select group_concat(ts_us) from events')" \
	"$(q $T/dflt.db 'select group_concat(ts_us) from events')"

# An unknown zone: exit 2, named; nothing created.
out=$("$INGEST" --db $T/bad.db --timezone Mars/Olympus $T/logs 2>&1); expect_eq "bad zone status" 2 $?
echo "$out" | grep -q "unknown time zone 'Mars/Olympus'" || fail "bad zone message: $out"
[ ! -e $T/bad.db ] || fail "database created for a bad zone"
out=$("$INGEST" --db $T/bad.db --timezone ../../etc/passwd $T/logs 2>&1); expect_eq "path zone status" 2 $?
exit 0
