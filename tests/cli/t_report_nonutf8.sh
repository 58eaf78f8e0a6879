#!/bin/sh
# Issue 11 D4: a log named "caf\xe9.log" (Latin-1, not UTF-8) gives its
# component that name. Every format writes the invalid byte as U+FFFD
# (EF BF BD): report.json parses, index.html, the CSV files and the text
# report decode as strict UTF-8, and the name reads "caf\ufffd" everywhere.
# Before the fix the JSON report failed with "out of memory", exit 1.
. tests/cli/lib.sh
command -v python3 >/dev/null 2>&1 || skip "skipped: python3 absent"

mkdir -p $T/logs
name=$(printf 'caf\351')
{
	echo '{"timestamp": "2025-11-16T10:00:00Z", "level": "ERROR", "message": "disk failed"}'
	echo '{"timestamp": "2025-11-16T10:00:01Z", "level": "INFO", "message": "ok"}'
} > "$T/logs/$name.log"
"$INGEST" -q --db $T/db $T/logs || fail "ingest"
expect_eq "stored component" "636166E9" "$(q $T/db "select hex(name) from names where hex(name) like '636166%'")"

"$REPORT" --db $T/db --since 2025-11-16 --days 1 --format json --output-dir $T/j >/dev/null ||
	fail "json report"
"$REPORT" --db $T/db --since 2025-11-16 --days 1 --format csv --output-dir $T/c --no-charts \
	>/dev/null || fail "csv report"
"$REPORT" --db $T/db --since 2025-11-16 --days 1 --format text > $T/t.txt || fail "text report"

python3 - "$T" <<'PY' || fail "U+FFFD checks"
import csv, io, json, sys
t = sys.argv[1]
want = "caf\ufffd"
doc = json.load(open(t + "/j/report.json", encoding="utf-8"))
assert doc["summary"]["by_component"] == {want: 2}, doc["summary"]["by_component"]
assert doc["errors"]["by_component"] == {want: 1}, doc["errors"]["by_component"]
html = open(t + "/j/index.html", "rb").read().decode("utf-8")   # strict
assert want in html, "index.html"
rows = list(csv.reader(io.StringIO(open(t + "/c/summary.csv", "rb").read().decode("utf-8"))))
assert ["by_component", want, "2"] in rows, rows
for f in ("errors.csv", "kernels.csv", "alerts.csv"):
    open(t + "/c/" + f, "rb").read().decode("utf-8")
open(t + "/t.txt", "rb").read().decode("utf-8")
PY
grep -q '^       1  ERROR    disk failed' $T/t.txt || fail "text report"
exit 0
