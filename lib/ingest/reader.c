/*
 * reader.c - the input stage: one file, plain or gzip, in; its decompressed
 * content out, one line at a time (struct gl_line). Inflated by ISA-L's
 * igzip (Debian libisal-dev), which streams like zlib's inflate at about 3x
 * its speed on x86-64 (tests/bench/README.md, 2026-11-23); the only user.
 *
 * Layout: compressed bytes are read in IN_CAP blocks into r->in and inflated
 * into r->buf; plain files are read straight into r->buf. Lines are found
 * with memchr and handed out as pointers into r->buf, so a line costs no
 * copy and no allocation. When the buffer runs dry the unfinished line is
 * moved to the front and the rest of the buffer refilled.
 *
 * A line longer than GL_LINE_MAX is kept cut: its first GL_LINE_MAX bytes
 * stay at the front of r->buf, the rest streams through the space behind
 * them into the hash and is dropped, so memory stays bounded.
 *
 * gzip quirks handled here, as produced by logrotate, `cat a.gz b.gz` and
 * writers killed mid-write:
 *  - several members one after the other are one content;
 *  - zero bytes after the last member (block-device or tar padding) are
 *    ignored, as gzip(1) does;
 *  - anything else after the last member, or a member cut short or corrupt,
 *    is damage: every complete line before it is returned, then GL_EFORMAT.
 */
#include "reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <isa-l/igzip_lib.h>

#include "../util/bigmem.h"
#include "../util/hash.h"

#define IN_CAP ((size_t)256 << 10)
/* What open() reads to see the magic: small, so a caller that only wants the first line pays little. */
#define OPEN_READ ((size_t)16 << 10)
/* The longest next line hashed ahead of its turn (reader_emit). */
#define AHEAD_MAX ((size_t)64 << 10)

/* Room for one whole GL_LINE_MAX line (plus "\r\n") and 1 MiB to refill. */
#define BUF_CAP ((size_t)GL_LINE_MAX + 2 + ((size_t)1 << 20))

/* The first inflate of a file fills this much, each next one twice as much
 * up to the whole buffer: the first lines of a run reach the writer after
 * 64 KiB inflated instead of 2 MiB (~5 ms at the start of every run). */
#define FILL_FIRST ((size_t)64 << 10)

/*
 * The buffers of the last reader closed, for the next one opened: malloc
 * gave a file's 2 MiB back to the system at close often enough that the
 * next file's inflate faulted it in again (~1,000 page faults of the
 * parsing thread on the bench set, each a trip through the hypervisor in
 * a VM). Any thread may take them; a pointer here is still reachable, so
 * no leak checker reports the pair kept at exit. The content buffer is on
 * huge pages (bigmem.h): one fault for its first 2 MiB.
 */
static _Atomic(unsigned char *) spare_in;
static _Atomic(char *) spare_buf;

struct gl_reader {
	int fd;
	int gzip;		/* 1: content is inflated from r->in */
	int no_check;		/* gl_reader_no_check: a wrong CRC-32 or length is not damage */
	struct inflate_state zs; /* igzip's state; next_in/avail_in as zlib's */
	unsigned char *in;	/* compressed input block (plain: the first block only) */
	size_t in_len;		/* plain: bytes of the first block in r->in */
	size_t in_pos;		/* plain: bytes of the first block already moved to r->buf */
	char *buf;		/* decompressed content */
	size_t fill_max;	/* gzip: the most the next inflate adds (FILL_FIRST..) */
	size_t start;		/* first byte of the next line */
	size_t end;		/* end of valid content in buf */
	size_t scan;		/* buf[start..scan) is known to hold no '\n' */
	uint64_t off;		/* content offset of buf[start] */
	/* the next line's hash, computed with this one's (gl_hash64_pair):
	 * valid for the line at content offset ahead_off of ahead_n bytes;
	 * ahead_n 0: none */
	uint64_t ahead_off, ahead_hash;
	size_t ahead_n;
	uint64_t raw_read;	/* bytes read from the file */
	int file_eof;		/* read(2) returned 0 */
	int member_done;	/* gzip: inflate reached the end of a member */
	int member_start;	/* gzip: the next input byte starts a member's header */
	int zeros_seen;		/* gzip: zero padding seen after a member */
	int content_end;	/* no more content will be added to buf */
	int pending;		/* code to return once the buffered lines are out */
	int keep_partial;	/* 1: the content before pending is whole (trailing garbage) */
	int finished;		/* the end or an error was returned: next returns 0 */
	struct gl_err perr;	/* what pending is about */
	int long_active;	/* a line longer than GL_LINE_MAX is being read */
	uint64_t long_len;	/* its bytes so far */
	uint64_t long_off;	/* its content offset */
	struct gl_hash long_hash;
	char path[];
};

