-- gpulog database schema, version 12. Version 11 had no index events_warn.
-- Version 10 had no sample_blocks.open,
-- sample_blocks.origins, index sample_blocks_open and tables sample_stage and
-- sample_merge (every block was closed and of one stream). Version 9 had no table operations
-- (the operation timings were found in the events' text at report time).
-- Version 8 had the same tables as 9, its
-- rows of kinds 5 to 7 stored as kind 0 (lib/store/kinds_v8.h says which
-- they were, as the migration fills them in). Version 7 had no events.kind and no
-- table event_kinds (lib/store/kinds_v7.h says which rows it had of each
-- kind, as the migration fills them in). In version 6 the index events_ts was
-- (ts_us, rec_hash), without dup_of and packed. Version 5 had no
-- events.packed and no trigger events_packed_stale. Version 4 also had the index
-- events_kernel_ts (kernel_id, ts_us). Version 3 stored metric samples one
-- row per sample (table samples, with counters 'samples.id'). Version 2 had no samples/series, no
-- spans, no kernel-trace columns in events, no runs.pruned_before_us, no
-- paths (rows named their file through files, whose rows are reused), no
-- events.rec_hash/dup_of and no streams.parse_state; version 1 also had no
-- rejects.ts_us.
--
-- A gpulog database is an SQLite file with PRAGMA application_id = 1735420007
-- (0x67706867) and PRAGMA user_version = the schema version.
-- gpulog-ingest creates it (with PRAGMA auto_vacuum = INCREMENTAL, so that
-- --keep-days gives space back), migrates an older one, and refuses any
-- other file.
-- This file is the schema gpulog creates (it is compiled into the programs);
-- it is installed as documentation for people who query with sqlite3.
--
-- Conventions:
--   *_us     integer microseconds; ts_us is microseconds since 1970-01-01 UTC
--   *_mb     megabytes as the logs write them (memory_usage_mb, ...)
--   NULL     the log line did not carry the value
--   hashes   64-bit fingerprints stored as signed integers
--
-- Start with the views at the end (v_events, v_kernel_stats, ...).

-- Interned strings: component, kernel and host names.
CREATE TABLE names (
	id   INTEGER PRIMARY KEY,
	name TEXT NOT NULL UNIQUE
);

-- Severity levels; events.level refers to levels.id (0: none given).
CREATE TABLE levels (
	id   INTEGER PRIMARY KEY,
	name TEXT NOT NULL UNIQUE
);
INSERT INTO levels (id, name) VALUES
	(0, ''), (1, 'TRACE'), (2, 'DEBUG'), (3, 'INFO'), (4, 'WARN'), (5, 'ERROR'),
	(6, 'CRITICAL');

-- One row per gpulog-ingest run. finished_us is NULL for a run that was
-- interrupted (killed); what it committed before is complete and consistent.
CREATE TABLE runs (
	id              INTEGER PRIMARY KEY,
	started_us      INTEGER NOT NULL,
	finished_us     INTEGER,
	version         TEXT NOT NULL,
	host            TEXT,		-- --host label of the run
	files_seen      INTEGER,
	files_new       INTEGER,
	files_unchanged INTEGER,
	files_rotated   INTEGER,
	files_grown     INTEGER,
	files_skipped   INTEGER,
	files_failed    INTEGER,
	lines_stored    INTEGER,
	lines_rejected  INTEGER,
	pruned_before_us INTEGER	-- v3: --keep-days deleted the rows older than this (UTC µs)
);

-- A stream is one log's content, wherever it lives now: gpu.log, later
-- renamed gpu.log.1, later compressed to archived/gpu_20250909.log.gz is
-- one stream. Its identity is its content: the chained hash of its lines.
-- bytes/lines/hash say how far it has been stored (always a line boundary).
CREATE TABLE streams (
	id          INTEGER PRIMARY KEY,
	format      TEXT,		-- format name (see gpulog-ingest --list-formats)
	component   TEXT,		-- component taken from the first file name
	first_path  TEXT NOT NULL,	-- where the stream was first read
	bytes       INTEGER NOT NULL,	-- decompressed bytes stored
	lines       INTEGER NOT NULL,	-- lines stored
	hash        INTEGER NOT NULL,	-- chained hash of those lines
	head_bytes  INTEGER NOT NULL,	-- length of the first line...
	head_hash   INTEGER NOT NULL,	-- ...and its chained hash: the lookup key
	day_us      INTEGER,		-- time-of-day formats: UTC midnight of the current day
	last_tod_us INTEGER,		-- time-of-day formats: last time of day seen
	created_run INTEGER REFERENCES runs(id),
	updated_run INTEGER REFERENCES runs(id),
	parse_state BLOB,		-- a format's per-stream state (a CSV header's columns); v3
	lines_hashed INTEGER NOT NULL DEFAULT 0,	-- v3: 1 when stream_lines holds every line's hash
	open_end    INTEGER NOT NULL DEFAULT 0	-- v3: 0, or the stream's last record ends in a line
						-- without newline, stored once settled, at these bytes:
						-- bytes/lines/hash stay before that record, and its rows
						-- are replaced when a later run reads it continued
);
CREATE INDEX streams_head ON streams (head_hash);

