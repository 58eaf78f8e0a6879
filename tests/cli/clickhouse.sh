# ClickHouse for the CLI tests (POSIX sh), sourced after lib.sh. Installs
# Debian's clickhouse-server and clickhouse-client when missing (as the
# Makefile's deps step installs the other packages; the test is skipped,
# saying so, only when they cannot be installed), and runs servers as this
# test's own children: a scratch config in $T, 127.0.0.1 only, free ports,
# stopped by their PID when the test ends.
#
#   ch_start NAME [XML]   starts server NAME (XML: more config, e.g.
#                         remote_servers); sets CH_URL_NAME, CH_TCP_NAME
#   ch_stop NAME          stops it (SIGTERM, then waits for the PID)
#   ch_kill NAME          SIGKILL, no wait for a clean shutdown
#   ch_restart NAME       starts it again on the same ports and data
#   chq NAME SQL          runs SQL on it, prints the TSV answer
SHIP="$PWD/$BUILD/bin/gpulog-ship"
[ -x "$SHIP" ] || fail "$SHIP not built"
CH_NAMES=

ch_install() {
	command -v clickhouse-server >/dev/null 2>&1 && command -v clickhouse-client >/dev/null 2>&1 &&
		return 0
	SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
	echo "installing Debian's clickhouse-server and clickhouse-client"
	_t0=$(date +%s)
	{ $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
		--no-install-recommends clickhouse-server clickhouse-client; } >"$T/ch-install.log" 2>&1 ||
		skip "SKIP: clickhouse-server cannot be installed (apt-get failed: $(tail -n 1 "$T/ch-install.log"))"
	echo "installed in $(( $(date +%s) - _t0 )) s"
	command -v clickhouse-server >/dev/null 2>&1 ||
		skip "SKIP: clickhouse-server cannot be installed (not found after apt-get)"
}

# A port nobody listens on now (a server that cannot bind it fails to
# start, and ch_start tries other ports).
ch_port() {
	awk -v s="$$$(date +%N)$1" 'BEGIN { srand(s % 2147483647); print 20000 + int(rand() * 40000) }'
}

ch_write_config() {
	_d=$T/ch-$1
	mkdir -p "$_d/data" "$_d/tmp" "$_d/uf" "$_d/fs"
	cat > "$_d/config.xml" <<XML
<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>$_d/server.log</log><errorlog>$_d/server.err.log</errorlog>
    <size>10M</size><count>1</count></logger>
  <http_port>$2</http_port>
  <tcp_port>$3</tcp_port>
  <listen_host>127.0.0.1</listen_host>
  <path>$_d/data/</path>
  <tmp_path>$_d/tmp/</tmp_path>
  <user_files_path>$_d/uf/</user_files_path>
  <format_schema_path>$_d/fs/</format_schema_path>
  <mark_cache_size>67108864</mark_cache_size>
  <max_concurrent_queries>50</max_concurrent_queries>
  <users>
    <default><password></password><networks><ip>127.0.0.1</ip></networks>
      <profile>default</profile><quota>default</quota></default>
  </users>
  <profiles><default><max_memory_usage>2000000000</max_memory_usage>
    <max_bytes_before_external_sort>200000000</max_bytes_before_external_sort></default></profiles>
  <quotas><default></default></quotas>
  ${4:-}
</yandex>
XML
}

# ch_launch NAME: starts the server of $T/ch-NAME/config.xml; 0 when it
# answers /ping, 1 when it died (its port taken).
ch_launch() {
	clickhouse-server --config-file="$T/ch-$1/config.xml" >"$T/ch-$1/stdout" 2>&1 &
	echo $! > "$T/ch-$1/pid"
	_tcp=$(( $(cat "$T/ch-$1/http_port") + 1 ))
	_i=0
	while [ $_i -lt 300 ]; do
		if clickhouse-client --host 127.0.0.1 --port $_tcp -q 'SELECT 1' >/dev/null 2>&1; then
			return 0
		fi
		kill -0 "$(cat "$T/ch-$1/pid")" 2>/dev/null || return 1
		sleep 0.1
		_i=$((_i + 1))
	done
	return 1
}

ch_start() {
	ch_install
	_n=0
	while [ $_n -lt 10 ]; do
		_http=$(ch_port "$1$_n")
		_tcp=$((_http + 1))
		eval "CH_TCP_$1=$_tcp"
		ch_write_config "$1" "$_http" "$_tcp" "${2:-}"
		echo "$_http" > "$T/ch-$1/http_port"
		if ch_launch "$1"; then
			eval "CH_URL_$1=http://127.0.0.1:$_http/"
			CH_NAMES="$CH_NAMES $1"
			return 0
		fi
		ch_kill "$1" 2>/dev/null
		_n=$((_n + 1))
	done
	cat "$T/ch-$1/server.err.log" "$T/ch-$1/stdout" 2>/dev/null | tail -n 20
	fail "cannot start clickhouse-server $1"
}

ch_stop() {
	_p=$(cat "$T/ch-$1/pid" 2>/dev/null) || return 0
	kill "$_p" 2>/dev/null
	wait "$_p" 2>/dev/null
	rm -f "$T/ch-$1/pid"
}

ch_kill() {
	_p=$(cat "$T/ch-$1/pid" 2>/dev/null) || return 0
	kill -9 "$_p" 2>/dev/null
	wait "$_p" 2>/dev/null
	rm -f "$T/ch-$1/pid"
}

ch_restart() {
	ch_launch "$1" || fail "cannot restart clickhouse-server $1"
}

chq() {
	eval "_tcp=\$CH_TCP_$1"
	clickhouse-client --host 127.0.0.1 --port "$_tcp" -q "$2"
}

ch_cleanup() {
	for _c in $CH_NAMES; do ch_kill "$_c"; done
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap ch_cleanup EXIT