static int reader_read(struct gl_reader *r, void *p, size_t n, size_t *got,
		       struct gl_err *err)
{
	ssize_t k;

	do
		k = read(r->fd, p, n);
	while (k < 0 && errno == EINTR);
	if (k < 0)
		return gl_err_set(err, GL_EIO, r->path, 0, strerror(errno), "cannot read");
	*got = (size_t)k;
	r->raw_read += (uint64_t)k;
	if (k == 0)
		r->file_eof = 1;
	return GL_OK;
}

/* Records damage to report after the lines before it: cause from igzip or us. */
static void reader_damage(struct gl_reader *r, const char *cause, uint64_t raw_off,
			  int keep_partial)
{
	gl_err_set(&r->perr, GL_EFORMAT, r->path, raw_off, cause, "damaged gzip");
	r->pending = GL_EFORMAT;
	r->keep_partial = keep_partial;
	r->content_end = 1;
}

/* Compressed offset of the next byte inflate would read. */
static uint64_t reader_zpos(const struct gl_reader *r)
{
	return r->raw_read - r->zs.avail_in;
}

/* Makes sure zs holds at least one input byte unless the file has ended. */
static int reader_zfeed(struct gl_reader *r)
{
	size_t got = 0;
	int rc;

	if (r->zs.avail_in > 0 || r->file_eof)
		return GL_OK;
	rc = reader_read(r, r->in, IN_CAP, &got, &r->perr);
	r->zs.next_in = r->in;
	r->zs.avail_in = (uint32_t)got;
	return rc;
}

/* Starts a member: igzip reads its gzip header, inflates, checks the trailer. */
static void reader_zstart(struct gl_reader *r)
{
	uint8_t *next_in = r->zs.next_in;
	uint32_t avail_in = r->zs.avail_in;

	isal_inflate_reset(&r->zs);
	r->zs.crc_flag = ISAL_GZIP;
	r->zs.next_in = next_in;
	r->zs.avail_in = avail_in;
	r->member_start = 1;
}

/*
 * igzip 2.30 misreads a header with a header CRC (FHCRC, RFC 1952 2.3.1)
 * that arrives in more than one piece: it reports the CRC wrong. So when a
 * member's flags say FHCRC (or are not in yet), what is left of r->in moves
 * to its front and the rest of it is read: a header shorter than IN_CAP is
 * then whole. gzip(1) never writes FHCRC; the move costs one copy per member.
 */
static int reader_zhead(struct gl_reader *r)
{
	size_t got = 0;
	int rc = GL_OK;

	r->member_start = 0;
	if (r->file_eof || (r->zs.avail_in >= 4 && !(r->zs.next_in[3] & 0x02)))
		return GL_OK;
	memmove(r->in, r->zs.next_in, r->zs.avail_in);
	r->zs.next_in = r->in;
	while (r->zs.avail_in < IN_CAP && !r->file_eof && rc == GL_OK) {
		rc = reader_read(r, r->in + r->zs.avail_in, IN_CAP - r->zs.avail_in, &got,
				 &r->perr);
		r->zs.avail_in += (uint32_t)got;
	}
	return rc;
}

/*
 * Why igzip stopped, in zlib's words (the messages users and tests know). A
 * wrong trailer is told apart by reading its 8 bytes (CRC-32, then length
 * mod 2^32, little-endian), which igzip has just consumed.
 */