-- Fingerprints along each stream (about one per MiB and one per run), to
-- recognise a rotated copy without trusting its name and to tell apart two
-- files whose first lines are the same.
CREATE TABLE checkpoints (
	stream_id INTEGER NOT NULL REFERENCES streams(id),
	bytes     INTEGER NOT NULL,
	lines     INTEGER NOT NULL,
	hash      INTEGER NOT NULL,
	PRIMARY KEY (stream_id, bytes)
) WITHOUT ROWID;

-- The hash of every line of a stream (lines_hashed = 1), 8 bytes a line
-- (native byte order), in chunks of 4,096 lines: line first_line + i has
-- the hash at bytes 8i..8i+7. A file that no longer continues its stream
-- (truncated in place and written again) is compared with them line by
-- line to find exactly where it departs; checkpoints, a MiB apart, cannot.
-- Streams stored before schema version 3 have none (lines_hashed = 0), nor
-- do Kineto traces (one document written once, ~14 lines a kernel: a
-- rewritten trace is a new stream, its stored records marked dup_of).
CREATE TABLE stream_lines (
	stream_id  INTEGER NOT NULL REFERENCES streams(id),
	first_line INTEGER NOT NULL,	-- 1 + 4096 k
	hashes     BLOB NOT NULL,
	PRIMARY KEY (stream_id, first_line)
);

-- Every path a line was ever read from. Append-only: a row is never changed
-- or reused, so a row's path_id says where it was read even after that file
-- was rotated away, deleted, or its name taken by another file (files rows
-- follow files, and are reused; paths rows are not). Schema version 3.
CREATE TABLE paths (
	id   INTEGER PRIMARY KEY,
	path TEXT NOT NULL UNIQUE	-- absolute path as it was read
);

-- Files as last seen. path is NULL once the file was renamed or removed.
CREATE TABLE files (
	id            INTEGER PRIMARY KEY,
	path          TEXT UNIQUE,	-- absolute path
	dev           INTEGER,
	ino           INTEGER,
	size          INTEGER,		-- raw (compressed) size in bytes
	mtime_ns      INTEGER,
	raw_head_hash INTEGER,		-- hash of the first 4 KiB of raw bytes
	gzip          INTEGER NOT NULL DEFAULT 0,
	stream_id     INTEGER REFERENCES streams(id),
	consumed      INTEGER NOT NULL DEFAULT 0,	-- decompressed bytes of this file already stored
	tail_hash     INTEGER,		-- plain files: hash of the 4 KiB before consumed
	status        TEXT NOT NULL,	-- read | partial | damaged | skipped | copy | empty
	note          TEXT,		-- the damage, or why the file was skipped
	last_run      INTEGER REFERENCES runs(id)
);
CREATE INDEX files_inode ON files (dev, ino);

