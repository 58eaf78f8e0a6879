# The text reader (fmt_text.c) and trainer_state.json (fmt_trainstate.c) on
# real logs from ../shared/realdata (when present), against counts made with
# grep and python: no file with timestamped lines is skipped; every NVRM Xid
# line is one record with its code and PCI bus; Megatron iteration lines and
# DeepSpeed step= lines are train records; every log_history entry with a
# step is one train record; NCCL debug lines are nccl records.
. tests/cli/lib.sh
[ -d "$REALDATA/xid-kernel" ] || skip "no real data at $REALDATA"

out=$("$INGEST" --db $T/x.db "$REALDATA/xid-kernel" 2>&1) || fail "ingest failed: $out"
echo "$out" | grep -q "skipped '" && fail "a kernel log was skipped: $out"
expect_eq "xid kernel rejects" 0 "$(q $T/x.db 'select count(*) from rejects')"
for code in $(cat "$REALDATA"/xid-kernel/*/*.txt | grep -o 'Xid (PCI:[^)]*): [0-9]*' | sed 's/.*: //' | sort -u); do
	want=$(cat "$REALDATA"/xid-kernel/*/*.txt | grep -o 'Xid (PCI:[^)]*): [0-9]*' | grep -c ": $code\$")
	expect_eq "xid $code" "$want" \
		"$(q $T/x.db "select count(*) from events where json_extract(metadata, '\$.xid') = $code")"
