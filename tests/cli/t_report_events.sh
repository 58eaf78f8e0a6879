#!/bin/sh
# gpulog-report --events (issue 7 item 9): the window's events as
# events.csv (RFC 4180) and events.ndjson. The log lines are written here by
# python3, which keeps what it wrote; the CSV is parsed back with python3's
# csv module and each NDJSON line with json, and compared field by field:
# commas, quotes, newlines, unicode, formula-looking messages (= + - @ TAB
# first: a leading apostrophe in CSV, untouched in NDJSON), a mirrored
# record (left out), events outside the window (left out), the filters.
. tests/cli/lib.sh
command -v python3 >/dev/null 2>&1 || skip "skipped: python3 absent"
mkdir -p $T/logs

python3 - "$T" <<'PY' || fail "writing the logs"
import json, sys
t = sys.argv[1]
msgs = ['plain', 'a, b, and c', 'she said "hi"', 'line one\nline two', 'CR\r\nLF',
        'caf\u00e9 \u65e5\u672c \U0001F600', '=HYPERLINK("http://x","y")', '+1', '-5 degrees',
        '@SUM(A1)', '\tindented', 'x=1']
recs = []
for i, m in enumerate(msgs):
    r = {"timestamp": "2025-11-16T10:%02d:%02d.%06dZ" % (i, i, 1000 * i + 7),
         "level": "ERROR" if i % 3 == 0 else "INFO", "component": "gpu" if i % 2 else "cpu",
         "message": m}
    if i % 4 == 1:
        r["gpu_metrics"] = {"kernel_name": "k,%d \"q\"" % i, "execution_time_us": 100.25 + i}
        r["memory_usage_mb"] = 512.5 + i
    if i % 4 == 2:
        r["metadata"] = {"operation": "op,%d" % i, "note": "x \"y\"", "n": [1, 2]}
        r["execution_time_ms"] = 2.5 * i
    recs.append(r)
outside = {"timestamp": "2025-11-17T00:00:00Z", "level": "INFO", "component": "gpu", "message": "next day"}
with open(t + "/logs/app.log", "w", encoding="utf-8") as f:
    for r in recs + [outside]:
        f.write(json.dumps(r, ensure_ascii=False) + "\n")
# the first error again in another file (after a line of its own, so the
# file is not taken for a copy of app.log): a mirrored record
early = {"timestamp": "2025-11-15T23:00:00Z", "level": "INFO", "component": "gpu", "message": "day before"}
with open(t + "/logs/error.log", "w", encoding="utf-8") as f:
    f.write(json.dumps(early) + "\n" + json.dumps(recs[0], ensure_ascii=False) + "\n")
json.dump(recs, open(t + "/expected.json", "w"))
PY
"$INGEST" -q --db $T/db $T/logs || fail "ingest"
expect_eq "mirrored records" 1 "$(q $T/db 'select count(*) from events where dup_of is not null')"

"$REPORT" --db $T/db --since 2025-11-16 --days 1 --format csv --events --no-charts \
	--output-dir $T/c > $T/paths || fail "csv --events"
grep -qx "$T/c/events.csv" $T/paths || fail "events.csv path not printed: $(cat $T/paths)"
"$REPORT" --db $T/db --since 2025-11-16 --days 1 --format json --events --no-charts \
	--output-dir $T/j > $T/paths || fail "json --events"
grep -qx "$T/j/events.ndjson" $T/paths || fail "events.ndjson path not printed"
ls -a $T/c $T/j | grep -q '^\.events' && fail "temporary file left"
"$REPORT" --db $T/db --since 2025-11-16 --days 1 --format csv --events --no-charts \
	--component gpu --output-dir $T/g > /dev/null || fail "--component"
"$REPORT" --db $T/db --since 2025-11-16 --days 1 --format json --events --no-charts \
	--kernel 'k,5*' --output-dir $T/k > /dev/null || fail "--kernel"

python3 - "$T" <<'PY' || fail "comparison"
import csv, datetime, json, sys
t = sys.argv[1]
recs = json.load(open(t + "/expected.json"))
cols = ["time", "ts_us", "level", "component", "host", "kernel", "dur_us", "exec_ms",
        "mem_mb", "message", "metadata", "path", "line"]

def ts_us(s):
    d = datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
    return int(d.timestamp()) * 1000000 + d.microsecond

def expected(i, r):
    gm = r.get("gpu_metrics", {})
    return {"time": r["timestamp"], "ts_us": ts_us(r["timestamp"]), "level": r["level"],
            "component": r["component"], "host": None, "kernel": gm.get("kernel_name"),
            "dur_us": gm.get("execution_time_us"), "exec_ms": r.get("execution_time_ms"),
            "mem_mb": r.get("memory_usage_mb"), "message": r["message"],
            "metadata": r.get("metadata"), "path": t + "/logs/app.log", "line": i + 1}

def defused(s):
    return "'" + s if s and s[0] in "=+-@\t\r" else s

# CSV: RFC 4180 as python reads it; CRLF between records
raw = open(t + "/c/events.csv", "rb").read()
assert raw.endswith(b"\r\n")
rows = list(csv.reader(open(t + "/c/events.csv", newline="", encoding="utf-8")))
assert rows[0] == cols, rows[0]
assert len(rows) == 1 + len(recs), "%d rows for %d records" % (len(rows) - 1, len(recs))
for i, (r, row) in enumerate(zip(recs, rows[1:])):
    e = expected(i, r)
    got = dict(zip(cols, row))
    for c in cols:
        want = e[c]
        if c == "metadata":
            assert (json.loads(got[c]) if got[c] else None) == want, (i, c, got[c], want)
            continue
        if c in ("dur_us", "exec_ms", "mem_mb"):
            assert (float(got[c]) if got[c] else None) == want, (i, c, got[c], want)
            continue
        if want is None:
            want = ""
        if c in ("message", "kernel", "component", "path"):
            want = defused(want)
        assert got[c] == str(want), (i, c, got[c], want)

# NDJSON: one object per line, values as written, keys in column order
lines = open(t + "/j/events.ndjson", encoding="utf-8").read().split("\n")
assert lines[-1] == "" and len(lines) == len(recs) + 1, len(lines)
for i, (r, line) in enumerate(zip(recs, lines)):
    o = json.loads(line)
    assert list(o) == cols, list(o)
    e = expected(i, r)
    assert o == e, (i, o, e)

# --component gpu: the odd records; --kernel 'k,5*': record 5 only
g = list(csv.reader(open(t + "/g/events.csv", newline="", encoding="utf-8")))[1:]
assert [row[9] for row in g] == [defused(r["message"]) for r in recs if r["component"] == "gpu"]
k = [json.loads(l) for l in open(t + "/k/events.ndjson", encoding="utf-8")]
assert [o["kernel"] for o in k] == ['k,5 "q"'], k
PY

# usage: text to stdout has no directory for events.csv
"$REPORT" --db $T/db --since 2025-11-16 --days 1 --format text --events >/dev/null 2>$T/err
expect_eq "--events with text to stdout" 2 $?
grep -q 'give --output-dir' $T/err || fail "message: $(cat $T/err)"
exit 0