-- Log records. One row per record; continuation lines (tracebacks) are part
-- of their record's message. line is the record's first line in its stream
-- (1-based), which is also its line in the file it was read from.
CREATE TABLE events (
	id                INTEGER PRIMARY KEY,
	ts_us             INTEGER,		-- timestamp
	level             INTEGER NOT NULL DEFAULT 0 REFERENCES levels(id),
	component_id      INTEGER REFERENCES names(id),	-- component, else from the file name
	host_id           INTEGER REFERENCES names(id),	-- --host label
	kernel_id         INTEGER REFERENCES names(id),	-- gpu_metrics.kernel_name or "Kernel X executed in"
	dur_us            REAL,		-- gpu_metrics.execution_time_us or the text timing
	exec_ms           REAL,		-- execution_time_ms
	mem_mb            REAL,		-- memory_usage_mb
	alloc_mb          REAL,		-- gpu_metrics.memory_allocated_mb
	peak_mb           REAL,		-- gpu_metrics.memory_peak_mb
	util_pct          REAL,		-- gpu_metrics.gpu_utilization_percent
	error_count       INTEGER,	-- gpu_metrics.error_count
	recovery_attempts INTEGER,	-- gpu_metrics.recovery_attempts
	anomaly           INTEGER,	-- gpu_metrics.performance_anomaly (0/1)
	message           TEXT,
	metadata          TEXT,		-- JSON object: "metadata", or fields of text formats
	stream_id         INTEGER NOT NULL REFERENCES streams(id),
	line              INTEGER NOT NULL,
	file_id           INTEGER REFERENCES files(id),	-- the file it was read from (row may be reused)
	path_id           INTEGER REFERENCES paths(id),	-- where it was read (v3; never reused)
	rec_hash          INTEGER,	-- 64-bit hash of the record (v3), see below
	dup_of            INTEGER,	-- v3: NULL for an original, else id of the first identical record
	-- Kernel-trace fields (v3; profiler traces: gpufl, Kineto, nsys; NULL
	-- for log lines and when the trace did not carry the value):
	launch_overhead_us REAL,	-- CPU time of the launch call (gpufl api_exit_ns - api_start_ns, Kineto cudaLaunchKernel dur)
	queue_us          REAL,		-- end of the launch call to GPU start, >= 0
	occupancy         REAL,		-- achieved occupancy 0..1
	device            TEXT,		-- GPU as written: "0", a uuid or a name
	stream            TEXT,		-- CUDA stream as written: "7"
	grid              TEXT,		-- grid dimensions "x,y,z"
	block             TEXT,		-- block dimensions "x,y,z"
	registers         INTEGER,	-- registers per thread
	shared_mem_bytes  INTEGER,	-- static + dynamic shared memory per block
	corr_id           INTEGER,	-- CUPTI correlation id
	scope_id          INTEGER REFERENCES names(id),	-- enclosing user scopes, outermost first: "timestep|solve"
	stack_id          INTEGER REFERENCES names(id),	-- call stack, '|'-separated
	source            TEXT,		-- the profiler that wrote it: gpufl | kineto | nsys; NULL: a log line
	-- v6: level, component_id, host_id, kernel_id, dur_us, mem_mb, anomaly,
	-- recovery_attempts, error_count, stream_id, exec_ms (and two facts of
	-- level and message), packed in one BLOB for gpulog-report, which reads
	-- one column instead of eleven. Derived from those columns, never the
	-- only copy: an UPDATE of one of them sets it NULL (the trigger below),
	-- and a report reads the columns of a row whose packed is NULL. Format:
	-- lib/store/evpack.h. Leave it out of INSERTs of your own. v10: the
	-- packing of an operation timing also carries its operations row (ms,
	-- throughput, name id), so that the report reads it from the index; a
	-- packing without it sends the report to table operations.
	packed            BLOB,
	-- v8: what the parser knew the record is (lib/record/record.h, enum
	-- gl_ev_kind): 0 a log line, 1 a profiler trace's record, 2 a monitor's
	-- alert, 3 an access line of a POST to /v1/ answered 100-399, 4 one
	-- answered 400-599; v9: 5 a trainer's step, 6 a driver's Xid, 7 a GPU
	-- of nvidia-smi -q (their metadata holds "train", "xid", "inventory").
	kind              INTEGER NOT NULL DEFAULT 0
);
CREATE TRIGGER events_packed_stale AFTER UPDATE OF level, component_id, host_id, kernel_id,
	dur_us, mem_mb, anomaly, recovery_attempts, message, error_count, stream_id, exec_ms
	ON events WHEN new.packed IS NOT NULL