static const char *reader_zcause(struct gl_reader *r, int zrc)
{
	unsigned char t[8];
	uint64_t end = reader_zpos(r);

	switch (zrc) {
	case ISAL_INVALID_BLOCK:
		return "invalid block type";
	case ISAL_INVALID_SYMBOL:
		return "invalid code";
	case ISAL_INVALID_LOOKBACK:
		return "invalid distance too far back";
	case ISAL_INVALID_WRAPPER:
		return "incorrect header check";
	case ISAL_UNSUPPORTED_METHOD:
		return "unknown compression method";
	case ISAL_INCORRECT_CHECKSUM:
		if (r->zs.block_state != ISAL_BLOCK_FINISH)
			return "header crc mismatch";
		if (end >= 8 && pread(r->fd, t, 8, (off_t)(end - 8)) == 8 &&
		    ((uint32_t)t[0] | (uint32_t)t[1] << 8 | (uint32_t)t[2] << 16 |
		     (uint32_t)t[3] << 24) == r->zs.crc)
			return "incorrect length check";
		return "incorrect data check";
	default:
		return "invalid compressed data";
	}
}

/*
 * After a member's end: the next member, zero padding, or garbage. Returns
 * 1 when a new member starts, 0 when the content is over (r->content_end
 * set, maybe with pending damage), or a negative code on a read error.
 */
static int reader_next_member(struct gl_reader *r)
{
	for (;;) {
		int rc = reader_zfeed(r);

		if (rc != GL_OK)
			return rc;
		if (r->zs.avail_in == 0) {
			r->content_end = 1;
			return 0;
		}
		while (r->zs.avail_in > 0 && *r->zs.next_in == 0) {
			r->zs.next_in++;
			r->zs.avail_in--;
			r->zeros_seen = 1;
		}
		if (r->zs.avail_in == 0)
			continue;
		if (r->zeros_seen || *r->zs.next_in != 0x1f)
			break;
		if (r->zs.avail_in == 1 && !r->file_eof) {
			/* The magic is split across two blocks: move the 1f to the front. */
			size_t got = 0;

			r->in[0] = 0x1f;
			rc = reader_read(r, r->in + 1, IN_CAP - 1, &got, &r->perr);
			if (rc != GL_OK)
				return rc;
			r->zs.next_in = r->in;
			r->zs.avail_in = (uint32_t)(1 + got);
		}
		if (r->zs.avail_in < 2 || r->zs.next_in[1] != 0x8b)
			break;
		reader_zstart(r);
		r->member_done = 0;
		return 1;
	}
	reader_damage(r, "trailing garbage after gzip data", reader_zpos(r), 1);
	return 0;
}

/* Inflates into buf[end..BUF_CAP) until fill_max bytes are added, the
 * buffer is full or the content ends. */
static void reader_fill_gzip(struct gl_reader *r)
{
	size_t room = BUF_CAP - r->end;

	if (room > r->fill_max)
		room = r->fill_max;
	r->fill_max = r->fill_max < BUF_CAP / 2 ? r->fill_max * 2 : BUF_CAP;
	r->zs.next_out = (uint8_t *)r->buf + r->end;
	r->zs.avail_out = (uint32_t)room;
	while (r->zs.avail_out > 0 && !r->content_end) {
		int zrc;

		if (r->member_done) {
			int rc = reader_next_member(r);

			if (rc < 0) {
				r->pending = rc;
				r->content_end = 1;
			}
			if (rc <= 0)
				break;
		}
		if (reader_zfeed(r) != GL_OK) {
			r->pending = GL_EIO;
			r->content_end = 1;
			break;
		}
		if (r->zs.avail_in == 0) {
			/* Sample: a .gz copied while logrotate was still compressing it. */
			reader_damage(r, "unexpected end of file", reader_zpos(r), 0);
			break;
		}
		if (r->member_start && reader_zhead(r) != GL_OK) {
			r->pending = GL_EIO;
			r->content_end = 1;
			break;
		}
		zrc = isal_inflate(&r->zs);
		/* The trailer's check failed: the content is whole (not the header's). */
		if (zrc == ISAL_INCORRECT_CHECKSUM && r->no_check &&
		    r->zs.block_state == ISAL_BLOCK_FINISH)
			zrc = ISAL_DECOMP_OK;
		if (zrc < 0) {
			reader_damage(r, reader_zcause(r, zrc), reader_zpos(r), 0);
		} else if (r->zs.block_state == ISAL_BLOCK_FINISH) {
			r->member_done = 1;
			r->zeros_seen = 0;
		}
	}
	r->end += room - r->zs.avail_out;
}

