#!/bin/sh
# How gpulog-report opens the database (lib/store/query.h gl_query_connect):
# it leaves no -wal/-shm files beside it, and a user who can write neither
# the database nor its directory (nobody; needs root and setpriv) gets the
# same report and events, with nothing created beside the database.
BUILD=${BUILD:-build}
R=$BUILD/bin/gpulog-report
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

mkdir "$T/d"
"$BUILD/bin/gpulog-ingest" --quiet --config fixtures/sample-logs.ingest.json --db "$T/d/g.db" \
	fixtures/sample-logs || fail "ingest"
[ "$(ls "$T/d")" = "g.db" ] || fail "the ingest left: $(ls "$T/d")"
"$R" --db "$T/d/g.db" --since 2000-01-01 --until 2030-01-01 --format json --events \
	--output-dir "$T/root" >/dev/null || fail "report rc"
[ "$(ls "$T/d")" = "g.db" ] || fail "the report left: $(ls "$T/d")"
grep -q '"events": [1-9]' "$T/root/report.json" || fail "no events in the report"
[ -s "$T/root/events.ndjson" ] || fail "no events.ndjson"

if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null 2>&1; then
	echo "skipped: a report as another user needs root and setpriv"
	exit 0
fi
# (none are there; a -shm left by an older report would hide the case)
rm -f "$T/d/g.db-wal" "$T/d/g.db-shm"
chmod 755 "$T" "$T/d" && chmod 644 "$T/d/g.db" || fail "chmod"
mkdir "$T/out" && chmod 777 "$T/out"
asnobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
asnobody "$R" --db "$T/d/g.db" --since 2000-01-01 --until 2030-01-01 --format json --events \
	--output-dir "$T/out/r" >/dev/null 2>"$T/err" || fail "report as nobody: $(cat "$T/err")"
[ "$(ls "$T/d")" = "g.db" ] || fail "the report as nobody left: $(ls "$T/d")"
cmp -s "$T/root/report.json" "$T/out/r/report.json" || fail "report.json differs as nobody"
cmp -s "$T/root/events.ndjson" "$T/out/r/events.ndjson" || fail "events.ndjson differs as nobody"
exit 0