BEGIN
	UPDATE events SET packed = NULL WHERE id = new.id;
END;
-- rec_hash covers ts_us, level, component, host, kernel, message, metadata
-- and the numeric fields (with the kernel-trace fields above, where the
-- record has them): everything but where the record was read (a
-- component the record does not name, taken from the file name, is left
-- out; rows stored before version 3 were hashed with their stored
-- component when the database was migrated). A
-- record identical to one already stored from another stream (the service
-- writes each GPU error to both gpu.log and error.log) is stored with
-- dup_of = the id of the first; count originals with "dup_of IS NULL".
-- Identical records within one stream are all originals. The probe at
-- ingest uses this index (ts_us first, so it also serves time windows).
-- It also holds dup_of and packed (v7): gpulog-report reads a window's
-- events from the index alone, in time order, and a row's text from the
-- table only where a report uses it.
CREATE INDEX events_ts ON events (ts_us, rec_hash, dup_of, packed);
-- The messages of the rows at WARN and above (v12), in time order: a report
-- reads a window's messages from here beside events_ts, in the same order,
-- where reading each from its row in the table took a lookup per row over
-- the whole table (10M events: 1.1M such rows, a third of the report's
-- time). Its WHERE is that of evpack's "warn" fact; other rows' messages
-- are read where a report needs one.
CREATE INDEX events_warn ON events (ts_us, message) WHERE level >= 4;
-- (Schema 5 dropped the index events_kernel_ts (kernel_id, ts_us): its
-- entry was a fifth of the cost of storing a kernel timing, and the report
-- reads kernel timings in time order through events_ts.)

-- The kinds of record events has held (v8): a kind is listed in the
-- transaction that stores its first row, and stays listed when its rows
-- are pruned. A report looks a kind up here before it reads a window for
-- it (events has no index by kind).
CREATE TABLE event_kinds (
	kind INTEGER PRIMARY KEY	-- events.kind
);

