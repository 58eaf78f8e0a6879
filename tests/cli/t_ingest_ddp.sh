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

# the console's dicts carry no time: placed by the progress bar glued before each (its start
# the latest "real time - elapsed" of a bar written after a timestamped line), estimated;
# computed here by bounds over the whole file (python, no state machine)
want=$(python3 - $F/job/console.log <<'PY'
import re, sys, datetime
real = re.compile(r'(?:^|\]:)(?:\[rank\d+\]:\[)?[IWEF](\d\d)(\d\d) (\d\d):(\d\d):(\d\d)(\.\d+)?|(\d\d)/(\d\d)/(\d{4}) (\d\d):(\d\d):(\d\d)')
# the training loop's bar: no description before its percentage ("Writing model shards: 0%|" is none)
bar = re.compile(r'\]:\s*\d+%\|[^|]*\| *\d+/\d+ \[(\d+):(\d+)<')
events, out = [], []
for line in open(sys.argv[1]):
    m = real.search(line.split('{')[0])
    b = bar.search(line)
    if m and not b:
        g = m.groups()
        if g[0]:
            t = datetime.datetime(2026, int(g[0]), int(g[1]), int(g[2]), int(g[3]), int(g[4])).timestamp() + float(g[5] or 0)
        else:
            t = datetime.datetime(int(g[8]), int(g[6]), int(g[7]), int(g[9]), int(g[10]), int(g[11])).timestamp()
        events.append(('real', t))
    if b:
        events.append(('bar', int(b.group(1)) * 60 + int(b.group(2))))
    if "{'loss'" in line:
        # bounds: every bar before this dict after a real line: start >= real - its elapsed
        start, last_real, last_el = None, None, None
        for k, v in events:
            if k == 'real':
                last_real = v
            elif last_real is not None:
                start = max(start if start is not None else -1e18, last_real - v)
                last_el = v
        t = max(start + last_el, last_real) if start is not None else last_real
        out.append(datetime.datetime.utcfromtimestamp(t).strftime('%H:%M:%S.%f')[:12])
print(' '.join(out))
PY
)
expect_eq "console dict times from the bars" "$want" \
	"$(q $T/db "select substr(time, 12, 12) from v_events where path like '%job/console.log' and json_extract(metadata, '\$.train') = 'hf' order by line" | tr '\n' ' ' | sed 's/ $//')"
expect_eq "console dicts estimated" 0 \
	"$(q $T/db "select count(*) from v_events where path like '%job/console.log' and json_extract(metadata, '\$.train') = 'hf' and json_extract(metadata, '\$.ts_estimated') is not 1")"
# train.* samples: each step once whatever the sources (the console's dicts, placed by the bar;
# the state files and rank 0's stdout.log give none), estimated, the console's values
steps=$(python3 -c "import json,glob; print(len({e['step'] for f in glob.glob('$F/job/out/checkpoint-*/trainer_state.json') for e in json.load(open(f))['log_history'] if 'step' in e and 'loss' in e}))")
expect_eq "train.loss samples" "$steps $steps" \
	"$(q $T/db "select count(*), sum(ts_estimated) from v_samples where metric = 'train.loss'" | tr '|' ' ')"
expect_eq "train.loss values" "$(python3 -c "import re; print('%.4f' % sum(float(x) for x in re.findall(r\"'loss': '([0-9.]+)'\", open('$F/job/console.log').read())))")" \
	"$(q $T/db "select printf('%.4f', sum(value)) from v_samples where metric = 'train.loss'")"

# from the recorded day to tomorrow: the state files' records and the nvidia-smi -q report carry
# no time and are placed at the checkout's mtime, today
"$REPORT" --db $T/db --since 2026-11-26 --until "$(date -u -d '+1 day' +%Y-%m-%d)" --format json \
	--no-charts --output-dir $T/r \
	>/dev/null 2>&1 || fail "report"
j=$T/r/report.json
py() { python3 -c "import json,sys; r=json.load(open('$j')); $1"; }
# the console's dicts (4 significant digits, no step) are the state file's steps: one run
# steps: the distinct steps of the state files (the checkpoint copies are prefixes), each once
steps=$(python3 -c "import json,glob; print(len({e['step'] for f in glob.glob('$F/job/out/checkpoint-*/trainer_state.json') for e in json.load(open(f))['log_history'] if 'step' in e}))")
expect_eq "training runs" "job/out 0 $steps hf,hf_state" \
	"$(py "print('|'.join('%s %s %d %s' % (x['run'], x['rank'], x['steps'], x['sources']) for x in r['training']['runs']))")"
want=$(python3 -c "import json; h=[e for e in json.load(open('$F/job/out/checkpoint-120/trainer_state.json'))['log_history'] if 'loss' in e]; print('%.4f' % min(e['loss'] for e in h))")
expect_eq "loss min" "$want" "$(py "print('%.4f' % r['training']['runs'][0]['loss_min'])")"
expect_eq "OOM, tracebacks" "1 1" "$(py "t=r['training']; print(t['oom'], t['tracebacks'])")"
expect_eq "devices" "$(sed -n 's/^ *GPU UUID *: //p' $F/nvidia-smi-q.txt | tr '\n' ' ' | sed 's/ $//')" \
	"$(py "print(' '.join(d['uuid'] for d in r['devices']))")"
exit 0
