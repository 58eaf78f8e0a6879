# The training, gpu_health and devices sections on the sample tree's node
# (fixtures/sample-logs/node, written by fixtures/sample-logs.gen.py's
# node_job()), against the values the generator built the files from:
# rank 0 logs a step every 1.0 s and rank 1 every 1.1 s (10% slower), the
# loss of step s is round(2.5 exp(-s/60) + 0.5, 4); rank 1 runs out of
# memory once; the NCCL file has one WARN; kern.log has Xid 13 on 18:00,
# 31 and 79 on 3b:00 plus the driver's "fallen off the bus" line; nvidia-smi
# -q lists 2 GPUs, the second with 2 uncorrected (aggregate) ECC errors.
. tests/cli/lib.sh

cp -r fixtures/sample-logs $T/logs
touch -d '2025-11-16T23:00:00Z' $T/logs/node/kern.log $T/logs/node/job/nccl.node1.653.log \
	$T/logs/node/job/trainer_state.json $T/logs/node/job/checkpoint-50/trainer_state.json \
	$T/logs/node/eval/lightning_logs/version_0/metrics.csv
"$INGEST" -q --db $T/db $T/logs/node 2>/dev/null || fail "ingest"
"$REPORT" --db $T/db --until 2025-11-17 --days 7 --format json --no-charts --output-dir $T/r \
	>/dev/null 2>&1 || fail "report"
j=$T/r/report.json
py() { python3 -c "import json,sys; r=json.load(open('$j')); $1"; }

expect_eq "runs" "node/eval -1|node/job 0|node/job 1" \
	"$(py "print('|'.join('%s %s' % (x['run'], x['rank'] if x['rank'] is not None else -1) for x in r['training']['runs']))")"
expect_eq "steps" "6 10 10" "$(py "print(*[x['steps'] for x in r['training']['runs']])")"
# the console's 10 steps of rank 0 are the state file's 10 and the checkpoint's 5 again
expect_eq "rank 0 sources" "hf,hf_state" "$(py "print(r['training']['runs'][1]['sources'])")"
expect_eq "iteration p50" "1000 1100" \
	"$(py "print(*['%.0f' % x['iteration_ms_p50'] for x in r['training']['runs'][1:]])")"
expect_eq "straggler" "0.0 10.0" \
	"$(py "print(*['%.1f' % x['straggler_pct'] for x in r['training']['runs'][1:]])")"
want=$(python3 -c "import math; f=lambda s: round(2.5*math.exp(-s/60.0)+0.5, 4); print('%.4f %.4f %.2f' % (f(10), f(100), (f(100)-f(10))/f(10)*100))")
expect_eq "loss first, last, change" "$want" \
	"$(py "x=r['training']['runs'][1]; print('%.4f %.4f %.2f' % (x['loss_first'], x['loss_last'], x['loss_change_pct']))")"
expect_eq "failures" "1 1 1 0" \
	"$(py "t=r['training']; print(t['oom'], t['tracebacks'], t['nccl_warnings'], t['watchdog_timeouts'])")"

expect_eq "xid rows" "0000:3b:00 79 2 GPU has fallen off the bus True|0000:18:00 13 1 Graphics Engine Exception False|0000:3b:00 31 1 GPU memory page fault False" \
	"$(py "print('|'.join('%s %d %d %s %s' % (x['pci'], x['code'], x['count'], x['meaning'], x['critical']) for x in r['gpu_health']['xid']))")"
expect_eq "ecc of GPU 1" "2.0 1.0 SW Power Cap" \
	"$(py "g=r['gpu_health']['ecc'][1]; print(g['ecc_aggregate_uncorrected'], g['retired_pages_sbe'], g['clocks_event_reasons'])")"
expect_eq "devices" "0 NVIDIA H100 80GB HBM3 00000000:18:00.0 550.54.15|1 NVIDIA H100 80GB HBM3 00000000:3B:00.0 550.54.15" \
	"$(py "print('|'.join('%d %s %s %s' % (d['index'], d['name'], d['pci'], d['driver']) for d in r['devices']))")"
exit 0
