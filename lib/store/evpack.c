/*
 * evpack.c - the report's fields of an events row in one BLOB (see evpack.h).
 *
 * In: the fields, as the report's reader makes them of the columns. Out: a
 * version byte, flags, the level, varints, then the doubles' bits; and back.
 * Decoding is strict (every byte accounted for), so a BLOB that is not a
 * packing of this version is read from the columns instead.
 */
#include <math.h>
#include <string.h>

#include "gpulog.h"
#include "evpack.h"

enum {
	F_WARN = 1 << 0,
	F_OP = 1 << 1,
	F_KERNEL = 1 << 2,	/* kernel_id not NULL */
	F_COMP = 1 << 3,	/* the ints: written when not their NULL value */
	F_HOST = 1 << 4,
	F_KID = 1 << 5,
	F_ANOM = 1 << 6,
	F_REC = 1 << 7,
	F_ERR = 1 << 8,
	F_DUR = 1 << 9,		/* the doubles: written when not NAN */
	F_MEM = 1 << 10,
	F_EXEC = 1 << 11,
	F_OPREC = 1 << 12,	/* schema 10: the row's operation: ms, then... */
	F_OPTP = 1 << 13,	/* ...its throughput, */
	F_OPNAME = 1 << 14,	/* ...its name's id */
	F_ALL = (1 << 15) - 1,
};

static uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static int64_t unzigzag(uint64_t u)
{
	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

static size_t put_varint(unsigned char *p, uint64_t u)
{
	size_t n = 0;

	while (u >= 0x80) {
		p[n++] = (unsigned char)(u | 0x80);
		u >>= 7;
	}
	p[n++] = (unsigned char)u;
	return n;
}

/* Reads a varint of at most 10 bytes from p[*i..n); false when cut short
 * or too long. A one-byte varint (every id and counter under 64) takes the
 * first branch: the report decodes one packing per event. */
static inline bool get_varint(const unsigned char *p, size_t n, size_t *i, uint64_t *u)
{
	uint64_t v = 0;

	if (*i < n && p[*i] < 0x80) {
		*u = p[(*i)++];
		return true;
	}
	for (unsigned shift = 0; shift < 70 && *i < n; shift += 7) {
		unsigned char c = p[(*i)++];

		if (shift == 63 && c > 1)
			return false;
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*u = v;
			return true;
		}
	}
	return false;
}

static size_t put_double(unsigned char *p, double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	for (int k = 0; k < 8; k++)
		p[k] = (unsigned char)(u >> (8 * k));
	return 8;
}

static double get_double(const unsigned char *p)
{
	uint64_t u;
	double d;

	/* one load where the machine is little-endian, as the bytes are */
	memcpy(&u, p, sizeof(u));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	u = __builtin_bswap64(u);
#endif
	memcpy(&d, &u, sizeof(d));
	return d;
}

size_t gl_evpack_encode(const struct gl_evpack *f, unsigned char *out)
{
	unsigned flags = (f->warn ? F_WARN : 0) | (f->op ? F_OP : 0) |
			 (f->has_kernel ? F_KERNEL : 0) | (f->component_id ? F_COMP : 0) |
			 (f->host_id ? F_HOST : 0) | (f->kernel_id ? F_KID : 0) |
			 (f->anomaly ? F_ANOM : 0) | (f->recovery_attempts != -1 ? F_REC : 0) |
			 (f->error_count != -1 ? F_ERR : 0) | (!isnan(f->dur_us) ? F_DUR : 0) |
			 (!isnan(f->mem_mb) ? F_MEM : 0) | (!isnan(f->exec_ms) ? F_EXEC : 0) |
			 (f->is_op ? F_OPREC : 0) |
			 (f->is_op && !isnan(f->op_throughput) ? F_OPTP : 0) |
			 (f->is_op && f->op_name_id ? F_OPNAME : 0);
	size_t n = 0;

	out[n++] = GL_EVPACK_VERSION;
	out[n++] = (unsigned char)(flags & 0xff);
	out[n++] = (unsigned char)(flags >> 8);
	out[n++] = (unsigned char)f->level;
	if (flags & F_COMP)
		n += put_varint(out + n, zigzag(f->component_id));
	if (flags & F_HOST)
		n += put_varint(out + n, zigzag(f->host_id));
	if (flags & F_KID)
		n += put_varint(out + n, zigzag(f->kernel_id));
	if (flags & F_ANOM)
		n += put_varint(out + n, zigzag(f->anomaly));
	if (flags & F_REC)
		n += put_varint(out + n, zigzag(f->recovery_attempts));
	if (flags & F_ERR)
		n += put_varint(out + n, zigzag(f->error_count));
	n += put_varint(out + n, zigzag(f->stream_id));
	if (flags & F_DUR)
		n += put_double(out + n, f->dur_us);
	if (flags & F_MEM)
		n += put_double(out + n, f->mem_mb);
	if (flags & F_EXEC)
		n += put_double(out + n, f->exec_ms);
	if (flags & F_OPREC)
		n += put_double(out + n, f->op_ms);
	if (flags & F_OPTP)
		n += put_double(out + n, f->op_throughput);
	if (flags & F_OPNAME)
		n += put_varint(out + n, zigzag(f->op_name_id));
	return n;
}

