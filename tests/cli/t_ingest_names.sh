# File names are printed escaped (D8): a newline in a name cannot fake a
# summary line, an escape sequence never reaches the terminal.
. tests/cli/lib.sh

mkdir -p $T/logs
esc=$(printf '\033')
nl='
'
name="x${nl}gpulog-ingest: 0 files: fake${esc}[2J${esc}]0;title$(printf '\007')\\b$(printf '\302\233')31m.log"
printf '\211PNG\r\n\032\n0000' > "$T/logs/$name"
touch -d '1 hour ago' "$T/logs/$name"
"$INGEST" --db $T/db $T/logs 2>$T/err || fail "ingest status"
grep -q "$esc" $T/err && fail "an ESC byte reached stderr: $(cat -v $T/err)"
grep -q "$(printf '\007')" $T/err && fail "a BEL byte reached stderr"
grep -q "$(printf '\302\233')" $T/err && fail "a C1 CSI reached stderr"
expect_eq "lines on stderr (one notice, three summary lines)" 4 "$(wc -l < $T/err)"
expect_eq "fake summary lines" 1 "$(grep -c '^gpulog-ingest: [0-9]* files:' $T/err)"
grep -qF "x\\ngpulog-ingest: 0 files: fake\\x1b[2J\\x1b]0;title\\x07\\\\b\\xc2\\x9b31m.log" $T/err ||
	fail "the name is not shown escaped: $(cat -v $T/err)"
exit 0
