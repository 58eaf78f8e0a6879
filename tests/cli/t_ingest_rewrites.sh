# Documents rewritten, read while written, cut and settled (issue 28): a
# Kineto trace, a Prometheus scrape. Every expected count is computed from
# the test's own inputs: the generator writes N kernels and N/10 (rounded
# up) annotations; a scrape file of S sample lines holds S samples.
. tests/cli/lib.sh

command -v python3 >/dev/null 2>&1 || skip "skipped: python3 absent"
GEN="python3 tests/cli/gen_kineto.py"
kernels() { q "$1" "select count(*) from events where source = 'kineto' and kernel_id is not null and dup_of is null"; }
spans() { q "$1" "select count(*) from spans"; }
samples() { q "$1" "select count(*) from v_samples"; }
old() { touch -d '10 minutes ago' "$@"; }

# --- D2: a smaller trace after a larger one was stored and deleted --------
mkdir -p $T/d2
$GEN 100 a > $T/d2/t.pt.trace.json
old $T/d2/t.pt.trace.json
ingest $T/d2.db $T/d2 || fail "D2: first ingest"
expect_eq "D2: first trace's kernels" 100 "$(kernels $T/d2.db)"
rm $T/d2/t.pt.trace.json
$GEN 50 b 1712195496000000 > $T/d2/u.pt.trace.json
old $T/d2/u.pt.trace.json
ingest $T/d2.db $T/d2 || fail "D2: second ingest"
expect_eq "D2: +50 kernels of the new trace" 150 "$(kernels $T/d2.db)"
expect_eq "D2: spans 10 + 5" 15 "$(spans $T/d2.db)"
# overwritten in place by a different, shorter trace
$GEN 30 c 1712195497000000 > $T/d2/u.pt.trace.json
old $T/d2/u.pt.trace.json
ingest $T/d2.db $T/d2 || fail "D2: third ingest"
expect_eq "D2: +30 kernels of the overwriting trace" 180 "$(kernels $T/d2.db)"

# --- D1: Prometheus scrapes saved to the same file ------------------------
# scrape V: 4 gauges, no timestamps (each at the file's modification time);
# the first two lines never change, nor does the first sample's value.
scrape() {
	printf '# HELP DCGM_FI_DEV_GPU_TEMP GPU temperature (in C).\n# TYPE DCGM_FI_DEV_GPU_TEMP gauge\n'
	for g in 0 1 2 3; do
		if [ $g = 0 ]; then v=40; else v=$(($1 + g)); fi
		printf 'DCGM_FI_DEV_GPU_TEMP{gpu="%d",UUID="GPU-%d"} %d\n' $g $g $v
	done
}
mkdir -p $T/d1
for i in 1 2 3 4; do
	scrape $((50 + i)) > $T/d1/m.prom		# curl ... > m.prom: truncated, same inode
	touch -d "@$((1763000000 + 60 * i))" $T/d1/m.prom
	ingest $T/d1.db $T/d1 || fail "D1: ingest $i"
done
expect_eq "D1: 4 rewrites of 4 samples" 16 "$(samples $T/d1.db)"
for i in 1 2 3 4; do
	scrape 70 > $T/d1/tmp.prom			# the textfile collector: temp, then rename
	touch -d "@$((1763001000 + 60 * i))" $T/d1/tmp.prom
	mv $T/d1/tmp.prom $T/d1/m.prom
	ingest $T/d1.db $T/d1 || fail "D1: renamed scrape $i"
done
expect_eq "D1: 4 identical scrapes renamed over one name" 32 "$(samples $T/d1.db)"
mkdir -p $T/d1b
for i in 1 2 3 4; do
	case $i in 3) cp $T/d1b/s1.prom $T/d1b/s3.prom ;; *) scrape $((60 + i)) > $T/d1b/s$i.prom ;; esac
	touch -d "@$((1763002000 + 60 * i))" $T/d1b/s$i.prom