/* The next int of p: when flags has bit, a zigzag varint, else its NULL value. */
static inline bool get_int(const unsigned char *p, size_t n, size_t *i, unsigned flags, unsigned bit,
		    int64_t none, int64_t *v)
{
	uint64_t u;

	if (!(flags & bit)) {
		*v = none;
		return true;
	}
	if (!get_varint(p, n, i, &u))
		return false;
	*v = unzigzag(u);
	return *v != none;	/* the encoder writes a NULL value as no bytes */
}

static inline bool get_real(const unsigned char *p, size_t n, size_t *i, unsigned flags, unsigned bit,
		     double *v)
{
	if (!(flags & bit)) {
		*v = NAN;
		return true;
	}
	if (n - *i < 8)
		return false;
	*v = get_double(p + *i);
	*i += 8;
	return !isnan(*v);
}

bool gl_evpack_decode(const void *blob, size_t n, struct gl_evpack *f)
{
	const unsigned char *p = blob;
	size_t i = 4;
	unsigned flags;
	int64_t anomaly;
	uint64_t stream;

	if (n < 5 || p[0] != GL_EVPACK_VERSION)
		return false;
	flags = p[1] | (unsigned)p[2] << 8;
	if ((flags & ~(unsigned)F_ALL) || p[3] > GL_LEVEL_CRITICAL)
		return false;
	f->level = p[3];
	f->warn = flags & F_WARN;
	f->op = flags & F_OP;
	f->has_kernel = flags & F_KERNEL;
	if (!get_int(p, n, &i, flags, F_COMP, 0, &f->component_id) ||
	    !get_int(p, n, &i, flags, F_HOST, 0, &f->host_id) ||
	    !get_int(p, n, &i, flags, F_KID, 0, &f->kernel_id) ||
	    !get_int(p, n, &i, flags, F_ANOM, 0, &anomaly) || anomaly < INT32_MIN ||
	    anomaly > INT32_MAX ||
	    !get_int(p, n, &i, flags, F_REC, -1, &f->recovery_attempts) ||
	    !get_int(p, n, &i, flags, F_ERR, -1, &f->error_count) ||
	    !get_varint(p, n, &i, &stream) ||
	    !get_real(p, n, &i, flags, F_DUR, &f->dur_us) ||
	    !get_real(p, n, &i, flags, F_MEM, &f->mem_mb) ||
	    !get_real(p, n, &i, flags, F_EXEC, &f->exec_ms))
		return false;
	f->is_op = flags & F_OPREC;
	f->op_ms = f->op_throughput = NAN;
	f->op_name_id = 0;
	if ((flags & (F_OPTP | F_OPNAME)) && !f->is_op)
		return false;
	if (f->is_op && (!get_real(p, n, &i, flags, F_OPREC, &f->op_ms) ||
			 !get_real(p, n, &i, flags, F_OPTP, &f->op_throughput) ||
			 !get_int(p, n, &i, flags, F_OPNAME, 0, &f->op_name_id)))
		return false;
	f->anomaly = (int)anomaly;
	f->stream_id = unzigzag(stream);
	return i == n;
}

bool gl_evpack_like_operation(const unsigned char *s, size_t n)
{
	static const char prefix[] = "operation ";

	if (!s || n < sizeof(prefix) - 1)
		return false;
	for (size_t i = 0; i < sizeof(prefix) - 1; i++) {
		unsigned char c = s[i];

		if (c >= 'A' && c <= 'Z')
			c = (unsigned char)(c - 'A' + 'a');
		if (c != (unsigned char)prefix[i])
			return false;
	}
	return true;
}

double gl_evpack_real(double v)
{
	return v == 0.0 ? 0.0 : v;
}

static double val_double(sqlite3_value *v)
{
	return sqlite3_value_type(v) == SQLITE_NULL ? NAN : sqlite3_value_double(v);
}

