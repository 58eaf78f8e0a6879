#!/bin/sh
# gpulog-report reads metric samples as schema 4 keeps them (packed per
# series in sample_blocks) and as schema 3 does (one samples row each), and
# writes the same report from both. Hand-made telemetry (nvidia-smi CSV of
# four GPUs every 10 s for 5 hours, and a dmon -o DT file of two GPUs every
# 7 s over part of it) is ingested; python3 writes the other form of the
# same samples (rows -> blocks of at most an hour and 300 samples, ids in a
# shuffled order; or blocks -> rows with id = block id * 4096 + index);
# the JSON, CSV and text reports and the charts must be identical, over a
# window that cuts blocks at both ends and over the whole day.
. tests/cli/lib.sh

command -v python3 >/dev/null || skip "skipped: python3 absent"
mkdir -p "$T/logs"
awk 'BEGIN {
	print "timestamp, index, utilization.gpu [%], memory.used [MiB], power.draw [W], temperature.gpu"
	for (t = 0; t < 5 * 3600; t += 10)
		for (g = 0; g < 4; g++)
			printf("2025/01/01 %02d:%02d:%02d.000, %d, %d %%, %d MiB, %.2f W, %d\n",
			       int(t / 3600), int(t / 60) % 60, t % 60, g, (t / 10 + 7 * g) % 101,
			       1000 + (t * 13 + g * 977) % 30000, 60 + ((t * 7 + g * 31) % 25000) / 100,
			       30 + (t / 10 + g) % 50)
}' > "$T/logs/gpu.csv"
awk 'BEGIN {
	print "#Date       Time        gpu    pwr  gtemp     sm    mem     fb"
	print "#YYYYMMDD   HH:MM:SS    Idx      W      C      %      %     MB"
	for (t = 1800; t < 4 * 3600; t += 7)
		for (g = 0; g < 2; g++)
			printf(" 20250101   %02d:%02d:%02d   %4d   %4d   %4d   %4d   %4d   %6d\n",
			       int(t / 3600), int(t / 60) % 60, t % 60, g, 50 + t % 200, 30 + t % 40,
			       t % 101, (t * 3) % 101, (t * 11) % 40000)
}' > "$T/logs/dmon.log"
ingest "$T/db" "$T/logs" || fail "ingest"
cp "$T/db" "$T/db2"

python3 - "$T/db2" <<'EOF' || fail "convert"
import json, random, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
tabs = {r[0] for r in db.execute("select name from sqlite_master where type = 'table'")}
views = [r[0] for r in db.execute("select name from sqlite_master where type = 'view'")]
for v in views:
    db.execute("drop view %s" % v)
def num(v):
    r = repr(float(v))
    return r[:-2] if r.endswith(".0") else r
