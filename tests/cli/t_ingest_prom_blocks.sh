# Prometheus scrape files share sample blocks (issue 28 D11): a batch's few
# samples of a series and file are staged, and merged at the end of the run
# into blocks of many samples of its series (schema 11), each sample keeping
# its file and line. Expected counts come from the test's inputs: N files of
# S series, one sample per series a file, 15 s apart; a block holds at most
# 4,096 samples spanning at most an hour, 128 when they are of several files.
. tests/cli/lib.sh

S=12
# scrape K T: S gauges (3 fields x 4 GPUs) at the file's time T
scrape() {
	for f in GPU_TEMP POWER_USAGE SM_CLOCK; do
		printf '# TYPE DCGM_FI_DEV_%s gauge\n' $f
		for g in 0 1 2 3; do
			printf 'DCGM_FI_DEV_%s{gpu="%d",UUID="GPU-%d"} %d\n' $f $g $g $((($1 * 7 + g * 3) % 97))
		done
	done > $T/p/m.$1.prom
	touch -d "@$2" $T/p/m.$1.prom
}
blocks_of() {	# blocks of one series of $1 samples 15 s apart, each of another file
	awk -v n="$1" 'BEGIN { b = 0; for (i = 0; i < n;) { j = i + 1;
		while (j < n && j - i < 128 && (j - i) * 15 <= 3600) j++; b++; i = j }; print b }'
}
sums() { awk '/^DCGM/ { s += $2; n++ } END { printf "%d|%d\n", n, s }' $T/p/*.prom; }

# 300 old files (2025), one run: all merged, closed
mkdir -p $T/p
t0=1763000000
k=0
while [ $k -lt 300 ]; do scrape $k $((t0 + 15 * k)); k=$((k + 1)); done
db=$T/a.db
ingest $db $T/p || fail "ingest of 300 scrape files"
expect_eq "samples (count|sum)" "$(sums)" "$(q $db 'select count(*) || "|" || cast(sum(value) as int) from v_samples')"
expect_eq "blocks: S x blocks_of(300)" $((S * $(blocks_of 300))) "$(q $db 'select count(*) from sample_blocks')"
expect_eq "none open" 0 "$(q $db 'select count(*) from sample_blocks where open = 1')"
# each sample keeps its file and line: file K's gauge of field f, GPU g is
# on line 1 + (f + 1) + 5 f + g ... as the file lays them out (awk)
awk '/^DCGM/ { split(FILENAME, a, "/"); print a[length(a)] "|" FNR "|" $2 }' $T/p/*.prom | sort > $T/want
q $db "select replace(path, '$T/p/', '') || '|' || line || '|' || cast(value as int) from v_samples" | sort > $T/got
cmp -s $T/want $T/got || fail "v_samples' path, line and value differ from the files'"

# the same files in runs of 20: the closed blocks of each run's old samples
# are what they were, the counts the same
db=$T/b.db
mkdir -p $T/q
k=0
while [ $k -lt 300 ]; do
	mv $T/p/m.$k.prom $T/q/
	k=$((k + 1))
	[ $((k % 20)) = 0 ] || continue
	ingest $db $T/q || fail "ingest of files up to $k"
done
mv $T/q/*.prom $T/p/
expect_eq "runs of 20: samples" "$(sums)" "$(q $db 'select count(*) || "|" || cast(sum(value) as int) from v_samples')"
# 2025 is long before the run: each run's blocks are closed at once
expect_eq "runs of 20: blocks" $((S * 15)) "$(q $db 'select count(*) from sample_blocks')"

# recent files (now - 5 min ...): the series' open block takes the next
# run's samples: one block a series over two runs, open (10 min not past)
rm -f $T/p/*.prom
db=$T/c.db
now=$(date +%s)
k=0
while [ $k -lt 10 ]; do scrape $k $((now - 300 + 15 * k)); k=$((k + 1)); done
ingest $db $T/p || fail "ingest of 10 recent files"
expect_eq "recent: blocks after 10 files" $S "$(q $db 'select count(*) from sample_blocks')"
expect_eq "recent: open" $S "$(q $db 'select count(*) from sample_blocks where open = 1')"
while [ $k -lt 20 ]; do scrape $k $((now - 300 + 15 * k)); k=$((k + 1)); done
ingest $db $T/p || fail "ingest of 10 more recent files"
expect_eq "recent: 20 samples a series in one block" "$S|20|20" \
	"$(q $db 'select count(*) || "|" || min(n) || "|" || max(n) from sample_blocks')"
expect_eq "recent: samples" "$(sums)" "$(q $db 'select count(*) || "|" || cast(sum(value) as int) from v_samples')"
exit 0
