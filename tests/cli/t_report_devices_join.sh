# The devices section joined to the telemetry (sec_devices.c): a node with
# nvidia-smi -q of one H100 (fixtures/nvsmiq-h100) and the telemetry of the
# same GPU written here by hand: nvidia-smi CSV naming its uuid, a CSV naming
# only its bus (as "0000:00:06.0", the domain cut to 4 digits), nvidia-smi
# dmon (the index only), and a CSV of another GPU (a uuid the inventory does
# not hold). Expected: which series are the H100's, and how each was joined,
# from what the files below say.
. tests/cli/lib.sh

mkdir -p $T/node
cp fixtures/nvsmiq-h100/nvidia-smi-q.txt $T/node/
U=GPU-c5aa49ed-eaf7-b848-3608-ccc3bc9ca506
cat >$T/node/gpu.csv <<CSV
timestamp, index, uuid, utilization.gpu [%], power.draw [W]
2026/11/26 17:44:30.000, 0, $U, 50 %, 100.0 W
2026/11/26 17:44:31.000, 0, $U, 60 %, 110.0 W
CSV
cat >$T/node/bus.csv <<'CSV'
timestamp, pci.bus_id, temperature.gpu
2026/11/26 17:44:30.000, 0000:00:06.0, 40
2026/11/26 17:44:31.000, 0000:00:06.0, 41
CSV
cat >$T/node/other.csv <<'CSV'
timestamp, index, uuid, utilization.gpu [%]
2026/11/26 17:44:30.000, 1, GPU-00000000-1111-2222-3333-444444444444, 10 %
CSV
cat >$T/node/dmon.txt <<'DMON'
#Date       Time        gpu    pwr  gtemp
#YYYYMMDD   HH:MM:SS    Idx      W      C
 20261126   17:44:30      0     90     38
 20261126   17:44:31      0     95     39
DMON
"$INGEST" -q --db $T/db $T/node 2>/dev/null || fail "ingest"
"$REPORT" --db $T/db --since 2026-11-26 --until 2026-11-27 --format json --no-charts \
	--output-dir $T/r >/dev/null 2>&1 || fail "report"
py() { python3 -c "import json; r=json.load(open('$T/r/report.json')); $1"; }

# the H100's series: the inventory's own samples (temperature, power, memory used, aggregate
# uncorrected ECC: the report's values that are not N/A), gpu.csv's 2, bus.csv's 1, dmon's 2
own=$(awk -F: '/^    Temperature$/ {t=1} t && /GPU Current Temp/ {n++; t=0}
	/^    GPU Power Readings/ {p=1} p && /Average Power Draw/ {n++; p=0}
	/^    FB Memory Usage/ {m=1} m && /Used/ {n++; m=0}
	/^        Aggregate$/ {a=1} a && /DRAM Uncorrectable/ {n++; a=0} END {print n}' $T/node/nvidia-smi-q.txt)
expect_eq "series of the H100" "$((own + 2 + 1 + 2))" "$(py "print(r['devices'][0]['series'])")"
expect_eq "joined by" "uuid,pci,index" "$(py "print(r['devices'][0]['series_joined_by'])")"
expect_eq "the other GPU's series is nobody's" "1" \
	"$(py "print(sum(1 for m in r['metrics'] if 'GPU-0000' in json.dumps(m.get('labels')) and 'inventory' not in m))")"
# per series in the metrics section: the source's way of naming the GPU
expect_eq "metrics: by per source" "dmon index 2|nvsmi pci 1|nvsmi uuid 2|nvsmiq uuid $own" \
	"$(py "
import collections
c = collections.Counter((m['source'], m['inventory']['by']) for m in r['metrics'] if 'inventory' in m)
print('|'.join('%s %s %d' % (s, b, n) for (s, b), n in sorted(c.items())))")"
expect_eq "inventory of a joined series" "0 $U 00000000:00:06.0" \
	"$(py "m=[m for m in r['metrics'] if m['source'] == 'dmon'][0]['inventory']; print(m['index'], m['uuid'], m['pci'])")"
exit 0