if "samples" in tabs and "sample_blocks" not in tabs:
    # rows -> blocks: per series and stream, cut at 300 samples or an hour
    rows = db.execute("select series_id, stream_id, ts_us, id, value, line from samples"
                      " order by series_id, stream_id, ts_us, id").fetchall()
    blocks, cur = [], []
    for r in rows:
        if cur and (r[:2] != cur[0][:2] or len(cur) == 300 or r[2] - cur[0][2] > 3600 * 10**6):
            blocks.append(cur)
            cur = []
        cur.append(r)
    if cur:
        blocks.append(cur)
    db.execute("create table sample_blocks (id integer primary key, series_id integer not null,"
               " t0_us integer not null, t1_us integer not null, n integer not null,"
               " ts_estimated integer not null default 0, stream_id integer not null,"
               " line0 integer not null, line1 integer not null, file_id integer,"
               " path_id integer, data text not null)")
    db.execute("create index sample_blocks_t0 on sample_blocks (t0_us)")
    ids = list(range(1, len(blocks) + 1))
    random.Random(7).shuffle(ids)
    for bid, b in zip(ids, blocks):
        t0, l0 = b[0][2], min(r[5] for r in b)
        data = "[" + ",".join("[%d,%s,%d]" % (r[2] - t0, num(r[4]), r[5] - l0) for r in b) + "]"
        db.execute("insert into sample_blocks (id, series_id, t0_us, t1_us, n, stream_id, line0,"
                   " line1, data) values (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   (bid, b[0][0], t0, b[-1][2], len(b), b[0][1], l0, max(r[5] for r in b), data))
    db.execute("drop table samples")
    db.execute("pragma user_version = 4")
    print("rows -> %d blocks" % len(blocks), file=sys.stderr)
elif "sample_blocks" in tabs:
    # blocks -> rows, each keeping its place: id = block id * 4096 + index
    db.execute("create table samples (ts_us integer not null, id integer not null,"
               " series_id integer not null, value real not null,"
               " ts_estimated integer not null default 0, stream_id integer not null,"
               " line integer not null, file_id integer, path_id integer,"
               " primary key (ts_us, id)) without rowid")
    n = 0
    for bid, sid, t0, cnt, sub, l0, data in db.execute(
            "select id, series_id, t0_us, n, stream_id, line0, data from sample_blocks").fetchall():
        d = json.loads(data)
        assert len(d) == cnt
        for i, (dt, v, dl) in enumerate(d):
            db.execute("insert into samples (ts_us, id, series_id, value, stream_id, line)"
                       " values (?, ?, ?, ?, ?, ?)", (t0 + dt, bid * 4096 + i, sid, v, sub, l0 + dl))
            n += 1
    db.execute("drop table sample_blocks")
    db.execute("pragma user_version = 3")
    print("blocks -> %d rows" % n, file=sys.stderr)
else:
    sys.exit("no samples table")
db.commit()
EOF

# 4 metrics x 4 GPUs of the CSV, 5 x 2 of dmon
expect_eq "series" 26 "$(q "$T/db" "select count(*) from series")"
for W in "--since 2025-01-01T00:40:00Z --until 2025-01-01T03:20:00Z" \
	 "--since 2025-01-01 --until 2025-01-02"; do
	for db in db db2; do
		rm -rf "$T/out.$db"
		"$REPORT" --db "$T/$db" $W --format json --output-dir "$T/out.$db" \
			>/dev/null 2>"$T/err.$db" || fail "report $db $W: $(cat "$T/err.$db")"
		"$REPORT" --db "$T/$db" $W --format csv --output-dir "$T/out.$db/csv" --no-charts \
			>/dev/null 2>"$T/err.$db" || fail "report csv $db $W: $(cat "$T/err.$db")"
		"$REPORT" --db "$T/$db" $W --format text --no-charts >"$T/out.$db/report.txt" \
			2>"$T/err.$db" || fail "report text $db $W: $(cat "$T/err.$db")"
	done
	for f in $(cd "$T/out.db" && find . -type f | sort); do
		cmp -s "$T/out.db/$f" "$T/out.db2/$f" || fail "$W: $f differs between the two schemas"
	done
	[ "$(cd "$T/out.db" && find . -type f | sort)" = "$(cd "$T/out.db2" && find . -type f | sort)" ] ||
		fail "$W: file lists"
	ls "$T/out.db" | grep -q '^gpu_telemetry.png$' || fail "$W: no gpu_telemetry.png"
	# the metrics section counted every sample of the window once: the
	# CSV's rows every 10 s x 4 GPUs x 4 metrics, dmon's every 7 s from
	# 00:30 (1800 s) to 04:00 x 2 GPUs x 5 metrics; 00:40-03:20 is
	# [2400, 12000) s: CSV 960 rows, dmon k = 86 (2402 s) .. 1457 (11999 s)
	case $W in
	*T03:20:00Z) want=$((960 * 16 + (1457 - 86 + 1) * 10)) ;;
	*) want=$((1800 * 16 + 1800 * 10)) ;;
	esac
	expect_eq "$W: samples counted" "$want" "$(python3 -c '
import json, sys
print(sum(m["count"] for m in json.load(open(sys.argv[1]))["metrics"]))' "$T/out.db/report.json")"
done
