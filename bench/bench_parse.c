// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_parse.c - parses every message of an mboxrd file with
 * rb_message_parse() on one core and prints what bench/parse.sh reports:
 * messages, bytes, parse seconds (CLOCK_PROCESS_CPUTIME_ID around the
 * parse calls only; messages are streamed, so the RSS is the parser's),
 * failures and problem counts. A target of bench/CMakeLists.txt
 * (-DRB_BENCH=ON), built by bench/parse.sh in build-bench/.
 *
 * usage: bench_parse MBOX
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mail/message.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/banned.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct stats {
	long n, fails, patches, problems[8];
	double secs;
	size_t bytes;
};

static void one(struct stats *st, char *p, size_t len, struct rb_buf *tmp)
{
	struct rb_message *m = NULL;
	const char *q = p, *end = p + len;
	double t0;
	int bit;

	/* mboxrd: ">From " lines lose one '>' */
	rb_buf_reset(tmp);
	while (q < end) {
		const char *nl = memchr(q, '\n', (size_t)(end - q));
		size_t ll = nl ? (size_t)(nl - q) + 1 : (size_t)(end - q);
		size_t k = 0;

		while (k < ll && q[k] == '>')
			k++;
		if (k && ll - k >= 5 && !memcmp(q + k, "From ", 5))
			rb_buf_add(tmp, q + 1, ll - 1);
		else
			rb_buf_add(tmp, q, ll);
		q += ll;
	}
	st->n++;
	st->bytes += tmp->len;
	t0 = now();
	if (rb_message_parse(&m, tmp->ptr, tmp->len, NULL)) {
		st->secs += now() - t0;
		st->fails++;
		fprintf(stderr, "message %ld: %s\n", st->n, rb_errmsg());
		return;
	}
	if (m->patch)
		st->patches++;
	for (bit = 0; bit < 8; bit++)
		if (m->problems & (1u << bit))
			st->problems[bit]++;
	rb_message_free(m);
	st->secs += now() - t0;
}

int main(int argc, char **argv)
{
	struct rb_buf msg = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct rb_buf tmp = RB_BUF_INIT(RB_BUF_NOLIMIT);
	struct stats st = { 0 };
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int have = 0;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: bench_parse MBOX\n");
		return 2;
	}
	f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	/* Streamed one message at a time: the RSS is the parser's. */
	while ((n = getline(&line, &cap, f)) > 0) {
		if (n >= 5 && !memcmp(line, "From ", 5)) {
			if (have)
				one(&st, msg.ptr, msg.len, &tmp);
			rb_buf_reset(&msg);
			have = 1;
			continue;
		}
		rb_buf_add(&msg, line, (size_t)n);
	}
	if (have)
		one(&st, msg.ptr, msg.len, &tmp);
	fclose(f);
	free(line);
	printf("messages=%ld bytes=%zu parse_cpu_s=%.3f msg_per_s=%.0f "
	       "mb_per_s=%.1f fails=%ld with_patch=%ld flowed=%ld "
	       "ws_damage=%ld crlf=%ld bad_boundary=%ld no_msgid=%ld "
	       "charset=%ld\n",
	       st.n, st.bytes, st.secs, st.secs > 0 ? st.n / st.secs : 0,
	       st.secs > 0 ? st.bytes / st.secs / 1e6 : 0, st.fails, st.patches,
	       st.problems[0], st.problems[1], st.problems[2], st.problems[3],
	       st.problems[4], st.problems[5]);
	rb_buf_release(&msg);
	rb_buf_release(&tmp);
	return st.fails ? 1 : 0;
}
