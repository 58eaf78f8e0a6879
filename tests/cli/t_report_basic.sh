#!/bin/sh
# gpulog-report end to end on a synthetic database: json, csv and text
# outputs, default dated directory, exit statuses (0, 1, 2, 3 with
# --fail-on), an empty window, a bad config (2), a file that is not a gpulog DB.
BUILD=${BUILD:-build}
R=$BUILD/bin/gpulog-report
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$BUILD/bench/report_bench" "$T/g.db" 20000 2 2025-01-02 || fail "report_bench"
# the bench's database has the page size gpulog-ingest gives a new one
mkdir "$T/logs" && echo '{"timestamp": "2025-01-01T00:00:00Z", "level": "INFO", "message": "x"}' >"$T/logs/a.log"
"$BUILD/bin/gpulog-ingest" --quiet --db "$T/i.db" "$T/logs" || fail "ingest"
[ "$(sqlite3 "$T/g.db" 'PRAGMA page_size')" = "$(sqlite3 "$T/i.db" 'PRAGMA page_size')" ] ||
	fail "report_bench page size $(sqlite3 "$T/g.db" 'PRAGMA page_size')"

# json into a directory; the path is printed
out=$("$R" --db "$T/g.db" --until 2025-01-02 --format json --output-dir "$T/j") || fail "json rc"
[ "$(echo "$out" | head -n 1)" = "$T/j/report.json" ] || fail "printed path: $out"
# then the ten charts and index.html (t_charts_*.sh check them; no finding on this data)
[ "$(echo "$out" | wc -l)" -eq 12 ] || fail "printed paths: $out"
[ "$(echo "$out" | tail -n 1)" = "$T/j/index.html" ] || fail "last path: $out"
for k in generator window summary kernels trends anomalies memory errors metrics alerts baseline; do
	grep -q "^  \"$k\": " "$T/j/report.json" || fail "json key $k"
done
grep -qi 'nan\|infinity' "$T/j/report.json" && fail "NaN in json"
# 20000 events over 2 days, the window is the second day: half of them
grep -q '"events": 10000,' "$T/j/report.json" || fail "event count"

# csv: eight files with headers, kernel names quoted (they hold commas)
"$R" --db "$T/g.db" --until 2025-01-02 --format csv --output-dir "$T/c" >/dev/null || fail "csv rc"
for f in summary kernels trends anomalies memory errors metrics alerts baseline; do
	[ -s "$T/c/$f.csv" ] || fail "$f.csv"
done
grep -q '^"kernel_00<float, 0>",' "$T/c/kernels.csv" || fail "csv quoting"

# default directory: gpulog-reports/<until date>
(cd "$T" && "$OLDPWD/$R" --db g.db --until 2025-01-02T06:00:00Z --format json >/dev/null) || fail "dated rc"
[ -f "$T/gpulog-reports/2025-01-02/report.json" ] || fail "dated directory"

# text to stdout, at most 100 columns
"$R" --db "$T/g.db" --until 2025-01-02 --format text > "$T/t.txt" || fail "text rc"
grep -q '^Kernels by total time' "$T/t.txt" || fail "text kernels"
awk '{ if (length($0) > 100) bad = 1 } END { exit bad }' "$T/t.txt" || fail "text width"

# $GPULOG_DB is the default database
GPULOG_DB=$T/g.db "$R" --until 2025-01-02 --format text >/dev/null || fail "GPULOG_DB"

# an empty window: exit 0, a note on stderr
"$R" --db "$T/g.db" --since 2020-01-01 --days 1 --format json --output-dir "$T/e" 2>"$T/err" >/dev/null ||
	fail "empty window rc"
grep -q 'no events' "$T/err" || fail "empty window note"

# --fail-on: the synthetic data leaks RMM memory (a warning by default)
"$R" --db "$T/g.db" --until 2025-01-02 --format json --output-dir "$T/f" --fail-on warning >/dev/null
[ $? -eq 3 ] || fail "--fail-on warning should exit 3"
printf '{"alerts": [{"rule": "rmm_leaked_bytes", "critical": 1e15}]}' > "$T/quiet.json"
"$R" --db "$T/g.db" --until 2025-01-02 --format json --output-dir "$T/f" --config "$T/quiet.json" \
	--fail-on warning >/dev/null || fail "no alert: exit 0"

# usage errors: 2 (t_report_cli.sh checks what they print)
"$R" --db "$T/g.db" --format yaml >/dev/null 2>&1; [ $? -eq 2 ] || fail "bad format"
"$R" --db "$T/g.db" --since tomorrow >/dev/null 2>&1; [ $? -eq 2 ] || fail "bad time"
"$R" --db "$T/g.db" --fail-on info >/dev/null 2>&1; [ $? -eq 2 ] || fail "bad fail-on"
"$R" --db "$T/g.db" --top 0 >/dev/null 2>&1; [ $? -eq 2 ] || fail "bad top"
"$R" --db "$T/g.db" --since 2030-01-01 --until 2029-01-01 >/dev/null 2>&1; [ $? -eq 2 ] || fail "since after until"

# errors: 1, with the message form of the issue; a bad config: 2, as in gpulog-ingest
"$R" --db "$T/missing.db" --format json >/dev/null 2>"$T/err"; [ $? -eq 1 ] || fail "missing db"
grep -q "^gpulog-report: cannot open '$T/missing.db': No such file or directory" "$T/err" ||
	fail "message: $(cat "$T/err")"
echo "not a database" > "$T/x.db"
"$R" --db "$T/x.db" --format json >/dev/null 2>&1; [ $? -eq 1 ] || fail "not a gpulog db"
printf '{"trends": {"p_valu": 0.1}}' > "$T/bad.json"
"$R" --db "$T/g.db" --config "$T/bad.json" --format json >/dev/null 2>"$T/err"
[ $? -eq 2 ] || fail "bad config rc"
grep -q "unknown key 'p_valu'" "$T/err" || fail "bad config message: $(cat "$T/err")"
exit 0
