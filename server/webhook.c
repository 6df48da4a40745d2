/*
 * webhook.c - the queue and sender thread behind webhook.h; curl_fail()
 * turns libcurl's errors into ours.
 */
#include "webhook.h"

#include <curl/curl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "os/mono.h"
#include "server/log.h"

#define MAX_QUEUED 256
#define TIMEOUT_MS 5000L
#define FIRST_RETRY_MS 1000

struct note {
	struct webhook_delivery d; /* its strings are the ones below */
	char *url, *command, *body, *env;
	bool durable;
	int tries;
	int64_t due_ms; /* mono_ms() before which it is not tried again */
	struct note *next;
};

struct webhook {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t th;
	struct note *head, *tail;
	int queued;
	bool stop;
	webhook_run_fn run;
	webhook_done_fn done;
	void *arg;
};

static int curl_fail(CURLcode cc, const char *url, struct gq_err *e)
{
	return err_set(e, GQ_EUNAVAIL, "webhook '%s': %s", url, curl_easy_strerror(cc));
}

static size_t discard(char *p, size_t size, size_t n, void *arg)
{
	(void)p;
	(void)arg;
	return size * n;
}

static int post(CURL *c, const char *url, const char *body, struct gq_err *e)
{
	if (!c)
		return err_set(e, GQ_EUNAVAIL, "webhook '%s': libcurl could not start", url);
	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, TIMEOUT_MS);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, TIMEOUT_MS);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
	struct curl_slist *hdr = curl_slist_append(NULL, "Content-Type: application/json");
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
	CURLcode cc = curl_easy_perform(c);
	curl_slist_free_all(hdr);
	if (cc != CURLE_OK)
		return curl_fail(cc, url, e);
	long status = 0;
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (status < 200 || status > 299)
		return err_set(e, GQ_EUNAVAIL, "webhook '%s': answered HTTP %ld", url, status);
	return 0;
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static void note_free(struct note *n)
{
	free(n->url);
	free(n->command);
	free(n->body);
	free(n->env);
	free(n);
}

/* The first note that is due, unlinked; else NULL and *wait_ms the time
 * to the earliest (-1 none). Lock held. */
static struct note *take_due(struct webhook *w, int64_t now, int64_t *wait_ms)
{
	*wait_ms = -1;
	for (struct note **pp = &w->head, *prev = NULL; *pp; prev = *pp, pp = &(*pp)->next) {
		struct note *n = *pp;
		if (n->due_ms <= now) {
			*pp = n->next;
			if (w->tail == n)
				w->tail = prev;
			w->queued--;
			n->next = NULL;
			return n;
		}
		if (*wait_ms < 0 || n->due_ms - now < *wait_ms)
			*wait_ms = n->due_ms - now;
	}
	return NULL;
}

static void enqueue(struct webhook *w, struct note *x)
{
	if (w->tail)
		w->tail->next = x;
	else
		w->head = x;
	w->tail = x;
	w->queued++;
	pthread_cond_signal(&w->cv);
}