done
# the buses of the Xid lines, and those of a lost GPU's "The NVIDIA GPU 0000:b3:00.0" (its
# "fallen off the bus" two lines on, NVSentinel's sample): Xid 79 on that bus
buses=$( (cat "$REALDATA"/xid-kernel/*/*.txt | grep -o 'Xid (PCI:[^)]*)' | sed 's/Xid (PCI:\(.*\))/\1/'
	cat "$REALDATA"/xid-kernel/*/*.txt | grep -A2 'NVRM: The NVIDIA GPU [0-9a-f:.]*$' |
		grep -q 'fallen off the bus' &&
		cat "$REALDATA"/xid-kernel/*/*.txt | grep -o 'NVRM: The NVIDIA GPU [0-9a-f:.]*$' |
		sed 's/.* //; s/\.[0-9]$//') | sort -u | wc -l | tr -d ' ')
expect_eq "xid buses" "$buses" \
	"$(q $T/x.db "select count(distinct json_extract(metadata, '\$.pci')) from events where json_extract(metadata, '\$.xid') is not null")"
# critical: the Xid lines of a code of the catalogue's critical set (the two 119s), and the
# lost GPU without an Xid number (NVSentinel's sample)
crit=$(cat "$REALDATA"/xid-kernel/*/*.txt | grep -o 'Xid (PCI:[^)]*): [0-9]*' | sed 's/.*: //' |
	grep -cxE '48|63|64|74|79|92|94|95|119|120|140|143')
lost=$(cat "$REALDATA"/xid-kernel/*/*.txt | grep 'fallen off the bus' | grep -vc 'Xid')
expect_eq "critical Xid records" "$((crit + lost))" \
	"$(q $T/x.db "select count(*) from v_events where level = 'CRITICAL'")"

[ -d "$REALDATA/deepspeed-megatron" ] || exit 0
out=$("$INGEST" --db $T/m.db "$REALDATA/deepspeed-megatron" 2>&1) || fail "ingest failed: $out"
iters=$(grep -c 'iteration .*lm loss:' "$REALDATA"/deepspeed-megatron/*/megatron.log.excerpt-*.txt)
expect_eq "megatron steps" "$iters" \
	"$(q $T/m.db "select count(*) from events where json_extract(metadata, '\$.train') = 'megatron'")"
expect_eq "megatron loss samples" "$iters" \
	"$(q $T/m.db "select count(*) from v_samples where metric = 'train.loss'")"
steps=$(cat "$REALDATA"/deepspeed-megatron/*/*.txt | grep -c 'step=[0-9]*, skipped=')
expect_eq "deepspeed steps" "$steps" \
	"$(q $T/m.db "select count(*) from events where json_extract(metadata, '\$.train') = 'deepspeed' and message like '%step=%'")"

[ -d "$REALDATA/hf-trainer" ] || exit 0
out=$("$INGEST" --db $T/h.db "$REALDATA/hf-trainer" 2>&1) || fail "ingest failed: $out"
echo "$out" | grep -q "skipped '" && fail "a trainer file was skipped: $out"
for f in "$REALDATA"/hf-trainer/*/trainer_state.json; do
	want=$(python3 -c 'import json,sys; print(sum("step" in e for e in json.load(open(sys.argv[1]))["log_history"]))' "$f")
	expect_eq "log_history of $f" "$want" \
		"$(q $T/h.db "select count(*) from events e join streams s on s.id = e.stream_id where s.first_path like '%/$(basename "$(dirname "$f")")/trainer_state.json' and json_extract(e.metadata, '\$.train') = 'hf_state'")"
done
dicts=$(grep -c "^{'loss'\|^{'eval_loss'" "$REALDATA"/hf-trainer/Jaong+Checkpoint-of-CPT/cmd.txt)
expect_eq "console log dicts" "$dicts" \
	"$(q $T/h.db "select count(*) from events where json_extract(metadata, '\$.train') = 'hf'")"
# the training section: each step once per run, whatever the sources (the console's dicts of
# Jaong's run are its state file's steps again): the distinct steps of each log_history
"$REPORT" --db $T/h.db --since 2000-01-01 --until 2099-01-01 --format json --no-charts \
	--output-dir $T/hr >/dev/null 2>&1 || fail "report of hf-trainer"
want=$(for f in "$REALDATA"/hf-trainer/*/trainer_state.json; do
	python3 -c 'import json,sys; print(sys.argv[2], len({e["step"] for e in json.load(open(sys.argv[1]))["log_history"] if "step" in e}))' \
		"$f" "$(basename "$(dirname "$f")")"
done | sort | tr '\n' '|')
expect_eq "steps per run" "$want" \
	"$(python3 -c "import json; r=json.load(open('$T/hr/report.json')); print(''.join('%s %d|' % (x['run'].split('/')[-1], x['steps']) for x in sorted(r['training']['runs'], key=lambda x: x['run'].split('/')[-1])))")"

if [ -d "$REALDATA/lightning" ]; then
	out=$("$INGEST" --db $T/l.db "$REALDATA/lightning" 2>&1) || fail "ingest failed: $out"
	echo "$out" | grep -q "skipped '" && fail "a metrics.csv was skipped: $out"
	for f in "$REALDATA"/lightning/*/lightning_logs/version_0/metrics.csv; do
		run=$(basename "$(dirname "$(dirname "$(dirname "$f")")")")
		expect_eq "rows of $run" "$(($(wc -l < "$f") - 1))" \
			"$(q $T/l.db "select count(*) from events where json_extract(metadata, '\$.run') like '%$run'")"
	done
	# ArcRoute: rows whose train/loss (column 4) is not empty
	f="$REALDATA/lightning/HySonLab+ArcRoute/lightning_logs/version_0/metrics.csv"
	expect_eq "ArcRoute rows with a loss" "$(awk -F, 'NR > 1 && $4 != ""' "$f" | wc -l | tr -d ' ')" \
		"$(q $T/l.db "select count(*) from events where json_extract(metadata, '\$.run') like '%ArcRoute' and json_extract(metadata, '\$.loss') is not null")"
fi

if [ -d "$REALDATA/nvidia-smi-q" ]; then
	f=$(ls "$REALDATA"/nvidia-smi-q/*/nvidia-smi-q.txt | head -n 1)
	out=$("$INGEST" --db $T/q.db "$f" 2>&1) || fail "ingest failed: $out"
	expect_eq "GPUs" "$(grep -c '^GPU [0-9A-Fa-f]' "$f")" "$(q $T/q.db "select count(*) from events where json_extract(metadata, '\$.inventory') = 1")"
	expect_eq "uuid" "$(sed -n 's/^ *GPU UUID *: //p' "$f")" "$(q $T/q.db "select json_extract(metadata, '\$.uuid') from events")"
	expect_eq "driver" "$(sed -n 's/^Driver Version *: \([^ ]*\).*/\1/p' "$f")" "$(q $T/q.db "select json_extract(metadata, '\$.driver') from events")"
	expect_eq "memory" "$(sed -n '/FB Memory Usage/,/Free/s/^ *Total *: \([0-9]*\) MiB/\1/p' "$f")" \
		"$(q $T/q.db "select json_extract(metadata, '\$.memory_total_mib') from events")"
fi

[ -d "$REALDATA/nccl-debug" ] || exit 0
out=$("$INGEST" --db $T/n.db "$REALDATA/nccl-debug" 2>&1) || fail "ingest failed: $out"
echo "$out" | grep -q "skipped '" && fail "an NCCL log was skipped: $out"
want=$(cat "$REALDATA"/nccl-debug/*/*.log "$REALDATA"/nccl-debug/*/*.txt | grep -c '[^ ]*:[0-9]*:[0-9]* \[[0-9]*\] NCCL \(INFO\|WARN\)')
expect_eq "nccl records" "$want" "$(q $T/n.db "select count(*) from v_events where component = 'nccl'")"
exit 0