/* Reads plain bytes into buf[end..BUF_CAP): first what open() read, then the file. */
static void reader_fill_plain(struct gl_reader *r)
{
	size_t room = BUF_CAP - r->end, got = 0;

	if (r->in_pos < r->in_len) {
		got = r->in_len - r->in_pos;
		if (got > room)
			got = room;
		memcpy(r->buf + r->end, r->in + r->in_pos, got);
		r->in_pos += got;
		r->end += got;
		return;
	}
	if (reader_read(r, r->buf + r->end, room, &got, &r->perr) != GL_OK) {
		r->pending = GL_EIO;
		r->content_end = 1;
		return;
	}
	r->end += got;
	if (got == 0)
		r->content_end = 1;
}

/* Moves the unfinished line to the front of buf and adds content behind it. */
static void reader_refill(struct gl_reader *r)
{
	/* A cut line keeps its start at the front: only the space behind it is refilled. */
	if (r->start > 0 && !r->long_active) {
		size_t n = r->end - r->start;

		memmove(r->buf, r->buf + r->start, n);
		r->scan -= r->start;
		r->end = n;
		r->start = 0;
	}
	if (r->gzip)
		reader_fill_gzip(r);
	else
		reader_fill_plain(r);
}

/* Hands out buf[start..start+n) (n counts the '\n' when terminated) as a line. */
static void reader_emit(struct gl_reader *r, struct gl_line *line, size_t n, int terminated)
{
	size_t len = terminated ? n - 1 : n;

	line->p = r->buf + r->start;
	line->full_len = n;
	line->offset = r->off;
	if (r->ahead_n == n && r->ahead_off == r->off) {
		line->hash = r->ahead_hash;
		r->ahead_n = 0;
	} else {
		/* this line and the next whole one in buf, hashed side by side */
		const char *next = line->p + n, *nl = NULL;

		if (terminated && r->start + n < r->end)
			nl = memchr(next, '\n', r->end - (r->start + n));
		if (nl && (size_t)(nl - next) < AHEAD_MAX) {
			r->ahead_n = (size_t)(nl - next) + 1;
			r->ahead_off = r->off + n;
			gl_hash64_pair(line->p, n, next, r->ahead_n, 0, &line->hash, &r->ahead_hash);
		} else {
			r->ahead_n = 0;
			line->hash = gl_hash64(line->p, n, 0);
		}
	}
	line->terminated = terminated;
	/* Sample: `{"level": "INFO", ...}\r\n` from a Windows host. */
	if (len > 0 && line->p[len - 1] == '\r')
		len--;
	line->truncated = len > GL_LINE_MAX;
	line->len = line->truncated ? GL_LINE_MAX : len;
	r->start += n;
	/* the next line's '\n' is known: the next call finds it at once */
	r->scan = r->ahead_n ? r->start + r->ahead_n - 1 : r->start;
	r->off += n;
}

/*
 * Starts cutting the line at buf[start..end), which holds no '\n' and is
 * longer than any line kept whole: its first GL_LINE_MAX bytes stay at the
 * front of buf, everything seen so far goes into the hash.
 */
static void reader_long_begin(struct gl_reader *r)
{
	size_t n = r->end - r->start;

	if (r->start > 0)
		memmove(r->buf, r->buf + r->start, GL_LINE_MAX);
	gl_hash_init(&r->long_hash, 0);
	gl_hash_update(&r->long_hash, r->buf, GL_LINE_MAX);
	gl_hash_update(&r->long_hash, r->buf + r->start + GL_LINE_MAX, n - GL_LINE_MAX);
	r->long_active = 1;
	r->long_len = n;
	r->long_off = r->off;
	r->start = r->end = r->scan = GL_LINE_MAX;
}

/* Hands out the cut line; terminated says whether its '\n' was seen. */
static void reader_long_emit(struct gl_reader *r, struct gl_line *line, int terminated)
{
	line->p = r->buf;
	line->len = GL_LINE_MAX;
	line->truncated = 1;
	line->terminated = terminated;
	line->full_len = r->long_len;
	line->offset = r->long_off;
	line->hash = gl_hash_final(&r->long_hash);
	r->off = r->long_off + r->long_len;
	r->long_active = 0;
	r->scan = r->start;
}