done
ingest $T/d1b.db $T/d1b || fail "D1: four files, two identical"
expect_eq "D1: four files of which two identical" 16 "$(samples $T/d1b.db)"
before=$(samples $T/d1b.db)
ingest $T/d1b.db $T/d1b || fail "D1: re-run"
expect_eq "D1: a re-run stores nothing" "$before" "$(samples $T/d1b.db)"
# --- D12: a ROCm-style trace (times after baseTimeNanoseconds, written at
# its end) read half-written, then complete: every kernel at base + ts ---
mkdir -p $T/d12
BASE_NS=1735632360000000000	# 2024-12-31T08:06:00Z
$GEN 40 r 1000 --base-ns $BASE_NS > $T/d12.json
half=$(($(wc -c < $T/d12.json) / 2))
head -c $half $T/d12.json > $T/d12/t.pt.trace.json
ingest $T/d12.db $T/d12 || fail "D12: ingest of the half-written trace"
tail -c +$((half + 1)) $T/d12.json >> $T/d12/t.pt.trace.json
ingest $T/d12.db $T/d12 || fail "D12: ingest of the completed trace"
expect_eq "D12: kernels" 40 "$(kernels $T/d12.db)"
# the first kernel at base + 1005.25 µs, none before base
expect_eq "D12: no kernel before the time base" 0 \
	"$(q $T/d12.db "select count(*) from events where source = 'kineto' and ts_us < $BASE_NS / 1000")"
expect_eq "D12: first kernel" $((BASE_NS / 1000 + 1005)) \
	"$(q $T/d12.db "select min(ts_us) from events where source = 'kineto' and kernel_id is not null")"
# --- D4: a trace read while written, cut at bytes spread over it (at line
# ends, mid-line, mid-element), then completed: 30 kernels, 3 spans, no
# reject at every cut ---------------------------------------------------
$GEN 30 k > $T/d4.json
size=$(wc -c < $T/d4.json)
step=$((size / 40))
cut=7
while [ $cut -lt $size ]; do
	rm -rf $T/d4 $T/d4.db*
	mkdir -p $T/d4
	head -c $cut $T/d4.json > $T/d4/t.pt.trace.json
	ingest $T/d4.db $T/d4 || fail "D4: ingest cut at $cut"
	tail -c +$((cut + 1)) $T/d4.json >> $T/d4/t.pt.trace.json
	ingest $T/d4.db $T/d4 || fail "D4: ingest completed after $cut"
	expect_eq "D4: cut at $cut: kernels|spans|rejects" "30|3|0" \
		"$(kernels $T/d4.db)|$(spans $T/d4.db)|$(q $T/d4.db 'select count(*) from rejects')"
	cut=$((cut + step))
done
# --- D5: the writer pauses (the file settles) at a cut inside a line or an
# element, then goes on: what follows the cut is read. Kernels before and
# after their launch calls. -------------------------------------------------
for order in "" --kernel-first; do
	$GEN 30 k $order > $T/d5.json
	size=$(wc -c < $T/d5.json)
	cut=7
	while [ $cut -lt $size ]; do
		rm -rf $T/d5 $T/d5.db*
		mkdir -p $T/d5
		head -c $cut $T/d5.json > $T/d5/t.pt.trace.json
		old $T/d5/t.pt.trace.json
		ingest $T/d5.db $T/d5 || fail "D5: ingest cut at $cut"
		tail -c +$((cut + 1)) $T/d5.json >> $T/d5/t.pt.trace.json
		old $T/d5/t.pt.trace.json
		ingest $T/d5.db $T/d5 || fail "D5: ingest completed after $cut"
		expect_eq "D5 $order: settled cut at $cut: kernels|spans|rejects" "30|3|0" \
			"$(kernels $T/d5.db)|$(spans $T/d5.db)|$(q $T/d5.db 'select count(*) from rejects')"
		cut=$((cut + size / 30))
	done
done

# --- D8: an unclosed trace (no final "]}"), settled: every kernel stored,
# with or without launch calls; once it is closed, each still once --------
for opt in --no-launch --kernel-first ""; do
	rm -rf $T/d8 $T/d8.db*
	mkdir -p $T/d8
	$GEN 20 u $opt --unclosed > $T/d8/t.pt.trace.json
	old $T/d8/t.pt.trace.json
	ingest $T/d8.db $T/d8 || fail "D8: ingest"
	expect_eq "D8 $opt: kernels of an unclosed trace" 20 "$(kernels $T/d8.db)"
	ingest $T/d8.db $T/d8 || fail "D8: re-run"
	expect_eq "D8 $opt: a re-run stores nothing" "20|2" "$(kernels $T/d8.db)|$(spans $T/d8.db)"
	$GEN 20 u $opt > $T/d8/t.pt.trace.json
	old $T/d8/t.pt.trace.json
	ingest $T/d8.db $T/d8 || fail "D8: closed"
	expect_eq "D8 $opt: closed: kernels|spans" "20|2" "$(kernels $T/d8.db)|$(spans $T/d8.db)"
