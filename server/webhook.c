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
#include "server/log.h"

#define MAX_QUEUED 256
#define TIMEOUT_MS 5000L

struct note {
	char *url, *body;
	struct note *next;
};

struct webhook {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t th;
	struct note *head, *tail;
	int queued;
	bool stop;
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

static void *sender_main(void *arg)
{
	struct webhook *w = arg;
	CURL *c = curl_easy_init();
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->head && !w->stop)
			pthread_cond_wait(&w->cv, &w->mu);
		if (w->stop)
			break;
		struct note *n = w->head;
		w->head = n->next;
		if (!w->head)
			w->tail = NULL;
		w->queued--;
		pthread_mutex_unlock(&w->mu);
		struct gq_err e = GQ_ERR_INIT;
		if (!c)
			log_warn("webhook '%s': libcurl could not start; note dropped", n->url);
		else if (post(c, n->url, n->body, &e) < 0)
			log_warn("%s; note dropped", e.msg);
		free(n->url);
		free(n->body);
		free(n);
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
	pthread_cond_init(&w->cv, NULL);
	if (pthread_create(&w->th, NULL, sender_main, w) != 0)
		BUG("cannot start the webhook thread");
	return w;
}

void webhook_send(struct webhook *w, const char *url, const struct webhook_note *n)
{
	struct note *x = xcalloc(1, sizeof(*x));
	x->url = xstrdup(url);
	x->body = wire_webhook_text(n);
	pthread_mutex_lock(&w->mu);
	if (w->queued >= MAX_QUEUED) {
		pthread_mutex_unlock(&w->mu);
		log_warn("webhook '%s': %d notes already wait; note about job %" PRId64 " dropped",
			 url, MAX_QUEUED, n->job);
		free(x->url);
		free(x->body);
		free(x);
		return;
	}
	if (w->tail)
		w->tail->next = x;
	else
		w->head = x;
	w->tail = x;
	w->queued++;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
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
	if (w->queued > 0)
		log_warn("webhook: %d notes not sent before shutdown", w->queued);
	for (struct note *n = w->head, *next; n; n = next) {
		next = n->next;
		free(n->url);
		free(n->body);
		free(n);
	}
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	free(w);
}
