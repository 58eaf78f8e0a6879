#!/bin/sh
# gpulog-report and gpulog-ingest as cron and a person use them (issue 30):
# a usage error is one line and "Try ... --help"; times without seconds and
# relative to now; a 100-year window; a bad --config exits 2 in both
# commands; --kernel / --metric that match nothing say so; -q prints
# nothing; without --format the same on a terminal and in a pipe (the dated
# directory and the text summary); the index of past reports and "latest".
. tests/cli/lib.sh

# line TIME LEVEL KERNEL: one record of the analytics JSON shape
line() {
	printf '{"timestamp": "%s", "level": "%s", "component": "gpu", "message": "m %s", "gpu_metrics": {"kernel_name": "%s", "execution_time_us": 100.5}}\n' \
		"$1" "$2" "$1" "$3"
}
mkdir $T/logs
{
	line 2025-11-15T12:00:00Z INFO k_alpha
	line 2025-11-16T12:00:00Z INFO k_alpha
	line 2025-11-16T12:30:00Z INFO k_beta
	line 2025-11-16T13:00:00Z ERROR k_alpha
	line 2025-11-16T14:00:00Z INFO k_beta
} > $T/logs/gpu.log
out=$("$INGEST" -q --db $T/db $T/logs 2>&1) || fail "ingest rc $?"
expect_eq "ingest -q prints nothing" "" "$out"

# events COMMAND...: the summary's event count of report.json written by COMMAND
events() {
	rm -rf $T/ev
	"$REPORT" --db $T/db --format json --output-dir $T/ev -q --no-charts "$@" ||
		fail "report $* rc $?"
	sed -n 's/^    "events": \([0-9]*\),$/\1/p' $T/ev/report.json | head -n 1
}

# 1. Usage errors: the message, then one line pointing at --help; exit 2.
usage_err() {
	prog=$1; shift
	"$prog" "$@" >$T/u.out 2>$T/u.err; rc=$?
	expect_eq "$* rc" 2 $rc
	expect_eq "$* stdout" "" "$(cat $T/u.out)"
	expect_eq "$* lines" 2 "$(wc -l < $T/u.err)"
	expect_eq "$* hint" "Try '${prog##*/} --help' for more information." "$(tail -n 1 $T/u.err)"
}
usage_err "$REPORT" --bogus
usage_err "$REPORT" --format yaml
usage_err "$REPORT" --since tomorrow
usage_err "$REPORT" --days 0
usage_err "$REPORT" extra-argument
usage_err "$INGEST" --bogus
usage_err "$INGEST" --db $T/u.db
usage_err "$INGEST" --keep-days x $T/logs
grep -q "^gpulog-ingest: --keep-days: not a number" $T/u.err || fail "ingest message: $(cat $T/u.err)"
"$REPORT" --help | grep -q '^Usage: gpulog-report' || fail "--help"

# 2. Times: RFC 3339 without seconds, with a zone or without (UTC).
expect_eq "12:15..13:30" 2 "$(events --since 2025-11-16T12:15Z --until '2025-11-16 13:30')"
expect_eq "with offset" 2 "$(events --since 2025-11-16T13:15+01:00 --until 2025-11-16T13:30:00Z)"
expect_eq "whole day" 4 "$(events --since 2025-11-16 --until 2025-11-17)"

# relative to now: lines 3 h, 1 h and 30 min old, one yesterday noon
now=$(date -u +%s)
iso() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }
yday=$(date -u -d "$(date -u +%Y-%m-%d) -1 day" +%Y-%m-%d)
mkdir $T/rel
{
	line "$(iso $((now - 3 * 3600)))" INFO k_rel
	line "$(iso $((now - 3600)))" INFO k_rel
	line "$(iso $((now - 1800)))" INFO k_rel
	line "${yday}T12:00:00Z" INFO k_rel
} > $T/rel/rel.log
"$INGEST" -q --db $T/db $T/rel || fail "ingest rel"
expect_eq "--since -2h" 2 "$(events --since -2h)"
expect_eq "--since -90m" 2 "$(events --since -90m)"
expect_eq "--since -45m" 1 "$(events --since -45m)"
expect_eq "--since -4h --until -2h" 1 "$(events --since -4h --until -2h)"
# yesterday noon, and those of the three recent lines that fall before today's midnight (UTC):
# run within 3 h after midnight, some of them are yesterday's too
t0=$(date -u -d "$yday" +%s)
t1=$(date -u -d "$(date -u +%Y-%m-%d)" +%s)
in_yday=1
for age in 10800 3600 1800; do
	[ $((now - age)) -ge "$t0" ] && [ $((now - age)) -lt "$t1" ] && in_yday=$((in_yday + 1))