-- Operation timings (v10): the records that say an operation took a time,
-- as the ingest found them (lib/record/operation.h): "Operation layout_step
-- completed in 2.38ms", or a record with execution_time_ms and
-- metadata.operation. One row per such event (its id); a report reads a
-- window's operations from here, never from the text again. Rows go with
-- their event (pruned, replaced with an open record's). No time of its own:
-- an operations row is found by its event (a row appended per operation
-- timing, without an index, costs its ingest least).
CREATE TABLE operations (
	event_id   INTEGER PRIMARY KEY,		-- events.id
	name_id    INTEGER REFERENCES names(id),	-- metadata.operation, else the message's
						-- name; NULL: none (a report names it by
						-- the event's component)
	ms         REAL NOT NULL,		-- execution_time_ms, else the message's time
	throughput REAL				-- metadata.throughput
);

-- Timed spans (v3): closed user scopes of profiler traces (gpufl
-- scope_begin/scope_end, Kineto user_annotation / record_function ranges).
CREATE TABLE spans (
	id        INTEGER PRIMARY KEY,
	start_us  INTEGER NOT NULL,	-- UTC µs
	dur_us    REAL NOT NULL,
	name_id   INTEGER REFERENCES names(id),	-- the scope's own name: "solve"
	scope_id  INTEGER REFERENCES names(id),	-- enclosing scopes and itself, '|'-separated: "timestep|solve"
	depth     INTEGER NOT NULL,	-- 0 for an outermost scope
	device    TEXT,			-- GPU as written; NULL: not per device
	source    TEXT NOT NULL,	-- gpufl | kineto
	host_id   INTEGER REFERENCES names(id),	-- --host label
	stream_id INTEGER NOT NULL REFERENCES streams(id),
	line      INTEGER NOT NULL,	-- line that closed the span in its stream/file (1-based)
	file_id   INTEGER REFERENCES files(id),
	path_id   INTEGER REFERENCES paths(id)	-- where it was read
);
CREATE INDEX spans_start ON spans (start_us);

-- RAPIDS RMM memory events (logging_resource_adaptor CSV rows).
CREATE TABLE mem_events (
	id          INTEGER PRIMARY KEY,
	ts_us       INTEGER NOT NULL,
	thread      INTEGER,
	action      INTEGER NOT NULL,	-- 0 allocate, 1 free, 2 allocate failure
	ptr         INTEGER,		-- device pointer; 0 for "(nil)"
	size_bytes  INTEGER,
	cuda_stream INTEGER,
	host_id     INTEGER REFERENCES names(id),
	stream_id   INTEGER NOT NULL REFERENCES streams(id),
	line        INTEGER NOT NULL,
	file_id     INTEGER REFERENCES files(id),
	path_id     INTEGER REFERENCES paths(id)	-- v3: where it was read
);
CREATE INDEX mem_events_ts ON mem_events (ts_us);

-- Metric series: one per metric, device, host, source format and labels.
-- Absent device/host/labels are NULL; the unique index treats NULL as a
-- value so a series is found once.
CREATE TABLE series (
	id        INTEGER PRIMARY KEY,
	metric_id INTEGER NOT NULL REFERENCES names(id),	-- canonical name, unit in it (gpu.power_w)
	device    TEXT,			-- GPU index as text ("0"), else uuid or name
	host_id   INTEGER REFERENCES names(id),	-- --host label (or the config's host)
	source    TEXT NOT NULL,	-- format name that read it (nvidia-smi-csv, json, ...)
	labels    TEXT			-- JSON object of further labels ({"uuid": "GPU-..."})
);
CREATE UNIQUE INDEX series_key ON series
	(metric_id, ifnull(device, ''), ifnull(host_id, 0), source, ifnull(labels, ''));

-- Metric samples (schema version 4): a number a source measured at a time,
-- packed per series in blocks. A block holds up to 4096 samples of one
-- series read from one stream (one file, path and ts_estimated), in time
-- order, spanning at most one hour; data is their JSON text, one entry
-- [ts_us - t0_us, value, line - line0] per sample:
--   [[0,45,0],[1000000,47.5,8],[2000000,44,16]]
-- (a value in the fewest digits that read back as the same double;
-- infinities as 9e999). One row per block, not per sample: version 3's row
-- per sample cost most of an ingest of telemetry and of its report. The
-- view v_samples unpacks the blocks (json_each) into one row per sample;
-- a window is found by t0_us (a block starts at most an hour before the
-- first sample it holds in the window):
--   SELECT s.ts_us, s.value FROM v_samples s
--   WHERE s.ts_us BETWEEN ? AND ? AND s.metric = 'gpu.power_w' ORDER BY s.ts_us;
-- or, on a large database, with the blocks' index (10x faster on a week of
-- 8 GPUs at 1 s):
--   SELECT b.t0_us + (j.value ->> 0) AS ts_us, j.value ->> 1 AS value
--   FROM sample_blocks b JOIN json_each(b.data) j
--   WHERE b.t0_us BETWEEN ?1 - 3600000000 AND ?2 AND b.series_id IN
--     (SELECT r.id FROM series r JOIN names m ON m.id = r.metric_id
--      WHERE m.name = 'gpu.power_w')
--   AND b.t0_us + (j.value ->> 0) BETWEEN ?1 AND ?2 ORDER BY 1;
-- A sample's id in v_samples is block id * 4096 + its index in the block,
-- so (ts_us, id) is the order of a report.
--
-- Staged samples and open blocks (schema version 11). A batch's samples of
-- a series and stream fewer than 64 (a Prometheus scrape file holds one
-- sample per series) are not stored as a block of their own: they go, with
-- the batch's other such samples, into one row of sample_stage. At the end
-- of each run the staged samples that are settled (not in a stream's open
-- last record) are merged with the open block of their series into blocks
-- of up to 4096 samples (128 when they are of several streams, so that rows
-- pack several to a page), and their stage rows deleted; a merged block
-- holds samples of several streams and lists their origins:
--   origins = [[stream_id, file_id, path_id], ...]   (0: none)
-- each data entry then has a fourth member, the index of its origin:
-- [ts_us - t0_us, value, line - line0, origin] (line0 is 0 there, so the
-- third member is the line itself), and stream_id, file_id and path_id are
-- the first origin's. A merged block stays open while it is its series'
-- last, holds fewer than 64 samples and its hour has not passed, so the
-- next run's samples join it; else it is closed and never changes again.
-- After each run every open block has a larger id than every closed one:
-- gpulog-ship sends the blocks below the first open one, each once. The
-- view v_samples and gpulog-report read the staged samples too (a run under
-- way, or one killed before its end), as samples of ids below 0. Retention
-- (--keep-days) prunes blocks, not staged samples.
CREATE TABLE sample_blocks (
	id           INTEGER PRIMARY KEY,	-- order of storing
	series_id    INTEGER NOT NULL REFERENCES series(id),
	t0_us        INTEGER NOT NULL,	-- UTC µs of the first sample
	t1_us        INTEGER NOT NULL,	-- of the last (t1_us - t0_us <= 1 h)
	n            INTEGER NOT NULL,	-- samples in data (1..4096)
	ts_estimated INTEGER NOT NULL DEFAULT 0,	-- 1: times placed, not read (start + interval_s, a monotonic clock)
	stream_id    INTEGER NOT NULL REFERENCES streams(id),
	line0        INTEGER NOT NULL,	-- smallest line of its samples in their stream/file (1-based)
	line1        INTEGER NOT NULL,	-- largest
	file_id      INTEGER REFERENCES files(id),
	path_id      INTEGER REFERENCES paths(id),	-- where they were read
	data         TEXT NOT NULL,	-- JSON [[ts_us - t0_us, value, line - line0], ...], time order
	open         INTEGER NOT NULL DEFAULT 0,	-- 1: merged again at a run's end (may change)
	origins      TEXT	-- several streams' samples: JSON [[stream_id, file_id, path_id], ...]
);
CREATE INDEX sample_blocks_t0 ON sample_blocks (t0_us);
CREATE INDEX sample_blocks_open ON sample_blocks (open) WHERE open = 1;
CREATE TABLE sample_stage (
	id      INTEGER PRIMARY KEY,	-- order of storing
	n       INTEGER NOT NULL,	-- samples in data
	origins TEXT NOT NULL,	-- JSON [[stream_id, file_id, path_id], ...] (0: none)
	data    TEXT NOT NULL	-- JSON [[series_id, ts_estimated, ts_us, value, line, origin], ...]
);
-- A merge under way (at most one row): the stage rows up to stage_hi have
-- their samples of the series up to series_done in blocks already; a run
-- killed during its merge leaves it, and the next merge goes on from it.
CREATE TABLE sample_merge (
	stage_hi    INTEGER NOT NULL,
	series_done INTEGER NOT NULL
);

-- Lines that could not be parsed, and damage found in files. A reject is
-- data: the run goes on. excerpt holds the first 1 KiB of the line.
-- ts_us is the time of the last record before it in its stream (NULL when
-- none came before), so that reports can count rejects in a time window.
CREATE TABLE rejects (
	id        INTEGER PRIMARY KEY,
	run_id    INTEGER REFERENCES runs(id),
	file_id   INTEGER REFERENCES files(id),
	stream_id INTEGER REFERENCES streams(id),
	line      INTEGER,		-- line number in the stream/file (1-based)
	offset    INTEGER,		-- decompressed byte offset of the line
	reason    TEXT NOT NULL,
	length    INTEGER,		-- full length of the line in bytes
	excerpt   BLOB,
	ts_us     INTEGER,		-- schema version 2
	path_id   INTEGER REFERENCES paths(id)	-- v3: where it was read
);
CREATE INDEX rejects_ts ON rejects (ts_us);

-- Events with names resolved and an ISO 8601 time.
CREATE VIEW v_events AS
SELECT e.id,
       strftime('%Y-%m-%dT%H:%M:%fZ', e.ts_us / 1e6, 'unixepoch') AS time,
       e.ts_us, l.name AS level, c.name AS component, h.name AS host,
       k.name AS kernel, e.dur_us, e.exec_ms, e.mem_mb, e.alloc_mb, e.peak_mb,
       e.util_pct, e.error_count, e.recovery_attempts, e.anomaly,
       e.message, e.metadata, ifnull(p.path, f.path) AS path, e.line, e.dup_of,
       e.launch_overhead_us, e.queue_us, e.occupancy, e.device, e.stream, e.grid,
       e.block, e.registers, e.shared_mem_bytes, e.corr_id, sc.name AS scope,
       sk.name AS stack, e.source
FROM events e
JOIN levels l ON l.id = e.level
LEFT JOIN names c ON c.id = e.component_id
LEFT JOIN names h ON h.id = e.host_id
LEFT JOIN names k ON k.id = e.kernel_id
LEFT JOIN names sc ON sc.id = e.scope_id
LEFT JOIN names sk ON sk.id = e.stack_id
LEFT JOIN paths p ON p.id = e.path_id
LEFT JOIN files f ON f.id = e.file_id;

-- Kernel timings at a glance (all time; gpulog-report does windows).
CREATE VIEW v_kernel_stats AS
SELECT k.name AS kernel, count(*) AS count, min(e.dur_us) AS min_us,
       avg(e.dur_us) AS mean_us, max(e.dur_us) AS max_us, sum(e.dur_us) AS total_us,
       sum(e.anomaly = 1) AS flagged_anomalies
FROM events e JOIN names k ON k.id = e.kernel_id
WHERE e.dur_us IS NOT NULL
GROUP BY e.kernel_id;

-- Events per component and level.
CREATE VIEW v_levels AS
SELECT c.name AS component, l.name AS level, count(*) AS count
FROM events e JOIN levels l ON l.id = e.level
LEFT JOIN names c ON c.id = e.component_id
GROUP BY e.component_id, e.level;

-- RMM memory events, readable.
CREATE VIEW v_mem_events AS
SELECT m.id,
       strftime('%Y-%m-%dT%H:%M:%fZ', m.ts_us / 1e6, 'unixepoch') AS time,
       m.ts_us, m.thread,
       CASE m.action WHEN 0 THEN 'allocate' WHEN 1 THEN 'free' ELSE 'allocate failure' END AS action,
       printf('0x%x', m.ptr) AS ptr, m.size_bytes, printf('0x%x', m.cuda_stream) AS cuda_stream,
       ifnull(p.path, f.path) AS path, m.line
FROM mem_events m LEFT JOIN paths p ON p.id = m.path_id LEFT JOIN files f ON f.id = m.file_id;

-- Rejected lines with their file.
CREATE VIEW v_rejects AS
SELECT r.id, strftime('%Y-%m-%dT%H:%M:%fZ', r.ts_us / 1e6, 'unixepoch') AS time,
       ifnull(p.path, f.path) AS path, r.line, r.offset, r.reason, r.length,
       CAST(r.excerpt AS TEXT) AS excerpt, r.run_id
FROM rejects r LEFT JOIN paths p ON p.id = r.path_id LEFT JOIN files f ON f.id = r.file_id;

-- Samples with their series resolved and an ISO 8601 time: one row per
-- sample of sample_blocks and of sample_stage (ids from -2^62: stage row id
-- * 65536 + index - 2^62; block_id NULL).
CREATE VIEW v_samples AS
SELECT b.id * 4096 + j.key AS id,
       strftime('%Y-%m-%dT%H:%M:%fZ', (b.t0_us + (j.value ->> 0)) / 1e6, 'unixepoch') AS time,
       b.t0_us + (j.value ->> 0) AS ts_us, m.name AS metric, CAST(j.value ->> 1 AS REAL) AS value,
       r.device, h.name AS host, r.source, r.labels, b.ts_estimated, p.path,
       b.line0 + (j.value ->> 2) AS line, b.series_id, b.id AS block_id
FROM sample_blocks b
JOIN json_each(b.data) j
JOIN series r ON r.id = b.series_id
JOIN names m ON m.id = r.metric_id
LEFT JOIN names h ON h.id = r.host_id
LEFT JOIN paths p ON p.id = CASE WHEN b.origins IS NULL THEN b.path_id
	ELSE b.origins ->> ('$[' || (j.value ->> 3) || '][2]') END
UNION ALL
SELECT s.id * 65536 + j.key - 4611686018427387904,
       strftime('%Y-%m-%dT%H:%M:%fZ', (j.value ->> 2) / 1e6, 'unixepoch'),
       j.value ->> 2, m.name, CAST(j.value ->> 3 AS REAL), r.device, h.name, r.source,
       r.labels, j.value ->> 1, p.path, j.value ->> 4, r.id, NULL
FROM sample_stage s
JOIN json_each(s.data) j
JOIN series r ON r.id = j.value ->> 0
JOIN names m ON m.id = r.metric_id
LEFT JOIN names h ON h.id = r.host_id
LEFT JOIN paths p ON p.id = s.origins ->> ('$[' || (j.value ->> 5) || '][2]')
-- (not the staged samples a killed merge put in blocks already: its mark)
WHERE NOT EXISTS (SELECT 1 FROM sample_merge k WHERE s.id <= k.stage_hi
                  AND j.value ->> 0 <= k.series_done);

-- Spans with names resolved and an ISO 8601 start.
CREATE VIEW v_spans AS
SELECT s.id,
       strftime('%Y-%m-%dT%H:%M:%fZ', s.start_us / 1e6, 'unixepoch') AS time,
       s.start_us, s.dur_us, n.name AS name, sc.name AS scope, s.depth, s.device,
       s.source, h.name AS host, p.path, s.line
FROM spans s
LEFT JOIN names n ON n.id = s.name_id
LEFT JOIN names sc ON sc.id = s.scope_id
LEFT JOIN names h ON h.id = s.host_id
LEFT JOIN paths p ON p.id = s.path_id;

-- Files with what was made of them.
CREATE VIEW v_files AS
SELECT f.path, f.status, f.note, f.gzip, f.size, s.format, s.lines AS stream_lines,
       s.id AS stream_id, f.last_run
FROM files f LEFT JOIN streams s ON s.id = f.stream_id
WHERE f.path IS NOT NULL;