done
# --- D6: a metrics_history.json (json.dump, indent=2) whose writer pauses
# at a cut, the file settled, then completes it: N entries, N/4 alerts ----
python3 - $T/d6.json <<'PY'
import json, sys
m = [{"timestamp": 1718000000 + 60 * i, "component_id": "echo_core", "cpu_usage": 10.5 + i,
      "token_throughput": 100 + 3 * i} for i in range(12)]
a = [{"timestamp": 1718000000 + 60 * i + 0.25, "severity": "warning", "component": "echo_core",
      "message": "High CPU usage %d" % i, "metric": "cpu_usage", "value": 10.5 + i, "threshold": 10.0}
     for i in range(0, 12, 4)]
json.dump({"metrics": m, "alerts": a}, open(sys.argv[1], "w"), indent=2)
PY
hist() { q "$1" "select count(*) from events where dup_of is null and message like 'metrics of %'; select count(*) from events where dup_of is null and message like 'High CPU%'; select count(*) from v_samples"; }
size=$(wc -c < $T/d6.json)
cut=5
while [ $cut -lt $size ]; do
	rm -rf $T/d6 $T/d6.db*
	mkdir -p $T/d6
	head -c $cut $T/d6.json > $T/d6/metrics_history.json
	old $T/d6/metrics_history.json
	ingest $T/d6.db $T/d6 || fail "D6: ingest cut at $cut"
	tail -c +$((cut + 1)) $T/d6.json >> $T/d6/metrics_history.json
	old $T/d6/metrics_history.json
	ingest $T/d6.db $T/d6 || fail "D6: ingest completed after $cut"
	# 12 entries, alerts of 0, 4, 8; samples: cpu_usage and token_throughput per entry
	expect_eq "D6: history settled at $cut: entries, alerts, samples" "12
3
24" "$(hist $T/d6.db)"
	cut=$((cut + size / 40))
done
# --- D3: a trace rewritten in place with the same first 1,000 kernels and
# 500 more: 1,500 kernels, 150 spans and its one device event (no time),
# each once ---------------------------------------------------------------
devs() { q "$1" "select count(*) from events where source = 'kineto' and kernel_id is null and ts_us is null and dup_of is null"; }
mkdir -p $T/d3
$GEN 1000 k --device > $T/d3/t.pt.trace.json
old $T/d3/t.pt.trace.json
ingest $T/d3.db $T/d3 || fail "D3: first ingest"
expect_eq "D3: the first trace's device event" 1 "$(devs $T/d3.db)"
$GEN 1500 k --device > $T/d3.json
cat $T/d3.json > $T/d3/t.pt.trace.json
touch -d '5 minutes ago' $T/d3/t.pt.trace.json
ingest $T/d3.db $T/d3 || fail "D3: ingest of the rewritten trace"
expect_eq "D3: kernels|spans|device events" "1500|150|1" \
	"$(kernels $T/d3.db)|$(spans $T/d3.db)|$(devs $T/d3.db)"
# --- D7: copytruncate under a writer without O_APPEND: 1,000 lines stored,
# the file truncated, the writer goes on at its offset (a hole of NULs, then
# 500 lines): 1,500 stored, the hole one reject ----------------------------
mkdir -p $T/d7
genlines a 0 1000 > $T/d7/app.log
old $T/d7/app.log
ingest $T/d7.db $T/d7 || fail "D7: first ingest"
genlines b 1000 500 > $T/d7.more
python3 - $T/d7/app.log $T/d7.more <<'PY'
import os, sys
p = sys.argv[1]
size = os.path.getsize(p)
more = open(sys.argv[2], 'rb').read()
with open(p, 'r+b') as f:
    f.truncate(0)
    f.seek(size)
    f.write(more)
