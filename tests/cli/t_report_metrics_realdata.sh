#!/bin/sh
# The metrics section over the real nvidia-smi CSV files: samples per GPU
# in the report equal an awk count over each file.
. tests/cli/lib.sh
D=$REALDATA/nvidia-smi-csv
[ -d "$D" ] || skip "skipped: $D absent"
W="--since 2000-01-01 --until 2030-01-01"

# count METRIC DEVICE JSON: the metric's count for a device
count() {
	python3 -c "import json,sys
print(sum(m['count'] for m in json.load(open(sys.argv[1]))['metrics'] if m['metric'] == sys.argv[2] and m['device'] == sys.argv[3]))" "$3" "$1" "$2"
}

# header before every row, one GPU with an index column
f=$D/AkshayRoyal+gpu-usage/gpu_usage.csv
ingest "$T/a.db" "$f" || fail "ingest $f"
"$REPORT" --db "$T/a.db" $W --format json --output-dir "$T/a" --no-charts >/dev/null 2>&1 || fail "report a"
n=$(awk -F', ' '$1 != "timestamp" && $5 ~ /^[0-9]/ { n++ } END { print n }' "$f")
expect_eq "AkshayRoyal utilization rows" "$n" "$(count gpu.utilization_pct 0 "$T/a/report.json")"
n=$(awk -F', ' '$1 != "timestamp" && $7 ~ /^[0-9]/ { n++ } END { print n }' "$f")
expect_eq "AkshayRoyal memory.used rows" "$n" "$(count gpu.memory_used_mib 0 "$T/a/report.json")"

# a cmd.exe transcript (CRLF): 8 GPUs, no index column, a header before each
# block; GPU = the row's place in its block
f=$D/DucMinhNgo+convert-cpu_gpu-to-excel/gpu.log
ingest "$T/d.db" "$f" || fail "ingest $f"
"$REPORT" --db "$T/d.db" $W --format json --output-dir "$T/d" --no-charts >/dev/null 2>&1 || fail "report d"
for g in 0 1 2 3 4 5 6 7; do
	n=$(tr -d '\r' < "$f" | awk -F', ' -v g="$g" '/^utilization.gpu/ { i = 0; next }
		/^[0-9]+ %,/ { if (i == g) n++; i++ } END { print n + 0 }')
	[ "$n" -gt 0 ] || fail "awk found no rows for GPU $g"
	expect_eq "transcript GPU $g utilization" "$n" "$(count gpu.utilization_pct "$g" "$T/d/report.json")"
done

# units inside the values, one GPU without an index: device 0
f=$D/nazminarisbekovanazmi-ai+MDDAir/gpu_telemetry.csv
ingest "$T/m.db" "$f" || fail "ingest $f"
"$REPORT" --db "$T/m.db" $W --format json --output-dir "$T/m" --no-charts >/dev/null 2>&1 || fail "report m"
n=$(awk -F', ' 'NR > 1 && $2 ~ /^[0-9]/ { n++ } END { print n }' "$f")
expect_eq "MDDAir power rows" "$n" "$(count gpu.power_w 0 "$T/m/report.json")"
max=$(awk -F', ' 'NR > 1 && $2 ~ /^[0-9]/ { v = $2 + 0; if (v > m) m = v } END { print m }' "$f")
got=$(python3 -c "import json,sys
print([m['max'] for m in json.load(open(sys.argv[1]))['metrics'] if m['metric'] == 'gpu.power_w'][0])" "$T/m/report.json")
python3 -c "import sys; sys.exit(abs(float(sys.argv[1]) - float(sys.argv[2])) > 1e-9)" "$max" "$got" ||
	fail "MDDAir max power: awk $max, report $got"
exit 0