/*
 * Feeds buf[start..end), the bytes behind the cut start, into the hash up
 * to the first '\n'. Returns 1 when that ends the line, else 0 with the
 * scratch space emptied for the next fill.
 */
static int reader_long_step(struct gl_reader *r)
{
	char *nl = memchr(r->buf + r->start, '\n', r->end - r->start);
	size_t n = nl ? (size_t)(nl - (r->buf + r->start)) + 1 : r->end - r->start;

	gl_hash_update(&r->long_hash, r->buf + r->start, n);
	r->long_len += n;
	r->start += n;
	if (nl)
		return 1;
	r->start = r->end = r->scan = GL_LINE_MAX;
	return 0;
}

/* Ends the content: pending error (once), then 0 for ever. */
static int reader_finish(struct gl_reader *r, struct gl_err *err)
{
	int rc = r->pending;

	r->finished = 1;
	r->long_active = 0;
	r->start = r->end = r->scan = 0;
	if (rc == GL_OK)
		return 0;
	if (err)
		*err = r->perr;
	return rc;
}

int gl_reader_next(struct gl_reader *r, struct gl_line *line, struct gl_err *err)
{
	if (r->finished)
		return 0;
	for (;;) {
		char *nl;

		if (r->long_active) {
			if (r->start < r->end && reader_long_step(r)) {
				reader_long_emit(r, line, 1);
				return 1;
			}
			if (!r->content_end) {
				reader_refill(r);
				continue;
			}
			if (r->pending && !r->keep_partial)
				return reader_finish(r, err);
			/* The cut line ends the content without a '\n'. */
			reader_long_emit(r, line, 0);
			return 1;
		}
		nl = memchr(r->buf + r->scan, '\n', r->end - r->scan);
		if (nl) {
			reader_emit(r, line, (size_t)(nl - (r->buf + r->start)) + 1, 1);
			return 1;
		}
		r->scan = r->end;
		if (r->end - r->start > (size_t)GL_LINE_MAX + 1) {
			reader_long_begin(r);
			continue;
		}
		if (r->content_end) {
			if (r->start < r->end && (!r->pending || r->keep_partial)) {
				reader_emit(r, line, r->end - r->start, 0);
				return 1;
			}
			return reader_finish(r, err);
		}
		reader_refill(r);
	}
}

int gl_reader_next_chunk(struct gl_reader *r, const char **p, size_t *n, struct gl_err *err)
{
	if (r->finished)
		return 0;
	for (;;) {
		/* the previous piece is handed out: refill from the front */
		r->start = r->end = r->scan = 0;
		if (r->content_end)
			return reader_finish(r, err);
		reader_refill(r);
		if (r->end > 0) {
			*p = r->buf;
			*n = r->end;
			r->off += r->end;
			return 1;
		}
	}
}

/* Forgets all buffered content and decoder state; the file is at raw offset pos. */
static void reader_reset(struct gl_reader *r, uint64_t pos)
{
	r->start = r->end = r->scan = 0;
	r->ahead_n = 0;
	r->off = pos;
	r->raw_read = pos;
	r->file_eof = 0;
	r->member_done = 0;
	r->zeros_seen = 0;
	r->content_end = 0;
	r->pending = GL_OK;
	r->keep_partial = 0;
	r->finished = 0;
	r->long_active = 0;
	r->in_len = r->in_pos = 0;
	gl_err_clear(&r->perr);
	r->zs.next_in = r->in;
	r->zs.avail_in = 0;
}

int gl_reader_rewind(struct gl_reader *r, struct gl_err *err)
{
	if (lseek(r->fd, 0, SEEK_SET) < 0)
		return gl_err_set(err, GL_EIO, r->path, 0, strerror(errno), "cannot rewind");
	reader_reset(r, 0);
	if (r->gzip)
		reader_zstart(r);
	return GL_OK;
}

