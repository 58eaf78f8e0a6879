# gpulog-ingest --config: per-input start + interval_s (dmon without time
# columns, dcgmi; without the config dmon's rows are placed from the mtime), columns for a headerless nvidia-smi CSV, skip, host,
# format and timezone per input; a bad config exits 2 and writes nothing.
# Expected times are worked out by hand in the comments.
. tests/cli/lib.sh

L=$T/logs
mkdir -p $L/n1/dmon $L/n2 $L/scratch
# dmon -s pu without -o DT: no time; GPUs 0, 1 per sample
cat > $L/n1/dmon/gpu.txt <<'X'
# gpu    pwr  gtemp  mtemp     sm    mem
# Idx      W      C      C      %      %
    0     40     35      -      3      1
    1     41     36      -      5      2
    0     42     35      -      7      1
    1     43     36      -      9      2
    0     44     37      -     11      1
    1     45     38      -     13      2
X
# dcgmi dmon -e 155,203: no time either
cat > $L/n2/dcgmi.txt <<'X'
#Entity   POWER             GPUTL
ID        W
GPU 0     28.500            10
GPU 1     26.250            20
GPU 0     29.000            30
GPU 1     27.000            40
X
# --format=csv,noheader,nounits --query-gpu=timestamp,utilization.gpu,memory.used:
# two GPUs per sample, no index column
cat > $L/n2/smi.csv <<'X'
2025/09/08 14:14:37.120, 17, 11409
2025/09/08 14:14:37.121, 0, 10851
2025/09/08 14:14:38.125, 18, 11410
2025/09/08 14:14:38.127, 1, 10852
X
# a JSON log forced to be read as "pylog" would reject every line; forced
# "json" on a file named .txt, and a file skipped by the config
printf '{"timestamp": "2025-09-08T10:00:00Z", "level": "INFO", "component": "svc", "message": "hello"}\n' > $L/n2/svc.txt
printf '{"timestamp": "2025-09-08T10:00:01Z", "level": "INFO", "component": "svc", "message": "skipped"}\n' > $L/scratch/old.log

cat > $T/cfg.json <<'X'
{
  "timezone": "Europe/Berlin",
  "inputs": [
    {"path": "n1/**/*.txt", "start": "2025-09-08T14:00:00Z", "interval_s": 2, "host": "node1"},
    {"path": "dcgmi.txt", "start": "2025-09-08T16:00:00", "interval_s": 0.5},
    {"path": "n2/smi.csv", "columns": ["timestamp", "utilization.gpu", "memory.used"],
     "timezone": "America/New_York", "host": "node2"},
    {"path": "svc.txt", "format": "json"},
    {"path": "scratch/**", "skip": true}
  ]
}
X
db=$T/db
"$INGEST" --db $db --config $T/cfg.json $L 2>$T/err || fail "ingest failed: $(cat $T/err)"
grep -q "skipped '$L/scratch/old.log': skipped by the config" $T/err || fail "no skip notice: $(cat $T/err)"
grep -q "5 files: 4 new, 0 unchanged, 0 rotated, 0 grown, 1 skipped" $T/err || fail "summary: $(cat $T/err)"

s() { q $db "select time || ' ' || metric || ' ' || device || ' ' || value || ' ' || ifnull(host, '-') || ' ' || ts_estimated from v_samples where source = '$1' and metric = '$2' order by ts_us, device"; }
# dmon: sample k (GPU 0 then 1) at 14:00:00Z + 2 s * k
expect_eq "dmon power" "2025-09-08T14:00:00.000Z gpu.power_w 0 40.0 node1 1
2025-09-08T14:00:00.000Z gpu.power_w 1 41.0 node1 1
2025-09-08T14:00:02.000Z gpu.power_w 0 42.0 node1 1
2025-09-08T14:00:02.000Z gpu.power_w 1 43.0 node1 1
2025-09-08T14:00:04.000Z gpu.power_w 0 44.0 node1 1
2025-09-08T14:00:04.000Z gpu.power_w 1 45.0 node1 1" "$(s dmon gpu.power_w)"
expect_eq "dmon samples" 24 "$(q $db "select count(*) from v_samples where source = 'dmon'")"
# dcgmi: start 16:00:00 without a zone is Berlin time, the config's
# default zone: CEST (UTC+2) in September, so 14:00:00Z; then + 0.5 s
expect_eq "dcgmi utilisation" "2025-09-08T14:00:00.000Z gpu.utilization_pct 0 10.0 - 1
2025-09-08T14:00:00.000Z gpu.utilization_pct 1 20.0 - 1
2025-09-08T14:00:00.500Z gpu.utilization_pct 0 30.0 - 1
2025-09-08T14:00:00.500Z gpu.utilization_pct 1 40.0 - 1" "$(s dcgmi gpu.utilization_pct)"
# headerless CSV: New York is EDT (UTC-4) in September: 14:14:37.120 ->
# 18:14:37.120Z; rows 2 and 4 are GPU 1 of their sample
expect_eq "csv memory" "2025-09-08T18:14:37.120Z gpu.memory_used_mib 0 11409.0 node2 0
2025-09-08T18:14:37.121Z gpu.memory_used_mib 1 10851.0 node2 0
2025-09-08T18:14:38.125Z gpu.memory_used_mib 0 11410.0 node2 0
2025-09-08T18:14:38.127Z gpu.memory_used_mib 1 10852.0 node2 0" "$(s nvsmi gpu.memory_used_mib)"
expect_eq "csv samples" 8 "$(q $db "select count(*) from v_samples where source = 'nvsmi'")"
# svc.txt read as json (the entry's format), without the run's --host
expect_eq "forced json" "json|svc|hello|" \
	"$(q $db "select s.format, e.component, e.message, ifnull(e.host, '') from v_events e join events x on x.id = e.id join streams s on s.id = x.stream_id")"
