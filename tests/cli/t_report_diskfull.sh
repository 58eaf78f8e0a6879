#!/bin/sh
# Issue 11 D6: the disk fills up while the charts are written. gpulog-report
# exits 1 naming the chart that could not be written; no cut PNG is renamed
# into place (every PNG left is whole: signature, chunks with their CRCs,
# IEND at the end of the file, checked with python3's zlib.crc32) and no
# temporary file stays behind. Needs a small tmpfs (root, mount allowed).
. tests/cli/lib.sh
command -v python3 >/dev/null 2>&1 || skip "skipped: python3 absent"
mkdir -p $T/mnt
mount -t tmpfs -o size=64k tmpfs $T/mnt 2>/dev/null ||
	skip "skipped: cannot mount a tmpfs (needs root and mount permission)"
umount $T/mnt
trap 'umount $T/mnt 2>/dev/null; rm -rf "$T"' EXIT

"$BUILD/bench/report_bench" $T/db 400 1 2025-01-02 >/dev/null || fail "report_bench"

# sizes that run out during the first, second, third ... chart
for size in 64k 120k 160k 250k 300k 400k; do
	mount -t tmpfs -o size=$size tmpfs $T/mnt || fail "mount $size"
	"$REPORT" --db $T/db --until 2025-01-02 --format json --output-dir $T/mnt/r >$T/out 2>$T/err
	rc=$?
	if [ $rc -eq 0 ]; then
		umount $T/mnt
		continue
	fi
	[ $rc -eq 1 ] || fail "$size: exit $rc"
	named=$(sed -n "s|^gpulog-report: cannot write '$T/mnt/r/\([a-z_]*\.png\)'.*|\1|p;s|^gpulog-report: PLplot wrote no image to '$T/mnt/r/\([a-z_]*\.png\)'.*|\1|p" $T/err)
	[ -n "$named" ] || fail "$size: message does not name a chart: $(cat $T/err)"
	[ ! -e "$T/mnt/r/$named" ] || fail "$size: $named renamed into place"
	ls -a $T/mnt/r | grep -q '^\.[a-z].*tmp' && fail "$size: temporary file left: $(ls -a $T/mnt/r)"
	python3 - $T/mnt/r/*.png <<'PY' || fail "$size: a cut PNG is in place"
import sys, zlib
for p in sys.argv[1:]:
    if p.endswith("*.png"):
        continue
    d = open(p, "rb").read()
    assert d[:8] == b"\x89PNG\r\n\x1a\n", p
    i = 8
    while True:
        n = int.from_bytes(d[i:i + 4], "big")
        t = d[i + 4:i + 8]
        assert i + 12 + n <= len(d), p + ": cut"
        assert zlib.crc32(d[i + 4:i + 8 + n]) == int.from_bytes(d[i + 8 + n:i + 12 + n], "big"), p
        i += 12 + n
        if t == b"IEND":
            break
    assert i == len(d), p
PY
	echo "$size: $named not written, $(ls $T/mnt/r | grep -c png) whole charts"
	umount $T/mnt
	failed=1
done
[ -n "${failed:-}" ] || fail "no size ran out of space"
exit 0
