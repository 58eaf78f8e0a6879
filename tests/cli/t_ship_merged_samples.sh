# gpulog-ship and merged sample blocks (issue 28 D11, schema 11): scrape
# files' samples merged into blocks of several files are sent once each,
# with each sample's own path and line; a block still open (it may gain
# the next run's samples) is not sent, and is sent once closed. Expected
# counts come from the files (awk).
. tests/cli/lib.sh
. tests/cli/clickhouse.sh

ch_start one
U=$CH_URL_one
mkdir -p $T/p
# scrape K T: 3 GPUs' temperature at the file's time T
scrape() {
	{ printf '# TYPE DCGM_FI_DEV_GPU_TEMP gauge\n'
	  for g in 0 1 2; do printf 'DCGM_FI_DEV_GPU_TEMP{gpu="%d"} %d\n' $g $((($1 * 7 + g) % 90)); done
	} > $T/p/m.$1.prom
	touch -d "@$2" $T/p/m.$1.prom
}
sums() { awk '/^DCGM/ { split(FILENAME, a, "/"); print a[length(a)] "|" FNR "|" $2 }' "$@" | sort; }
on_server() {
	chq one "SELECT concat(replaceOne(path, '$T/p/', ''), '|', toString(line), '|', toString(toInt64(value)))
		FROM gpulog_samples WHERE node = 'a'" | sort
}
db=$T/a.db

# 40 old scrapes (2025) in two runs: merged and closed in each
t0=1763000000
k=0
while [ $k -lt 20 ]; do scrape $k $((t0 + 15 * k)); k=$((k + 1)); done
ingest $db $T/p || fail "ingest 1"
"$SHIP" -q --db $db --to $U --node a --batch-rows 25 || fail "ship 1"
while [ $k -lt 40 ]; do scrape $k $((t0 + 15 * k)); k=$((k + 1)); done
ingest $db $T/p || fail "ingest 2"
expect_eq "blocks: 3 GPUs x 2 runs" 6 "$(q $db 'select count(*) from sample_blocks where open = 0')"
"$SHIP" -q --db $db --to $U --node a --batch-rows 25 || fail "ship 2"
sums $T/p/*.prom > $T/want
on_server > $T/got
cmp -s $T/want $T/got || fail "old scrapes on the server: $(diff $T/want $T/got | head -5)"

# 10 recent scrapes: their blocks stay open, nothing of them is sent
now=$(date +%s)
mkdir -p $T/old && mv $T/p/*.prom $T/old/
while [ $k -lt 50 ]; do scrape $k $((now - 300 + 15 * (k - 40))); k=$((k + 1)); done
ingest $db $T/p || fail "ingest 3"
expect_eq "recent: 3 open blocks" 3 "$(q $db 'select count(*) from sample_blocks where open = 1')"
"$SHIP" -q --db $db --to $U --node a || fail "ship 3"
on_server > $T/got
cmp -s $T/want $T/got || fail "an open block was sent: $(diff $T/want $T/got | head -5)"
# closed where they are, as the merge of a run an hour later does (the
# run's time is the wall clock): here by hand
q $db "update sample_blocks set open = 0 where open = 1"
"$SHIP" -q --db $db --to $U --node a || fail "ship 4"
sums $T/old/*.prom $T/p/*.prom > $T/want
on_server > $T/got
cmp -s $T/want $T/got || fail "after closing: $(diff $T/want $T/got | head -5)"
expect_eq "each sample once" "$(wc -l < $T/want)" \
	"$(chq one "SELECT uniqExact(src_id, idx) FROM gpulog_samples WHERE node = 'a'")"
exit 0