static void *sender_main(void *arg)
{
	struct webhook *w = arg;
	CURL *c = curl_easy_init();
	pthread_mutex_lock(&w->mu);
	for (;;) {
		int64_t wait_ms;
		struct note *n = NULL;
		while (!w->stop && !(n = take_due(w, mono_ms(), &wait_ms))) {
			if (wait_ms < 0) {
				pthread_cond_wait(&w->cv, &w->mu);
			} else {
				struct timespec ts =
				    mono_deadline((int)(wait_ms < 60000 ? wait_ms : 60000));
				pthread_cond_timedwait(&w->cv, &w->mu, &ts);
			}
		}
		if (w->stop) {
			if (n)
				enqueue(w, n); /* counted as not sent */
			break;
		}
		pthread_mutex_unlock(&w->mu);
		struct gq_err e = GQ_ERR_INIT;
		int rc = n->d.url ? post(c, n->d.url, n->d.body, &e) : w->run(&n->d, &e);
		n->tries++;
		pthread_mutex_lock(&w->mu);
		if (rc < 0 && n->tries < WEBHOOK_TRIES && !w->stop) {
			n->due_ms = mono_ms() + ((int64_t)FIRST_RETRY_MS << (n->tries - 1));
			log_info("%s; trying again in %d s (try %d of %d)", e.msg,
				 FIRST_RETRY_MS / 1000 << (n->tries - 1), n->tries + 1,
				 WEBHOOK_TRIES);
			enqueue(w, n);
			continue;
		}
		if (rc < 0 && n->tries < WEBHOOK_TRIES) { /* stopping: the journal keeps it */
			enqueue(w, n);
			continue;
		}
		pthread_mutex_unlock(&w->mu);
		if (rc < 0)
			log_warn("%s; given up after %d tries", e.msg, n->tries);
		if (n->durable && w->done)
			w->done(w->arg, &n->d, rc < 0 ? e.msg : NULL);
		note_free(n);
		pthread_mutex_lock(&w->mu);
	}
	pthread_mutex_unlock(&w->mu);
	if (c)
		curl_easy_cleanup(c);
	return NULL;
}

struct webhook *webhook_start(void)
{
	struct webhook *w = xcalloc(1, sizeof(*w));
	pthread_mutex_init(&w->mu, NULL);
	mono_cond_init(&w->cv);
	if (pthread_create(&w->th, NULL, sender_main, w) != 0)
		BUG("cannot start the webhook thread");
	return w;
}

void webhook_hooks(struct webhook *w, webhook_run_fn run, webhook_done_fn done, void *arg)
{
	pthread_mutex_lock(&w->mu);
	w->run = run;
	w->done = done;
	w->arg = arg;
	pthread_mutex_unlock(&w->mu);
}

/* Queues x unless MAX_QUEUED wait; false (x freed) then. */
static bool queue_note(struct webhook *w, struct note *x)
{
	pthread_mutex_lock(&w->mu);
	if (w->queued >= MAX_QUEUED) {
		pthread_mutex_unlock(&w->mu);
		note_free(x);
		return false;
	}
	enqueue(w, x);
	pthread_mutex_unlock(&w->mu);
	return true;
}

void webhook_send(struct webhook *w, const char *url, const struct webhook_note *n)
{
	struct note *x = xcalloc(1, sizeof(*x));
	x->d.url = x->url = xstrdup(url);
	x->d.body = x->body = wire_webhook_text(n);
	x->d.job = n->job;
	if (!queue_note(w, x))
		log_warn("webhook '%s': %d notes already wait; note about job %" PRId64 " dropped",
			 url, MAX_QUEUED, n->job);
}

void webhook_deliver(struct webhook *w, const struct webhook_delivery *d)
{
	if (!d->url && !w->run)
		BUG("a command notification without a runner");
	struct note *x = xcalloc(1, sizeof(*x));
	x->d = *d;
	x->d.url = x->url = dup_or_null(d->url);
	x->d.command = x->command = dup_or_null(d->command);
	x->d.body = x->body = xstrdup(d->body);
	x->d.env = x->env = dup_or_null(d->env);
	x->durable = true;
	if (!queue_note(w, x))
		log_warn("notification %" PRId64 " about job %" PRId64 ": %d notes already wait; "
			 "it stays in the journal and goes at the next start",
			 d->id, d->job, MAX_QUEUED);
}

void webhook_stop(struct webhook *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->mu);
	w->stop = true;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->th, NULL);
	int durable = 0;
	for (struct note *n = w->head; n; n = n->next)
		durable += n->durable;
	if (w->queued > durable)
		log_warn("webhook: %d notes not sent before shutdown", w->queued - durable);
	if (durable > 0)
		log_info("webhook: %d notifications not sent yet; the journal keeps them for the "
			 "next start",
			 durable);
	for (struct note *n = w->head, *next; n; n = next) {
		next = n->next;
		note_free(n);
	}
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	free(w);
}