int gl_reader_seek(struct gl_reader *r, uint64_t off, struct gl_err *err)
{
	int rc;

	if (!r->gzip) {
		struct stat st;

		if (fstat(r->fd, &st) < 0)
			return gl_err_set(err, GL_EIO, r->path, 0, strerror(errno), "cannot seek in");
		if (off > (uint64_t)st.st_size)
			return gl_err_set(err, GL_EFORMAT, r->path, off,
					  "offset beyond the end of the content", "cannot seek in");
		if (lseek(r->fd, (off_t)off, SEEK_SET) < 0)
			return gl_err_set(err, GL_EIO, r->path, 0, strerror(errno), "cannot seek in");
		reader_reset(r, off);
		return GL_OK;
	}
	if (off < r->off || r->long_active || r->finished) {
		rc = gl_reader_rewind(r, err);
		if (rc != GL_OK)
			return rc;
	}
	while (r->off < off) {
		size_t n = r->end - r->start;

		if (n == 0) {
			if (r->content_end) {
				if (r->pending && !r->keep_partial) {
					if (err)
						*err = r->perr;
					return r->pending;
				}
				return gl_err_set(err, GL_EFORMAT, r->path, off,
						  "offset beyond the end of the content",
						  "cannot seek in");
			}
			r->start = r->end = r->scan = 0;
			reader_refill(r);
			continue;
		}
		if (n > off - r->off)
			n = (size_t)(off - r->off);
		r->start += n;
		r->scan = r->start;
		r->off += n;
	}
	return GL_OK;
}

int gl_reader_open(struct gl_reader **out, const char *path, struct gl_err *err)
{
	size_t plen = strlen(path);
	struct gl_reader *r = NULL;
	struct stat st;
	size_t got = 0;
	int rc = GL_OK;

	*out = NULL;
	r = calloc(1, sizeof(*r) + plen + 1);
	if (!r)
		return gl_err_set(err, GL_ENOMEM, path, 0, "out of memory", "cannot open");
	memcpy(r->path, path, plen + 1);
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		rc = gl_err_set(err, GL_EIO, path, 0, strerror(errno), "cannot open");
		goto out;
	}
	if (fstat(r->fd, &st) < 0) {
		rc = gl_err_set(err, GL_EIO, path, 0, strerror(errno), "cannot open");
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		rc = gl_err_set(err, GL_EIO, path, 0, strerror(EISDIR), "cannot open");
		goto out;
	}
	r->in = atomic_exchange(&spare_in, NULL);
	r->buf = atomic_exchange(&spare_buf, NULL);
	if (!r->in)
		r->in = malloc(IN_CAP);
	if (!r->buf)
		r->buf = gl_big_alloc(BUF_CAP);
	if (!r->in || !r->buf) {
		rc = gl_err_set(err, GL_ENOMEM, path, 0, "out of memory", "cannot open");
		goto out;
	}
	/* The first block decides plain or gzip; it is kept, not read twice. */
	rc = reader_read(r, r->in, OPEN_READ, &got, err);
	if (rc != GL_OK)
		goto out;
	while (got < 2 && !r->file_eof) {
		size_t more = 0;

		rc = reader_read(r, r->in + got, OPEN_READ - got, &more, err);
		if (rc != GL_OK)
			goto out;
		got += more;
	}
	r->gzip = got >= 2 && r->in[0] == 0x1f && r->in[1] == 0x8b;
	if (r->gzip) {
		r->fill_max = FILL_FIRST;
		isal_inflate_init(&r->zs);
		r->zs.next_in = r->in;
		r->zs.avail_in = (uint32_t)got;
		reader_zstart(r);
	} else {
		r->in_len = got;
	}
	*out = r;
	r = NULL;
out:
	gl_reader_close(r);
	return rc;
}

void gl_reader_close(struct gl_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	free(atomic_exchange(&spare_in, r->in));
	gl_big_free(atomic_exchange(&spare_buf, r->buf), BUF_CAP);
	free(r);
}

void gl_reader_no_check(struct gl_reader *r)
{
	r->no_check = 1;
}

int gl_reader_is_gzip(const struct gl_reader *r)
{
	return r->gzip;
}

uint64_t gl_reader_raw_offset(const struct gl_reader *r)
{
	if (r->gzip)
		return reader_zpos(r);
	return r->raw_read - (r->in_len - r->in_pos);
}