expect_eq "rejects" 0 "$(q $db 'select count(*) from rejects')"
expect_eq "skipped file unread" 0 "$(q $db "select count(*) from files where path like '%scratch%'")"

# --host is the default; an entry's host wins; --timezone overrides the
# config's default zone (dcgmi's naive start now in UTC: 16:00:00Z)
db2=$T/db2
ingest $db2 --config $T/cfg.json --host cli --timezone UTC $L || fail "ingest 2"
expect_eq "hosts" "cli|dcgmi
node1|dmon
node2|nvsmi" "$(q $db2 "select distinct host, source from v_samples order by 1")"
expect_eq "dcgmi start in UTC" "2025-09-08T16:00:00.000Z" \
	"$(q $db2 "select min(time) from v_samples where source = 'dcgmi'")"
expect_eq "event host" "cli" "$(q $db2 'select host from v_events')"

# without the config, a copy of the tree: dcgmi rows have no time
# (rejected), the headerless CSV has no columns (rejected); dmon's rows are
# placed back from the file's mtime (15:00:00Z), one sample group (GPU 0
# then 1) a second, the last on the mtime: 14:59:58, 14:59:59, 15:00:00,
# marked estimated (issue 30)
db3=$T/db3
cp -r $L $T/L3
touch -d 2025-09-08T15:00:00Z $T/L3/n1/dmon/gpu.txt
ingest $db3 $T/L3
expect_eq "no config: dcgmi, nvsmi samples" 0 \
	"$(q $db3 "select count(*) from v_samples where source <> 'dmon'")"
expect_eq "no config: dmon power" "2025-09-08T14:59:58.000Z 0 40.0 1
2025-09-08T14:59:58.000Z 1 41.0 1
2025-09-08T14:59:59.000Z 0 42.0 1
2025-09-08T14:59:59.000Z 1 43.0 1
2025-09-08T15:00:00.000Z 0 44.0 1
2025-09-08T15:00:00.000Z 1 45.0 1" "$(q $db3 "select time || ' ' || device || ' ' || value || ' ' || ts_estimated
	from v_samples where source = 'dmon' and metric = 'gpu.power_w' order by ts_us, device")"
expect_eq "no config: dmon samples" 24 "$(q $db3 "select count(*) from v_samples where source = 'dmon'")"
# dcgmi's 4 rows and the CSV's 4 lines
expect_eq "no config: rejects" 8 "$(q $db3 'select count(*) from rejects')"

# the config's max_rejects and skip on a re-run: nothing new
"$INGEST" --db $db --config $T/cfg.json $L 2>$T/err2 || fail "re-run"
grep -q "0 lines stored" $T/err2 || fail "re-run stored lines: $(cat $T/err2)"

# the installed example is a valid config: its dmon entry places a dmon
# file named like its glob (14:00:00 Berlin, CEST = 12:00:00Z); its
# keep_days (90) would delete these 2025 rows: --keep-days wins
mkdir -p $T/ex/a
cp $L/n1/dmon/gpu.txt $T/ex/a/dmon-1.txt
ingest $T/ex.db --config share/gpulog-ingest.conf.json --keep-days 1000000 $T/ex || fail "example config"
expect_eq "example config" "2025-09-08T12:00:00.000Z|2025-09-08T12:00:02.000Z|node1|24" \
	"$(q $T/ex.db "select min(time), max(time), host, count(*) from v_samples group by host")"

# bad configs: exit 2, a message naming file and key, no database created
bad() {
	printf '%s' "$1" > $T/bad.json
	rm -f $T/bad.db
	"$INGEST" --db $T/bad.db --config $T/bad.json $L 2>$T/bad.err
	rc=$?
	expect_eq "exit status for $1" 2 $rc
	grep -qF "$2" $T/bad.err || fail "message for $1: $(cat $T/bad.err)"
	[ ! -e $T/bad.db ] || fail "database written despite a bad config ($1)"
}
bad '{"inputs": [{"path": "a", "interval_s": 0, "start": "2025-01-01T00:00:00Z"}]}' \
	"bad ingest config '$T/bad.json': inputs[0].interval_s: not a number of seconds above 0"
bad '{"inputs": [{"path": "a", "start": "2025-01-01T00:00:00Z"}]}' \
	"inputs[0]: \"start\" without \"interval_s\""
bad '{"inputs": [{"path": "a"}, {"path": "b", "timezone": "Mars/Olympus"}]}' \
	"inputs[1].timezone: unknown time zone 'Mars/Olympus'"
bad '{"inputs": [{"path": "a", "colums": ["x"]}]}' "inputs[0].colums: unknown key"
bad '{"inputs": [{"path": "[a"}]}' "inputs[0].path: glob '[a' is an unclosed '['"
bad '{"keep_days": 0}' "keep_days: not a whole number of at least 1"
bad '{"inputs": [' "bad ingest config '$T/bad.json' line 1"
rm -f $T/bad.json
"$INGEST" --db $T/bad.db --config $T/bad.json $L 2>$T/bad.err
expect_eq "missing config" 2 $?
grep -q "cannot open ingest config '$T/bad.json': No such file" $T/bad.err || fail "missing: $(cat $T/bad.err)"
[ ! -e $T/bad.db ] || fail "database written without its config"
exit 0
