/*
 * follow.c - a job's output as it grows (follow.h).
 */
#include "follow.h"

#include <time.h>

int follow_drain(struct backend *b, int64_t id, struct follow *f, int n, struct gq_err *e)
{
	struct buf out;
	buf_init(&out, 0);
	int rc = 0;
	for (bool more = true; more && rc == 0;) {
		more = false;
		for (int i = 0; i < n && rc == 0; i++) {
			int64_t next = f[i].off;
			buf_reset(&out);
			rc = b->ops->logs(b, id, f[i].stream, f[i].off, &out, &next, e);
			if (rc == 0 && out.len) {
				fwrite(out.data, 1, out.len, f[i].to);
				fflush(f[i].to);
			}
			if (rc == 0 && next > f[i].off)
				more = true;
			f[i].off = next;
		}
	}
	buf_release(&out);
	return rc < 0 ? -1 : 0;
}

void follow_pause(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}
