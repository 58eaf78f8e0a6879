#!/bin/sh
# Issue 11 D9 and the output-error doubt: the window must lie within
# 1970-01-01 .. 9999-12-31 and span at most 36525 days, a hundred years
# (exit 2 with a message, nothing written); a window that begins before
# 1970 and ends after begins at 1970-01-01 (issue 30: nothing is stored
# before; the cap stops nonsense, not history); every accepted extreme writes four-digit
# RFC 3339 years; a report that cannot be written to stdout (/dev/full)
# exits 1 with a message, for the text report and for the list of paths.
. tests/cli/lib.sh

"$BUILD/bench/report_bench" $T/db 200 1 2025-01-02 >/dev/null || fail "report_bench"

usage_error() {
	"$REPORT" --db $T/db "$@" --format json --output-dir $T/bad --no-charts >/dev/null 2>$T/err
	rc=$?
	[ $rc -eq 2 ] || fail "$*: exit $rc, expected 2"
	grep -q 'the window must lie within 1970-01-01 and 9999-12-31' $T/err || fail "$*: message: $(cat $T/err)"
	[ ! -e $T/bad/report.json ] || fail "$*: report written"
}
usage_error --since 0001-01-01 --days 36500
usage_error --since 0001-01-01 --until 9999-12-31
usage_error --since 1969-12-30T23:59:59Z --days 1
usage_error --since 1970-01-01 --until 2070-01-02	# 36526 days (25 leap days in 1972..2068)

# the extremes accepted: the first day, the last day, the longest window
ok() {
	out=$1; shift
	"$REPORT" --db $T/db "$@" --format json --output-dir $T/$out >/dev/null 2>$T/err ||
		fail "$*: exit $?: $(cat $T/err)"
	# every time string is YYYY-MM-DDThh:mm:ssZ with a four-digit year
	grep -o '"[-0-9]*-[0-9][0-9]-[0-9][0-9]T[0-9:.]*Z"' $T/$out/report.json > $T/times
	[ -s $T/times ] || fail "$*: no times"
	grep -qv '^"[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T' $T/times && fail "$*: $(cat $T/times)"
	:
}
ok a --since 1970-01-01 --days 1
ok b --until 9999-12-31T23:59:59Z --days 36500 --no-charts
ok c --since 1970-01-01 --days 36500 --no-charts
ok d --since 1969-12-31T23:59:59Z --days 1 --no-charts
grep -q '"since": "1970-01-01T00:00:00Z"' $T/d/report.json || fail "1969 window not from 1970"
grep -q '"until": "1970-01-01T23:59:59Z"' $T/d/report.json || fail "1969 window until"
grep -q 'the window starts at 1970-01-01' $T/err || fail "1969 window note: $(cat $T/err)"
grep -q '"since": "1970-01-01T00:00:00Z"' $T/a/report.json || fail "1970 window"
# the window ending in 9999 and its preceding window, 36500 days each
# (python3: datetime(9999,12,31,23,59,59) - timedelta(36500), and 73000)
grep -q '"since": "9900-01-24T23:59:59Z"' $T/b/report.json || fail "9999 window since"
grep -q '"since": "9800-02-17T23:59:59Z"' $T/b/report.json || fail "9999 baseline since"

# output errors: text to /dev/full; json's printed paths to /dev/full
[ -w /dev/full ] || skip "skipped: /dev/full absent"
"$REPORT" --db $T/db --until 2025-01-02 --format text >/dev/full 2>$T/err
[ $? -eq 1 ] || fail "text > /dev/full: exit status"
grep -q 'No space left on device' $T/err || fail "text > /dev/full: message $(cat $T/err)"
"$REPORT" --db $T/db --until 2025-01-02 --format json --output-dir $T/f --no-charts >/dev/full 2>$T/err
[ $? -eq 1 ] || fail "json > /dev/full: exit status"
grep -q 'cannot write to standard output: No space left on device' $T/err ||
	fail "json > /dev/full: message $(cat $T/err)"
exit 0