/* A counter: -1 when NULL (or negative: not a count). */
static int64_t val_count(sqlite3_value *v)
{
	int64_t n;

	if (sqlite3_value_type(v) == SQLITE_NULL)
		return -1;
	n = sqlite3_value_int64(v);
	return n < 0 ? -1 : n;
}

/* SQL's "level >= 4": a TEXT or BLOB value sorts above every number. */
static bool level_at_least_warn(sqlite3_value *v)
{
	switch (sqlite3_value_type(v)) {
	case SQLITE_INTEGER:
		return sqlite3_value_int64(v) >= 4;
	case SQLITE_FLOAT:
		return sqlite3_value_double(v) >= 4.0;
	case SQLITE_NULL:
		return false;
	default:
		return true;
	}
}

/*
 * SQL's "message LIKE 'Operation %'" for the message value v: LIKE
 * folds the case of ASCII letters only (PRAGMA case_sensitive_like is never
 * set), the string ends at its first NUL, which matches no letter of the
 * prefix, and a BLOB matches nothing when SQLite was built so (Debian's is).
 */
static bool like_operation(sqlite3_value *v)
{
	const unsigned char *s;

	/* the type before sqlite3_value_text converts the value */
	if (sqlite3_value_type(v) == SQLITE_BLOB &&
	    sqlite3_compileoption_used("LIKE_DOESNT_MATCH_BLOBS"))
		return false;
	s = sqlite3_value_text(v);
	return gl_evpack_like_operation(s, s ? (size_t)sqlite3_value_bytes(v) : 0);
}

void gl_evpack_from_values(sqlite3_value *const *v, struct gl_evpack *f)
{
	/* the types first: a value read as another type may change it */
	f->warn = level_at_least_warn(v[0]);
	f->has_kernel = sqlite3_value_type(v[3]) != SQLITE_NULL;
	f->exec_ms = val_double(v[11]);
	f->level = sqlite3_value_int(v[0]);
	if (f->level < GL_LEVEL_NONE || f->level > GL_LEVEL_CRITICAL)
		f->level = GL_LEVEL_NONE;
	f->component_id = sqlite3_value_int64(v[1]);
	f->host_id = sqlite3_value_int64(v[2]);
	f->kernel_id = sqlite3_value_int64(v[3]);
	f->dur_us = val_double(v[4]);
	f->mem_mb = val_double(v[5]);
	f->anomaly = sqlite3_value_int(v[6]);
	f->recovery_attempts = val_count(v[7]);
	f->op = like_operation(v[8]);
	f->error_count = val_count(v[9]);
	f->stream_id = sqlite3_value_int64(v[10]);
	f->is_op = false;
	f->op_ms = f->op_throughput = NAN;
	f->op_name_id = 0;
}

static void sql_ev_pack(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct gl_evpack f;
	unsigned char buf[GL_EVPACK_MAX];

	(void)argc;
	gl_evpack_from_values(argv, &f);
	sqlite3_result_blob(ctx, buf, (int)gl_evpack_encode(&f, buf), SQLITE_TRANSIENT);
}

/* gl_ev_pack_op(packed, ms, throughput, name_id) */
static void sql_ev_pack_op(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct gl_evpack f;
	unsigned char buf[GL_EVPACK_MAX];

	(void)argc;
	if (sqlite3_value_type(argv[0]) != SQLITE_BLOB ||
	    sqlite3_value_type(argv[1]) == SQLITE_NULL ||
	    !gl_evpack_decode(sqlite3_value_blob(argv[0]), (size_t)sqlite3_value_bytes(argv[0]), &f))
		return;	/* NULL: the row is read from its columns */
	f.is_op = true;
	f.op_ms = gl_evpack_real(sqlite3_value_double(argv[1]));
	f.op_throughput = gl_evpack_real(val_double(argv[2]));
	f.op_name_id = sqlite3_value_int64(argv[3]);
	sqlite3_result_blob(ctx, buf, (int)gl_evpack_encode(&f, buf), SQLITE_TRANSIENT);
}

int gl_evpack_register(sqlite3 *db)
{
	int rc = sqlite3_create_function(db, "gl_ev_pack", GL_EVPACK_NCOLS,
					 SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, sql_ev_pack, NULL,
					 NULL);

	return rc != SQLITE_OK ? rc
			       : sqlite3_create_function(db, "gl_ev_pack_op", 4,
							 SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
							 sql_ev_pack_op, NULL, NULL);
}
