#!/bin/sh
# summary.status and --fail-on: a window with no data is "no_data", not "ok",
# and --fail-on (at either level) exits 3 on it; a window with one quiet
# kernel line is "ok" and exits 0.
. tests/cli/lib.sh

mkdir -p $T/logs
genlines quiet 36000 3 > $T/logs/gpu.log
"$INGEST" -q --db $T/db $T/logs || fail "ingest"

run() {	# DIR DATE FAIL_ON: prints the exit status
	"$REPORT" --db $T/db --since $2 --days 1 --format json --output-dir $T/$1 \
		--no-charts --fail-on $3 >/dev/null 2>&1
	echo $?
}
status() { sed -n 's/^    "status": "\([a-z_]*\)",*$/\1/p' $T/$1/report.json | head -n 1; }

# the data is on 2025-11-16; the 15th holds nothing
expect_eq "empty window, --fail-on critical" 3 "$(run e1 2025-11-15 critical)"
expect_eq "empty window status" no_data "$(status e1)"
expect_eq "empty window, --fail-on warning" 3 "$(run e2 2025-11-15 warning)"
expect_eq "data, --fail-on critical" 0 "$(run d1 2025-11-16 critical)"
expect_eq "data status" ok "$(status d1)"
# the verdict box says the same
"$REPORT" --db $T/db --since 2025-11-15 --days 1 --output-dir $T/h1 >/dev/null 2>&1 ||
	fail "html report"
grep -q 'data-status="no_data"' $T/h1/index.html || fail "verdict box is not no_data"
grep -q 'All clear' $T/h1/index.html && fail "an empty window reads All clear"
# text: the first line of the summary block
"$REPORT" --db $T/db --since 2025-11-15 --days 1 --format text --no-charts >$T/t.txt 2>/dev/null
grep -q '^Status   no_data$' $T/t.txt || fail "text has no status line"
exit 0