PY
[ "$(head -c 1 $T/d7/app.log | od -An -tx1 | tr -d ' ')" = 00 ] || fail "D7: no hole written"
old $T/d7/app.log
ingest $T/d7.db $T/d7 || fail "D7: ingest after copytruncate"
expect_eq "D7: events" 1500 "$(q $T/d7.db 'select count(*) from events')"
expect_eq "D7: distinct messages" 1500 "$(q $T/d7.db 'select count(distinct message) from events')"
expect_eq "D7: the hole" "1" "$(q $T/d7.db "select count(*) from rejects where reason like 'NUL run%'")"
# --- D13: an nsys export overwritten in place by the next session's: the
# new rows placed so that the last ends at the file's modification time ---
H='Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name'
mkdir -p $T/d13
nsys_rows() {	# $1 rows, kernel names k$2..: row i starts at 1,000,000 i ns, lasts 1,000 ns
	echo "$H"
	for i in $(seq 1 $1); do
		echo "$((1000000 * i)),1000,$i,4,1,1,128,1,1,32,0.000,0.001,,,,,NVIDIA A100 (1),1,,7,k$2_$i"
	done
}
nsys_rows 3 a > $T/d13/s_cuda_gpu_trace.csv
touch -d '2025-03-01 12:00:00 UTC' $T/d13/s_cuda_gpu_trace.csv
ingest $T/d13.db $T/d13 || fail "D13: first session"
nsys_rows 5 b > $T/d13.csv
cat $T/d13.csv > $T/d13/s_cuda_gpu_trace.csv
touch -d '2025-03-01 13:00:00 UTC' $T/d13/s_cuda_gpu_trace.csv
ingest $T/d13.db $T/d13 || fail "D13: second session"
# 2025-03-01 13:00:00 UTC = 1740834000 s; the last row (5) ends at 5,001,000
# ns: its start 5,000,000 ns is 1 µs before the end, the first row's
# (1,000,000 ns) 4,001 µs before it
expect_eq "D13: the second session's first and last start" "$((1740834000000000 - 4001))|$((1740834000000000 - 1))" \
	"$(q $T/d13.db "select min(ts_us), max(ts_us) from v_events where kernel like 'kb%'")"
expect_eq "D13: rows" "3|5" "$(q $T/d13.db "select count(*) from v_events where kernel like 'ka%'")|$(q $T/d13.db "select count(*) from v_events where kernel like 'kb%'")"
# --- D9: dmon and dcgmi without time columns, placed by the config's start
# and interval_s (no --format), with a junk line among their first lines:
# every sample stored, the junk line one reject --------------------------
mkdir -p $T/d9
{ printf '# gpu    pwr  gtemp\n# Idx      W      C\n'
  printf 'garbage \001 from a terminal\n'
  for k in 0 1 2 3 4; do printf '    0     %d     35\n    1     %d     36\n' $((40 + k)) $((50 + k)); done; } > $T/d9/dmon.txt
{ printf '#Entity   POWER   GTEMP\nID\n'
  printf 'garbage line\n'
  for k in 0 1 2; do printf 'GPU 0     %d.0    3%d\nGPU 1     %d.0    4%d\n' $((100 + k)) $k $((200 + k)) $k; done; } > $T/d9/dcgmi.txt