done
expect_eq "yesterday..today" "$in_yday" "$(events --since yesterday --until today)"
expect_eq "--since -1w" 4 "$(events --since -1w --until now)"

# 3. A hundred years of history (all 9 lines), and a window from 1900.
expect_eq "--days 36525" 9 "$(events --days 36525)"
expect_eq "--since 1900-01-01" 9 "$(events --since 1900-01-01)"
usage_err "$REPORT" --days 36526

# 4. A bad --config: exit 2 in both commands, the file named.
printf '{"trends": {"p_valu": 0.1}}' > $T/bad.json
"$REPORT" --db $T/db --config $T/bad.json -q --no-charts --output-dir $T/x 2>$T/err
expect_eq "report bad config rc" 2 $?
grep -q "$T/bad.json" $T/err || fail "report config message: $(cat $T/err)"
"$INGEST" --db $T/db --config $T/bad.json $T/logs 2>$T/err
expect_eq "ingest bad config rc" 2 $?
grep -q "$T/bad.json" $T/err || fail "ingest config message: $(cat $T/err)"
"$REPORT" --db $T/db --config $T/missing.json -q --output-dir $T/x 2>/dev/null
expect_eq "report missing config rc" 2 $?

# 5. --kernel / --metric matching nothing say so; matching, they don't.
"$REPORT" --db $T/db --since 2025-11-16 --format text --kernel 'nope*' --metric 'gpu.nope' \
	>/dev/null 2>$T/err || fail "--kernel rc"
grep -q "^gpulog-report: note: no kernel in the window matches --kernel 'nope\*'$" $T/err ||
	fail "--kernel note: $(cat $T/err)"
grep -q "^gpulog-report: note: no metric in the window matches --metric 'gpu.nope'$" $T/err ||
	fail "--metric note: $(cat $T/err)"
"$REPORT" --db $T/db --since 2025-11-16 --until 2025-11-17 --format text --kernel 'k_a*' \
	--kernel 'nope' >$T/t.txt 2>$T/err || fail "--kernel k_a rc"
grep -q "kernel" $T/err && fail "a matching --kernel noted: $(cat $T/err)"
grep -q "k_alpha" $T/t.txt || fail "k_alpha not reported"

# 6. No --format: the same in a pipe and on a terminal. The dated
# directory (report.json, charts, index.html) and the text summary.
mkdir $T/pipe $T/tty
(cd $T/pipe && "$REPORT" --db ../db --until 2025-11-17 >out 2>err) || fail "pipe rc"
(cd $T/tty && script -qec "'$REPORT' --db ../db --until 2025-11-17 2>err" /dev/null |
	tr -d '\r' > out) || fail "tty rc"
for m in pipe tty; do
	for f in report.json index.html kernel_performance_timeline.png verdict.txt; do
		[ -s $T/$m/gpulog-reports/2025-11-17/$f ] || fail "$m: no $f"
	done
	grep -q '^Kernels by total time' $T/$m/out || fail "$m: no text summary"
	expect_eq "$m: last line" "The full report: gpulog-reports/2025-11-17/index.html" \
		"$(tail -n 1 $T/$m/out)"
	grep -q 'report.json' $T/$m/out && fail "$m: paths printed"
