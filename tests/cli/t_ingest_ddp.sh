# A real two-GPU DDP job recorded on 2 H100s (fixtures/ddp-h100x2, made by
# its ddp.py and run.sh: torchrun --tee 3, HF Trainer on a tiny GPT-2,
# NCCL_DEBUG=INFO, a caught CUDA OOM on rank 1, nvidia-smi -q, dmesg), read
# whole and reported, against counts made with grep and python.
. tests/cli/lib.sh

F=fixtures/ddp-h100x2
out=$("$INGEST" --db $T/db $F 2>&1) || fail "ingest: $out"
# only the recorder's own scripts are no logs
expect_eq "skipped" "ddp.py run.sh" \
	"$(echo "$out" | sed -n "s|.*skipped '.*/\([^/]*\)'.*|\1|p" | sort | tr '\n' ' ' | sed 's/ $//')"
expect_eq "rejects" 0 "$(q $T/db 'select count(*) from rejects')"
expect_eq "console log dicts" "$(grep -c "{'loss'" $F/job/console.log)" \
	"$(q $T/db "select count(*) from v_events where path like '%console.log' and json_extract(metadata, '\$.train') = 'hf'")"
expect_eq "NCCL records" "$(cat $F/job/nccl.*.log | grep -c ' NCCL \(INFO\|WARN\)')" \
	"$(q $T/db "select count(*) from v_events where component = 'nccl' and path like '%nccl.vm.%'")"
expect_eq "NCCL version" "$(sed -n 's/.*NCCL version \([^ ]*\).*/\1/p' $F/job/nccl.vm.831.log | head -n 1)" \
	"$(q $T/db "select distinct json_extract(metadata, '\$.nccl_version') from events where json_extract(metadata, '\$.nccl_version') is not null")"
want=$(python3 -c "import json; print(sum('step' in e for e in json.load(open('$F/job/out/checkpoint-120/trainer_state.json'))['log_history']))")
expect_eq "log_history" "$want" \
	"$(q $T/db "select count(*) from v_events where path like '%checkpoint-120/trainer_state.json'")"
expect_eq "GPUs" "$(grep -c '^GPU 0' $F/nvidia-smi-q.txt)" \
	"$(q $T/db "select count(*) from events where json_extract(metadata, '\$.inventory') = 1")"
# torchrun's per-rank files (attempt_0/<rank>/stdout.log, stderr.log): lines without a
# prefix take the rank of their folder
for r in 0 1; do
	expect_eq "records of attempt_0/$r without rank $r" 0 \
		"$(q $T/db "select count(*) from v_events where path like '%/attempt_0/$r/%' and json_extract(metadata, '\$.rank') is not $r")"
done
expect_eq "rank 1's stderr records" "$(grep -c '^[^ ]' $F/job/torchrun_logs/*/attempt_0/1/stderr.log)" \
	"$(q $T/db "select count(*) from v_events where path like '%/attempt_0/1/stderr.log' and json_extract(metadata, '\$.rank') = 1")"

"$REPORT" --db $T/db --since 2026-11-26 --until 2026-11-27 --format json --no-charts --output-dir $T/r \
	>/dev/null 2>&1 || fail "report"
j=$T/r/report.json
py() { python3 -c "import json,sys; r=json.load(open('$j')); $1"; }
# the console's dicts (4 significant digits, no step) are the state file's steps: one run
expect_eq "training runs" "job/out 0 24 hf,hf_state" \
	"$(py "print('|'.join('%s %s %d %s' % (x['run'], x['rank'], x['steps'], x['sources']) for x in r['training']['runs']))")"
want=$(python3 -c "import json; h=[e for e in json.load(open('$F/job/out/checkpoint-120/trainer_state.json'))['log_history'] if 'loss' in e]; print('%.4f' % min(e['loss'] for e in h))")
expect_eq "loss min" "$want" "$(py "print('%.4f' % r['training']['runs'][0]['loss_min'])")"
expect_eq "OOM, tracebacks" "1 1" "$(py "t=r['training']; print(t['oom'], t['tracebacks'])")"
expect_eq "devices" "$(sed -n 's/^ *GPU UUID *: //p' $F/nvidia-smi-q.txt | tr '\n' ' ' | sed 's/ $//')" \
	"$(py "print(' '.join(d['uuid'] for d in r['devices']))")"
exit 0