cat > $T/d9.json <<'X'
{"inputs": [{"path": "*.txt", "start": "2025-09-08T14:00:00Z", "interval_s": 2}]}
X
old $T/d9/*.txt
"$INGEST" -q --db $T/d9.db --config $T/d9.json $T/d9 || fail "D9: ingest"
# dmon: 5 samples x 2 GPUs x 2 fields; dcgmi: 3 x 2 x 2
expect_eq "D9: dmon|dcgmi samples" "20|12" \
	"$(q $T/d9.db "select count(*) from v_samples where source = 'dmon'")|$(q $T/d9.db "select count(*) from v_samples where source = 'dcgmi'")"
expect_eq "D9: the junk lines" 2 "$(q $T/d9.db "select count(*) from v_rejects where excerpt like 'garbage%'")"
# --- D10: a gpufl scope channel file holding only scopes: 40 scopes
# (scope_begin/scope_end pairs), 40 spans --------------------------------
mkdir -p $T/d10
python3 -c '
for i in range(40):
    t = 1765870000000000000 + i * 1000000
    for ty, ts in (("scope_begin", t), ("scope_end", t + 500000)):
        print("{\"type\":\"%s\",\"pid\":7,\"app\":\"demo\",\"name\":\"step%d\",\"tag\":\"\",\"ts_ns\":%d}" % (ty, i, ts))' \
	> $T/d10/gpufl_demo.scope.log
old $T/d10/gpufl_demo.scope.log
ingest $T/d10.db $T/d10 || fail "D10: ingest"
expect_eq "D10: spans of a scopes-only gpufl file" "40|read" \
	"$(spans $T/d10.db)|$(q $T/d10.db 'select status from files')"
# --- Low: times out of range are rejects with the reason -----------------
mkdir -p $T/low
{ for y in 0000 1900 9999 2025; do
	printf '{"timestamp": "%s-01-01T00:00:00Z", "level": "INFO", "component": "gpu", "message": "y%s"}\n' $y $y
  done; } > $T/low/app.log
printf 'timestamp, utilization.gpu [%%], memory.used [MiB]\n2026/02/31 10:00:00.000, 17, 11409\n2026/02/28 10:00:00.000, 18, 11410\n' > $T/low/smi.csv
old $T/low/*
ingest $T/low.db $T/low || fail "Low: ingest"
expect_eq "Low: years 9999 and 2025 stored" "y2025 y9999" "$(q $T/low.db "select group_concat(message, ' ') from (select message from events order by message)")"
expect_eq "Low: years 0 and 1900 rejected" 2 "$(q $T/low.db "select count(*) from rejects where reason like 'time out of range%'")"
# 2026/02/31 is no date: its row a reject; 2026/02/28's two samples stored
expect_eq "Low: 2026/02/31" "1|2" "$(q $T/low.db "select count(*) from v_rejects where excerpt like '2026/02/31%'")|$(q $T/low.db "select count(*) from v_samples where source = 'nvsmi'")"
# a Prometheus \x escape (Prometheus' own parser refuses it) and a 20-digit
# timestamp are rejects with their reasons; 2 samples of 4 lines stored
mkdir -p $T/lowp
printf '# TYPE m gauge\nm{a="x\\\\y"} 1\nm{a="p\\xq"} 2\nm 3 12345678901234567890\nm 4 1763287200000\n' > $T/lowp/m.prom
old $T/lowp/m.prom
ingest $T/lowp.db $T/lowp || fail "Low: prom"
expect_eq "Low: prom samples" '1.0|{"a":"x\\y"}
4.0|' "$(q $T/lowp.db 'select value, labels from v_samples order by value')"
expect_eq "Low: prom rejects" 'labels: an escape other than \\, \" or \n in a value
timestamp: integer milliseconds out of range' "$(q $T/lowp.db 'select reason from rejects order by line')"
# a Kineto kernel with a negative dur: the reason says so
mkdir -p $T/lowk
$GEN 3 n | sed 's/"dur": 2.5,/"dur": -2.5,/' > $T/lowk/t.pt.trace.json
old $T/lowk/t.pt.trace.json
ingest $T/lowk.db $T/lowk || fail "Low: kineto"
expect_eq "Low: negative dur" "2|GPU event: negative dur" "$(kernels $T/lowk.db)|$(q $T/lowk.db 'select reason from rejects')"
# --- gpufl: a monotonic clock written by Python's json.dumps (": "), placed
# so that the last record (61 s) falls at the modification time; a
# system_start's device readings stored; pcie_rx_bw in bytes/s / 1024 ------
mkdir -p $T/gf
cat > $T/gf/demo.system.0.log <<'X'
{"type": "init", "pid": 7, "app": "demo", "ts_ns": 1000000000}
{"type": "system_start", "pid": 7, "app": "demo", "ts_ns": 1000000000, "devices": [{"id": 0, "name": "GPU", "uuid": "GPU-1", "used_mib": 100, "total_mib": 8000, "pcie_rx_bw": 3600000000}]}
{"type": "shutdown", "pid": 7, "app": "demo", "ts_ns": 61000000000}
X
touch -d '2025-03-01 12:00:00 UTC' $T/gf/demo.system.0.log
ingest $T/gf.db $T/gf || fail "gpufl: ingest"
# 2025-03-01 12:00:00 UTC = 1740830400 s; init 60 s before; 3.6e9 / 1024 = 3515625
expect_eq "gpufl: init, shutdown" "1740830340000000|1740830400000000" \
	"$(q $T/gf.db "select group_concat(ts_us, '|') from (select ts_us from events order by ts_us)")"
expect_eq "gpufl: system_start readings" "gpu.memory_total_mib 8000.0
gpu.memory_used_mib 100.0
gpu.pcie_rx_kib_s 3515625.0" "$(q $T/gf.db "select metric || ' ' || value from v_samples where ts_us = 1740830340000000 order by metric")"
exit 0