done
# the text is the text report of the same window
"$REPORT" --db $T/db --until 2025-11-17 --format text > $T/text.txt || fail "text rc"
expect_eq "pipe text = --format text" "" "$(head -n -2 $T/pipe/out | diff - $T/text.txt)"
expect_eq "tty = pipe" "" "$(diff $T/pipe/out $T/tty/out)"
# -q: the same files, nothing printed at all
mkdir $T/quiet
(cd $T/quiet && "$REPORT" -q --db ../db --until 2025-11-17 >out 2>err) || fail "-q rc"
expect_eq "-q stdout" "" "$(cat $T/quiet/out)"
# (under make check, LeakSanitizer lists the suppressions it used: not ours)
expect_eq "-q stderr" "" "$(sed '/^-*$/d; /^Suppressions used:/d; /^ *count *bytes template/d;
	/^ *[0-9][0-9]* *[0-9][0-9]* [^ ]*$/d' $T/quiet/err)"
[ -s $T/quiet/gpulog-reports/2025-11-17/index.html ] || fail "-q: no report"
# an explicit --format as before: the paths written, no text summary
(cd $T/pipe && "$REPORT" --db ../db --until 2025-11-17 --format json >paths) || fail "json rc"
expect_eq "--format json prints paths" "gpulog-reports/2025-11-17/report.json" "$(head -n 1 $T/pipe/paths)"
grep -q '^Kernels' $T/pipe/paths && fail "--format json printed the text"

# 7. The index of past reports. A config whose only rule fires a warning
# on any error: the report of the 17th (window [16th, 17th): 1 ERROR in 4
# events) is "1 warning"; the 16th's (1 INFO line) "All clear"; the 15th's (no
# data) "No data", as its page says; the 14th's directory is an older version's.
printf '{"errors": {"min_events_for_rate": 1}, "alerts": [{"rule": "error_rate_per_1000", "match": "*", "warning": 10, "critical": 1000000}]}' > $T/warn.json
mkdir $T/h
for d in 2025-11-17 2025-11-15 2025-11-16; do
	(cd $T/h && "$REPORT" -q --db ../db --config ../warn.json --until $d) || fail "history $d"
done
# a directory from an older version, with no verdict
mkdir $T/h/gpulog-reports/2025-11-14 && echo '{}' > $T/h/gpulog-reports/2025-11-14/report.json
(cd $T/h && "$REPORT" -q --db ../db --config ../warn.json --until 2025-11-13 --no-charts) ||
	fail "history 13"
H=$T/h/gpulog-reports
[ -L $H/latest ] || fail "latest is not a link"
expect_eq "latest" 2025-11-17 "$(readlink $H/latest)"
[ -s $H/latest/index.html ] || fail "latest/index.html"
rows=$(sed 's| <span class="muted">(no data)</span>| (no data)|' $H/index.html | sed -n 's|^<tr><td class="d"><a href="\([^"]*\)">\([0-9-]*\)</a></td><td class="v \([a-z]*\)">\([^<]*\)</td>.*|\2 \1 \3 \4|p')
expect_eq "index rows" "2025-11-17 2025-11-17/index.html warn 1 warning
2025-11-16 2025-11-16/index.html ok All clear
2025-11-15 2025-11-15/index.html nodata No data: nothing was logged in this window
2025-11-14 2025-11-14/ none no verdict recorded
2025-11-13 2025-11-13/ nodata No data: nothing was logged in this window" "$rows"
grep -q '<a href="latest/index.html">latest report</a>' $H/index.html || fail "latest link"
grep -q 'Latest, <a href="2025-11-17/index.html">2025-11-17</a>: 1 warning' $H/index.html ||
	fail "latest verdict"
# window, events and errors of the 16th: [11-15, 11-16), 1 event, no error
grep -q '<td class="win d">2025-11-15 &ndash; 2025-11-16</td><td class="n">1</td><td class="n">0</td>' \
	$H/index.html || fail "row of the 16th: $(grep 2025-11-16 $H/index.html)"
# each day's verdict is the one its own page leads with
for d in 2025-11-17 2025-11-16 2025-11-15; do
	own=$(sed -n 's|^<div id="status" class="status [a-z]*"[^>]*><h2>\([^<]*\).*|\1|p' $H/$d/index.html)
	grep -q "<td class=\"v [a-z]*\">$own[ <]" $H/index.html || fail "$d: page says '$own'"
done
exit 0
