# Detection decides per line (D3): a file mixing JSON lines and plain
# stdout lines, a JSON log with a 64 KiB junk line or NUL run after its
# first line, and a log that starts with a copytruncate hole of NUL bytes
# are read; their JSON lines are stored, never the whole file skipped.
. tests/cli/lib.sh

mkdir -p $T/mixed $T/junk $T/nuls $T/hole
# 500 JSON lines alternating with 500 plain lines
genlines m 0 500 | awk '{ print; printf("Epoch %d/500: loss=0.%04d step done\n", NR, 9999 - NR) }' > $T/mixed/train.log
# one JSON line, a 70,000-byte junk line (control bytes, no newline), 1,000 JSON lines
{ genlines j 0 1; awk 'BEGIN { for (i = 0; i < 70000; i++) printf("%c", 1 + (i * 131) % 9); printf("\n") }'; genlines j 1 1000; } > $T/junk/app.log
# one JSON line, a run of 70,000 NUL bytes, 1,000 JSON lines
{ genlines n 0 1; head -c 70000 /dev/zero; printf '\n'; genlines n 1 1000; } > $T/nuls/app.log
# 4,096 NUL bytes (no newline before the first line), then 300 JSON lines
{ head -c 4096 /dev/zero; genlines h 0 300; } > $T/hole/app.log
touch -d '1 hour ago' $T/*/*.log

"$INGEST" --db $T/m.db $T/mixed 2>$T/err || fail "mixed status"
grep -q "^gpulog-ingest: skipped" $T/err && fail "mixed: file skipped: $(cat $T/err)"
expect_eq "mixed: JSON lines stored" 500 "$(q $T/m.db "select count(*) from events where message like 'm %'")"
expect_eq "mixed: plain lines rejected" 500 "$(q $T/m.db "select count(*) from v_rejects where excerpt like 'Epoch %'")"

ingest $T/j.db $T/junk || fail "junk status"
check_exact $T/j.db 1001
expect_eq "junk line rejected" 2 "$(q $T/j.db 'select line from rejects')"

ingest $T/n.db $T/nuls || fail "NUL run status"
check_exact $T/n.db 1001
expect_eq "NUL line rejected" 2 "$(q $T/n.db 'select line from rejects')"

ingest $T/h.db $T/hole || fail "hole status"
# The hole and the first JSON line share line 1: the hole is a reject of
# the line, the record after it is stored with the 299 others (issue 28, D7).
check_exact $T/h.db 300
expect_eq "hole rejected" "1|NUL run of 4096 bytes before the line's text (a hole)" "$(q $T/h.db 'select line, reason from rejects')"

# A binary file is still skipped, from its first bytes.
mkdir $T/bin
awk 'BEGIN { for (i = 0; i < 20000; i++) printf("%c", 1 + (i * 37) % 200) }' > $T/bin/blob.log
"$INGEST" --db $T/b.db $T/bin 2>$T/err || fail "binary status"
grep -q "skipped .*binary data" $T/err || fail "binary: $(cat $T/err)"
exit 0
