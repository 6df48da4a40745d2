/*
 * app.c - `gq top`'s two loops (see app.h).
 *
 * The fetcher thread long-polls the event stream and, whenever events come
 * (or every `interval` seconds without any, since waits and ETAs move with
 * time), fetches a snapshot and builds a model off the UI thread. It hands
 * the model over under a mutex and wakes the UI through a pipe. When the
 * scheduler cannot be reached it says so and retries with a growing pause;
 * nothing else changes, so the last picture stays on screen.
 *
 * The UI loop sleeps in poll() on the terminal and that pipe: with nothing
 * happening it uses no CPU. On any change it redraws the whole frame into
 * the grid, and term.c sends only the cells that differ.
 *
 * Not here: drawing of views (view_*.c), key names (keys.c), ncurses
 * (term.c).
 */
#include "app.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend/config.h"
#include "os/mono.h"
#include "policy/repo.h"
#include "term.h"

#define POLL_WAIT_MS 1000    /* one long-poll; also how long quitting may wait for it */
#define LOG_KEEP (64 * 1024) /* bytes of a job's log kept for its tail */
#define LOG_LINES 30

enum prompt {
	P_NONE,
	P_CONFIRM,    /* y/n for cancel, hold, release */
	P_FILTER,     /* text for '/' */
	P_OVR_TIER,   /* override: which tier */
	P_OVR_REASON, /* override: why */
};

struct app {
	struct backend *poll, *act;
	const struct app_opts *o;
	const char *describe;

	/* Shared with the fetcher, under mu. */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct model *fresh; /* a model the UI has not taken yet */
	bool online, status_changed, stop, refresh;
	int64_t want_job; /* the Job view's job: explain it in each model */
	char offline[300];
	char events_refused[300]; /* the server refuses events: why, "" no */
	int wake[2];

	/* Fetcher only. */
	struct event *evs;
	size_t nevs;
	int64_t last_seq;

	/* UI only. */
	struct model *m;
	struct model empty;
	struct view views[VIEW_COUNT];
	enum view_id cur;
	enum view_id prev;	/* where Back leaves the Job view for */
	enum view_id help_prev; /* where Back leaves the help for */
	struct grid g;
	struct tui_state st;
	int body_y, body_h, tab_y;
	int tab_x[VIEW_TABS + 1];
	bool ui_online;
	char ui_offline[300];
	char ui_events_note[320];
	struct buf log;
	int64_t log_job, log_next;
	char *why;		 /* the open job's explanation when the model has none for it */
	char *policy_log;	 /* the Policy view's commits, read for ... */
	char policy_log_rev[64]; /* ... this revision in force */
	enum prompt prompt;
	char input[160];
	char saved_filter[64];
	int64_t p_job;
	enum action p_act;
	enum tier p_tier;
	bool p_clear;
	char msg[300];
	uint16_t msg_attr;
};

/* Set by SIGINT, SIGTERM and SIGHUP: quit as if 'q' was pressed, giving the
 * terminal back. The one process-wide state of gq top. */
static volatile sig_atomic_t quit_signal;

static void on_quit_signal(int sig)
{
	quit_signal = sig;
}

/* ---- the fetcher ---- */

static void wake_ui(struct app *a)
{
	char c = 1;
	ssize_t r = write(a->wake[1], &c, 1);
	(void)r; /* a full pipe already holds a wake-up */
}

static void set_offline(struct app *a, const struct gq_err *e)
{
	pthread_mutex_lock(&a->mu);
	if (a->online || strcmp(a->offline, e->msg)) {
		a->online = false;
		snprintf(a->offline, sizeof(a->offline), "%s", e->msg);
		a->status_changed = true;
		wake_ui(a);
	}
	pthread_mutex_unlock(&a->mu);
}

/* The server refuses events, with e's words; NULL: it gives them (again,
 * after a reconnect to another server). */
static void events_refuse(struct app *a, const struct gq_err *e)
{
	pthread_mutex_lock(&a->mu);
	snprintf(a->events_refused, sizeof(a->events_refused), "%s", e ? e->msg : "");
	a->status_changed = true;
	wake_ui(a);
	pthread_mutex_unlock(&a->mu);
}

/* Waits ms or until stop / refresh (which the loop then takes); returns
 * true when stopping. */
static bool pause_ms(struct app *a, int ms)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&a->mu);
	while (!a->stop && !a->refresh)
		if (pthread_cond_timedwait(&a->cv, &a->mu, &ts) == ETIMEDOUT)
			break;
	bool stop = a->stop;
	pthread_mutex_unlock(&a->mu);
	return stop;
}

static bool stopping(struct app *a, bool *refresh)
{
	pthread_mutex_lock(&a->mu);
	bool s = a->stop;
	if (refresh) {
		*refresh = a->refresh;
		a->refresh = false;
	}
	pthread_mutex_unlock(&a->mu);
	return s;
}

static void add_events(struct app *a, const struct event_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		if (l->items[i].seq <= a->last_seq)
			continue;
		if (a->nevs == MODEL_MAX_EVENTS) {
			memmove(a->evs, a->evs + 1, (MODEL_MAX_EVENTS - 1) * sizeof(*a->evs));
			a->nevs--;
		}
		a->evs[a->nevs++] = l->items[i];
		a->last_seq = l->items[i].seq;
	}
}

static int64_t thread_cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Fetches a snapshot, builds its model (and the open job's explanation)
 * and hands it to the UI. */
static int publish_snapshot(struct app *a, struct gq_err *e)
{
	struct snapshot s;
	snapshot_init(&s);
	if (a->poll->ops->snapshot(a->poll, &s, e) < 0) {
		snapshot_release(&s);
		return -1;
	}
	struct model *m = xcalloc(1, sizeof(*m));
	model_build(m, &s, a->o->zone ? a->o->zone(s.now) : NULL, a->evs, a->nevs);
	snapshot_release(&s);
	pthread_mutex_lock(&a->mu);
	int64_t want = a->want_job;
	pthread_mutex_unlock(&a->mu);
	m->why_job = want;
	m->why = model_why(m, want);
	pthread_mutex_lock(&a->mu);
	if (a->fresh) {
		model_release(a->fresh);
		free(a->fresh);
	}
	a->fresh = m;
	if (!a->online)
		a->status_changed = true;
	a->online = true;
	wake_ui(a);
	pthread_mutex_unlock(&a->mu);
	return 0;
}

/*
 * The fetcher's loop. A snapshot is fetched when events came, when the UI
 * asks, and otherwise every `interval` seconds. What a snapshot costs (our
 * CPU to fetch, decode and analyse it) paces the loop so that a large queue
 * cannot make gq top expensive: after events, the next snapshot waits at
 * least 10 times that cost (events meanwhile are collected); with nothing
 * happening, at least 200 times (at most 0.5% of a core).
 */
static void *fetcher(void *arg)
{
	struct app *a = arg;
	bool need = true, fresh_start = true, events_off = false;
	int64_t last_snap = 0, cost = 0;
	int backoff = 500;
	for (;;) {
		bool refresh = false;
		if (stopping(a, &refresh))
			break;
		struct gq_err e = GQ_ERR_INIT;
		if (fresh_start) {
			/* After a (re)connect the server may be a new one: take its
			 * history afresh rather than trust our sequence numbers. */
			struct event_list el = {0};
			events_off = false;
			if (a->poll->ops->events(a->poll, 0, 0, &el, &e) < 0) {
				event_list_release(&el);
				if (e.code != GQ_EPERM)
					goto offline;
				/* Refused (gq serve --slurm under PrivateData=jobs): the
				 * events are an optional feed; the queue goes on. */
				events_refuse(a, &e);
				events_off = true;
				e = (struct gq_err)GQ_ERR_INIT;
			} else if (a->events_refused[0]) {
				events_refuse(a, NULL);
			}
			a->nevs = 0;
			a->last_seq = 0;
			add_events(a, &el);
			event_list_release(&el);
			fresh_start = false;
			need = true;
		}
		int64_t now = mono_ms();
		int64_t busy_gap = cost * 10 > 250 ? cost * 10 : 250;
		int64_t idle_gap = (int64_t)a->o->interval * 1000;
		if (cost * 200 > idle_gap)
			idle_gap = cost * 200;
		int64_t due = last_snap + (need ? busy_gap : idle_gap);
		if (refresh || last_snap == 0 || now >= due) {
			int64_t c0 = thread_cpu_ms();
			if (publish_snapshot(a, &e) < 0)
				goto offline;
			cost = thread_cpu_ms() - c0;
			last_snap = mono_ms();
			need = false;
			backoff = 500;
			due = last_snap + idle_gap;
			now = last_snap;
		}
		int wait = POLL_WAIT_MS;
		if (due - now < wait)
			wait = due - now > 0 ? (int)(due - now) : 0;
		if (events_off) {
			if (pause_ms(a, wait))
				break;
			continue;
		}
		struct event_list el = {0};
		int64_t asked = mono_ms();
		if (a->poll->ops->events(a->poll, a->last_seq, wait, &el, &e) < 0) {
			event_list_release(&el);
			goto offline;
		}
		if (el.n) {
			add_events(a, &el);
			need = true;
		} else if (mono_ms() - asked < wait / 2) {
			/* A backend that answers at once instead of waiting (one
			 * without long-poll) must not make us spin. */
			if (pause_ms(a, wait))
				break;
		}
		event_list_release(&el);
		continue;
	offline:
		set_offline(a, &e);
		fresh_start = true;
		last_snap = 0;
		if (pause_ms(a, backoff))
			break;
		backoff = backoff * 2 > 5000 ? 5000 : backoff * 2;
	}
	return NULL;
}

/* ---- the UI ---- */

static struct view *curview(struct app *a)
{
	return &a->views[a->cur];
}

static void refresh_views(struct app *a)
{
	a->st.m = a->m;
	for (int i = 0; i < VIEW_COUNT; i++)
		a->views[i].ops->refresh(&a->views[i], &a->st);
}

static void set_msg(struct app *a, uint16_t attr, const char *fmt, ...) GQ_PRINTF(3, 4);
static void set_msg(struct app *a, uint16_t attr, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(a->msg, sizeof(a->msg), fmt, ap);
	va_end(ap);
	a->msg_attr = attr;
}

/* Fetches what is new in the open job's log and keeps the last lines. */
static void fetch_log(struct app *a)
{
	if (!a->st.job)
		return;
	if (a->log_job != a->st.job) {
		buf_reset(&a->log);
		a->log_job = a->st.job;
		a->log_next = 0;
	}
	struct buf chunk;
	struct gq_err e = GQ_ERR_INIT;
	int64_t next = a->log_next;
	buf_init(&chunk, 0);
	if (a->act->ops->logs(a->act, a->st.job, "stdout", a->log_next, &chunk, &next, &e) < 0) {
		if (!a->log.len) {
			buf_reset(&a->log);
			buf_printf(&a->log, "(no log: %s)", e.msg);
			a->log_next = 0;
		}
	} else if (chunk.len) {
		for (size_t i = 0; i < chunk.len; i++) {
			char c = chunk.data[i];
			if (c == '\r')
				continue;
			buf_add(&a->log, c == '\t' ? " " : &c, 1);
		}
		a->log_next = next;
		if (a->log.len > LOG_KEEP) {
			size_t cut = a->log.len - LOG_KEEP / 2;
			memmove(a->log.data, a->log.data + cut, a->log.len - cut + 1);
			a->log.len -= cut;
		}
	}
	buf_release(&chunk);
	/* The last LOG_LINES lines. */
	a->st.log_tail = "";
	if (!a->log.data || !a->log.len)
		return;
	const char *start = a->log.data, *p = start + a->log.len;
	int lines = 0;
	if (p[-1] == '\n')
		p--;
	while (p > start) {
		if (p[-1] == '\n' && ++lines == LOG_LINES)
			break;
		p--;
	}
	a->st.log_tail = p;
}

struct log_walk {
	struct buf *b;
	const char *in_force;
	const struct zone *zone;
};

static int log_commit(const struct policy_commit *c, void *arg)
{
	struct log_walk *w = arg;
	char when[32];
	zone_stamp(w->zone, c->time, false, when, sizeof(when));
	buf_printf(w->b, "%.10s %s %s: %s%s\n", c->oid, when, c->author_name, c->summary,
		   strcmp(c->oid, w->in_force) ? "" : "  (in force)");
	for (int i = 0; i < c->ntrailers; i++)
		buf_printf(w->b, "    %s: %s\n", c->trailers[i].key, c->trailers[i].value);
	return 0;
}

/* Reads the last commits of the policy repository for the Policy view, once
 * per revision in force. A repository that cannot be read is said there. */
static void read_policy_log(struct app *a)
{
	const char *rev = a->m->snap.policy.revision;
	if (a->policy_log && !strcmp(a->policy_log_rev, rev))
		return;
	struct gq_err e = GQ_ERR_INIT;
	struct buf b;
	char *path = config_policy_repo(&e);
	buf_init(&b, 0);
	struct policy_repo *r = path ? repo_open(path, &e) : NULL;
	if (!r) {
		buf_printf(&b,
			   "no policy repository here (%s); 'gq policy log' on the server's "
			   "machine shows the history",
			   e.msg);
	} else {
		struct log_walk w = {&b, rev, &a->m->zone};
		buf_printf(&b, "%s:\n", repo_path(r));
		if (repo_walk(r, "HEAD", 10, log_commit, &w, &e) < 0)
			buf_printf(&b, "(cannot read its history: %s)", e.msg);
		repo_free(r);
	}
	free(path);
	free(a->policy_log);
	a->policy_log = buf_detach(&b);
	snprintf(a->policy_log_rev, sizeof(a->policy_log_rev), "%s", rev);
	a->st.policy_log = a->policy_log;
}

static void show_view(struct app *a, enum view_id v)
{
	if (v == a->cur)
		return;
	if (v == VIEW_HELP)
		a->help_prev = a->cur;
	else if (a->cur != VIEW_JOB && a->cur != VIEW_HELP)
		a->prev = a->cur;
	a->cur = v;
	if (v == VIEW_JOB)
		fetch_log(a);
	if (v == VIEW_POLICY)
		read_policy_log(a);
}

/* Points st.why at the open job's explanation: the model's when it has
 * one for this job, else one computed now (once, on opening). */
static void update_why(struct app *a, bool compute)
{
	if (a->m->why_job == a->st.job && a->m->why_job) {
		a->st.why = a->m->why ? a->m->why : "";
		return;
	}
	if (compute) {
		free(a->why);
		a->why = model_why(a->m, a->st.job);
	}
	a->st.why = a->why ? a->why : "";
}

static void open_job(struct app *a, int64_t id)
{
	a->st.job = id;
	pthread_mutex_lock(&a->mu);
	a->want_job = id;
	pthread_mutex_unlock(&a->mu);
	update_why(a, true);
	a->views[VIEW_JOB].top = 0;
	if (a->cur == VIEW_JOB)
		fetch_log(a);
	else
		show_view(a, VIEW_JOB);
}

/* "cancel" / "cancelled", ... */
static const char *act_verb(enum action act, bool done)
{
	switch (act) {
	case ACT_CANCEL:
		return done ? "cancelled" : "cancel";
	case ACT_HOLD:
		return done ? "held" : "hold";
	case ACT_RELEASE:
		return done ? "released" : "release";
	default:
		return done ? "overridden" : "override";
	}
}

static void start_request(struct app *a, int64_t id, enum action act)
{
	a->p_job = id;
	a->p_act = act;
	a->input[0] = 0;
	a->msg[0] = 0;
	a->prompt = act == ACT_OVERRIDE ? P_OVR_TIER : P_CONFIRM;
}

static void run_request(struct app *a)
{
	struct gq_err e = GQ_ERR_INIT;
	const struct backend_ops *ops = a->act->ops;
	int rc;
	switch (a->p_act) {
	case ACT_CANCEL:
		rc = ops->cancel(a->act, a->p_job, &e);
		break;
	case ACT_HOLD:
		rc = ops->hold(a->act, a->p_job, NULL, &e);
		break;
	case ACT_RELEASE:
		rc = ops->release(a->act, a->p_job, &e);
		break;
	default:
		rc = ops->override(a->act, a->p_job, a->p_tier, a->p_clear, a->input, &e);
		break;
	}
	if (rc < 0) {
		set_msg(a, GC_BAD | GA_BOLD, "%s", e.msg);
	} else if (a->p_act == ACT_OVERRIDE) {
		if (a->p_clear)
			set_msg(a, GC_GOOD, "job %lld: override cleared", (long long)a->p_job);
		else
			set_msg(a, GC_GOOD, "job %lld: now treated as %s", (long long)a->p_job,
				tier_name(a->p_tier));
	} else {
		set_msg(a, GC_GOOD, "job %lld: %s", (long long)a->p_job, act_verb(a->p_act, true));
	}
	pthread_mutex_lock(&a->mu);
	a->refresh = true;
	pthread_cond_signal(&a->cv);
	pthread_mutex_unlock(&a->mu);
}

static void apply_filter(struct app *a, const char *f)
{
	struct view *v = curview(a);
	snprintf(v->filter, sizeof(v->filter), "%s", f);
	v->ops->refresh(v, &a->st);
}

/* Line editing for text prompts; returns true when Enter ends it. */
static bool edit_line(char *s, size_t size, int code)
{
	size_t n = strlen(s);
	if (code == K_ENTER)
		return true;
	if (code == K_BACKSPACE) {
		while (n > 0 && ((unsigned char)s[n - 1] & 0xc0) == 0x80)
			n--;
		if (n > 0)
			n--;
		s[n] = 0;
	} else if (code == K_CTRL_U) {
		s[0] = 0;
	} else if (code >= 0x20 && code < K_SPECIAL && code != 0x7f) {
		char u[8];
		int l = utf8_encode((uint32_t)code, u);
		if (n + (size_t)l < size) {
			memcpy(s + n, u, (size_t)l + 1);
		}
	}
	return false;
}

static void prompt_key(struct app *a, int code)
{
	switch (a->prompt) {
	case P_CONFIRM:
		if (code == 'y' || code == 'Y')
			run_request(a);
		else
			set_msg(a, GC_DIM, "nothing done");
		a->prompt = P_NONE;
		break;
	case P_FILTER:
		if (code == K_ESC) {
			apply_filter(a, a->saved_filter);
			a->prompt = P_NONE;
		} else if (edit_line(a->input, sizeof(curview(a)->filter), code)) {
			a->prompt = P_NONE;
		} else {
			apply_filter(a, a->input);
		}
		break;
	case P_OVR_TIER:
		a->p_clear = false;
		if (code == '0' || code == '1' || code == '2') {
			a->p_tier = (enum tier)(code - '0');
			a->prompt = P_OVR_REASON;
		} else if (code == 'x' || code == 'X') {
			a->p_clear = true;
			a->prompt = P_OVR_REASON;
		} else {
			set_msg(a, GC_DIM, "nothing done");
			a->prompt = P_NONE;
		}
		break;
	case P_OVR_REASON:
		if (code == K_ESC) {
			set_msg(a, GC_DIM, "nothing done");
			a->prompt = P_NONE;
		} else if (edit_line(a->input, sizeof(a->input), code)) {
			a->prompt = P_NONE;
			run_request(a);
		}
		break;
	case P_NONE:
		break;
	}
}

static void react(struct app *a, unsigned r)
{
	if (r & R_OPEN_JOB)
		open_job(a, a->st.req_job);
	if (r & R_REQUEST)
		start_request(a, a->st.req_job, a->st.req_act);
	if (r & R_BACK)
		a->cur = a->cur == VIEW_HELP ? a->help_prev : a->prev;
}

/* Returns false to quit. */
static bool handle_key(struct app *a, const struct key_event *k)
{
	if (k->code == K_RESIZE) {
		term_invalidate();
		return true;
	}
	if (a->prompt != P_NONE && k->code != K_MOUSE && k->code != K_WHEEL_UP &&
	    k->code != K_WHEEL_DOWN) {
		prompt_key(a, k->code);
		return true;
	}
	struct view *v = curview(a);
	if (k->code == K_WHEEL_UP || k->code == K_WHEEL_DOWN) {
		for (int i = 0; i < 3; i++)
			v->ops->key(v, &a->st, k->code == K_WHEEL_UP ? ACT_UP : ACT_DOWN);
		return true;
	}
	if (k->code == K_MOUSE) {
		if (k->y == a->tab_y) {
			for (int i = 0; i < VIEW_TABS; i++)
				if (k->x >= a->tab_x[i] && k->x < a->tab_x[i + 1])
					show_view(a, (enum view_id)i);
		} else if (k->y >= a->body_y && k->y < a->body_y + a->body_h) {
			react(a, v->ops->click(v, &a->st, k->y - a->body_y));
		}
		return true;
	}
	enum action act = keys_action(k->code);
	if (act == ACT_NONE) {
		a->msg[0] = 0;
		return true;
	}
	a->msg[0] = 0;
	unsigned r = v->ops->key(v, &a->st, act);
	if (!(r & R_UNHANDLED)) {
		react(a, r);
		return true;
	}
	char sort[32];
	switch (act) {
	case ACT_QUIT:
		return false;
	case ACT_HELP:
		show_view(a, VIEW_HELP);
		break;
	case ACT_NEXT_VIEW:
	case ACT_PREV_VIEW: {
		int n = VIEW_TABS, c = a->cur == VIEW_HELP ? a->help_prev : a->cur;
		show_view(a, (enum view_id)((c + (act == ACT_NEXT_VIEW ? 1 : n - 1)) % n));
		break;
	}
	case ACT_VIEW_QUEUE:
	case ACT_VIEW_RUNNING:
	case ACT_VIEW_NODES:
	case ACT_VIEW_EVENTS:
	case ACT_VIEW_POLICY:
	case ACT_VIEW_JOB: {
		/* In a block: C11 has no declaration right after a label. */
		_Static_assert(ACT_VIEW_JOB - ACT_VIEW_QUEUE == VIEW_JOB - VIEW_QUEUE,
			       "the number keys follow VIEW_LIST");
		show_view(a, (enum view_id)(VIEW_QUEUE + (act - ACT_VIEW_QUEUE)));
		break;
	}
	case ACT_FILTER:
		if (!v->ops->sorts[0] && a->cur != VIEW_QUEUE) {
			set_msg(a, GC_DIM, "this view has no rows to filter");
			break;
		}
		snprintf(a->saved_filter, sizeof(a->saved_filter), "%s", v->filter);
		snprintf(a->input, sizeof(a->input), "%s", v->filter);
		a->prompt = P_FILTER;
		break;
	case ACT_SORT: {
		int n = 0;
		for (const char *p = v->ops->sorts; *p; p++)
			n += *p == '|';
		if (!v->ops->sorts[0]) {
			set_msg(a, GC_DIM, "this view has no sort order");
			break;
		}
		v->sort = (v->sort + 1) % (n + 1);
		v->ops->refresh(v, &a->st);
		set_msg(a, 0, "sorted by %s", view_sort_name(v, sort, sizeof(sort)));
		break;
	}
	case ACT_BACK:
		if (v->filter[0])
			apply_filter(a, "");
		break;
	case ACT_REDRAW:
		term_invalidate();
		pthread_mutex_lock(&a->mu);
		a->refresh = true;
		pthread_cond_signal(&a->cv);
		pthread_mutex_unlock(&a->mu);
		break;
	default:
		break;
	}
	return true;
}

static void draw_tabs(struct app *a, int y, int w)
{
	struct grid *g = &a->g;
	int x = 0;
	grid_fill(g, 0, y, w, 1, ' ', GA_REVERSE);
	for (int i = 0; i < VIEW_TABS; i++) {
		char t[48];
		const char *name = a->views[i].ops->name;
		if (i == VIEW_QUEUE)
			snprintf(t, sizeof(t), " %d %s %zu ", i + 1, name, a->m->nqueue);
		else if (i == VIEW_RUNNING)
			snprintf(t, sizeof(t), " %d %s %zu ", i + 1, name, a->m->nrunning);
		else if (i == VIEW_JOB && a->st.job)
			snprintf(t, sizeof(t), " %d %s %lld ", i + 1, name, (long long)a->st.job);
		else
			snprintf(t, sizeof(t), " %d %s ", i + 1, name);
		a->tab_x[i] = x;
		bool on = (enum view_id)i == (a->cur == VIEW_HELP ? a->help_prev : a->cur);
		x += grid_put(g, x, y, w - x, on ? GA_BOLD : GA_REVERSE, t);
	}
	a->tab_x[VIEW_TABS] = x;
}

static void draw_status(struct app *a, int y, int w)
{
	struct grid *g = &a->g;
	struct view *v = curview(a);
	char line[400];
	const char *hint = "? help  q quit";
	int right = (int)strlen(hint);
	if (a->prompt == P_CONFIRM) {
		const struct job *j = snapshot_find(&a->m->snap, a->p_job);
		snprintf(line, sizeof(line), "%s job %lld%s%s%s%s? y/n", act_verb(a->p_act, false),
			 (long long)a->p_job, j ? " '" : "", j ? j->name : "", j ? "' of " : "",
			 j ? j->user : "");
		grid_put(g, 0, y, w, GA_BOLD | GC_WARN, line);
		return;
	}
	if (a->prompt == P_OVR_TIER) {
		snprintf(
		    line, sizeof(line),
		    "override job %lld: tier 0 (P0), 1 (P1), 2 (P2) or x to clear; Esc: nothing",
		    (long long)a->p_job);
		grid_put(g, 0, y, w, GA_BOLD | GC_WARN, line);
		return;
	}
	if (a->prompt == P_OVR_REASON || a->prompt == P_FILTER) {
		const char *label = a->prompt == P_FILTER ? "filter: " : "reason: ";
		int c = grid_put(g, 0, y, w, GA_BOLD, label);
		c += grid_put(g, c, y, w - c, 0, a->input);
		grid_fill(g, c, y, 1, 1, ' ', GA_REVERSE); /* the cursor */
		return;
	}
	if (!a->ui_online) {
		snprintf(line, sizeof(line), "offline, retrying: %s", a->ui_offline);
		grid_fill(g, 0, y, w, 1, ' ', GC_BAD | GA_REVERSE);
		grid_put(g, 0, y, w, GC_BAD | GA_REVERSE | GA_BOLD, line);
		return;
	}
	int c = 0;
	const struct snapshot *ms = &a->m->snap;
	if (ms->stale_since) {
		/* gq serve --slurm cannot reach Slurm: what is shown is old. */
		char when[32] = "?", age[32] = "";
		time_t since = (time_t)ms->stale_since;
		struct tm tm;
		if (localtime_r(&since, &tm))
			strftime(when, sizeof(when), "%H:%M:%S", &tm);
		if (ms->data_time > 0)
			snprintf(age, sizeof(age), "; data %llds old",
				 (long long)(time(NULL) - ms->data_time));
		snprintf(line, sizeof(line), "upstream unreachable since %s%s  ", when, age);
		c = grid_put(g, 0, y, w - right - 1, GC_BAD | GA_BOLD, line);
	}
	if (a->msg[0])
		c += grid_put(g, c, y, w - right - 1 - c, a->msg_attr, a->msg);
	if (v->filter[0]) {
		snprintf(line, sizeof(line), "%sfilter '%s' (Esc clears)", c ? "  " : "",
			 v->filter);
		c += grid_put(g, c, y, w - right - 1 - c, GC_WARN, line);
	}
	grid_put_right(g, 0, y, w, GC_DIM, hint);
}

static void render(struct app *a)
{
	int w, h;
	term_size(&w, &h);
	if (a->g.w != w || a->g.h != h)
		grid_resize(&a->g, w, h);
	else
		grid_clear(&a->g);
	a->st.m = a->m;
	if (w < 40 || h < 10) {
		/* Short lines: they must fit where nothing else does. */
		grid_put(&a->g, 0, 0, w, GA_BOLD, "gq top: too small");
		grid_printf(&a->g, 0, 1, w, 0, "%dx%d, need 40x10", w, h);
		grid_put(&a->g, 0, 2, w, 0, "q quits");
		term_draw(&a->g);
		return;
	}
	int hh = header_draw(&a->st, a->describe, &a->g, w, h - 6);
	a->tab_y = hh;
	draw_tabs(a, hh, w);
	a->body_y = hh + 1;
	a->body_h = h - hh - 2;
	struct view *v = curview(a);
	v->ops->draw(v, &a->st, &a->g, 0, a->body_y, w, a->body_h);
	draw_status(a, h - 1, w);
	term_draw(&a->g);
}

/* Takes a new model or status from the fetcher; true when something changed. */
static bool take_update(struct app *a)
{
	struct model *m = NULL;
	bool changed;
	pthread_mutex_lock(&a->mu);
	m = a->fresh;
	a->fresh = NULL;
	changed = a->status_changed || m;
	a->status_changed = false;
	if (a->online && !a->ui_online)
		set_msg(a, GC_GOOD, "reconnected to %s", a->describe);
	else if (!a->online)
		a->msg[0] = 0;
	a->ui_online = a->online;
	snprintf(a->ui_offline, sizeof(a->ui_offline), "%s", a->offline);
	if (a->events_refused[0])
		snprintf(a->ui_events_note, sizeof(a->ui_events_note), "no events here: %s",
			 a->events_refused);
	else
		a->ui_events_note[0] = 0;
	a->st.events_note = a->ui_events_note;
	pthread_mutex_unlock(&a->mu);
	if (m) {
		if (a->m != &a->empty) {
			model_release(a->m);
			free(a->m);
		}
		a->m = m;
		refresh_views(a);
		update_why(a, false);
		if (a->cur == VIEW_POLICY)
			read_policy_log(a);
		if (a->st.job) {
			const struct job *j = snapshot_find(&m->snap, a->st.job);
			if (a->cur == VIEW_JOB && j && job_state_holds_gpus(j->state))
				fetch_log(a);
		}
	}
	return changed;
}

int app_run(struct backend *poll_be, struct backend *act, const struct app_opts *o,
	    struct gq_err *e)
{
	struct app *a = xcalloc(1, sizeof(*a));
	bool ascii = false;
	int rc = -1;
	struct term_opts to = {.color = o->color, .mouse = o->mouse};
	a->poll = poll_be;
	a->act = act;
	a->o = o;
	a->describe = act->ops->describe(act);
	a->online = a->ui_online = true;
	a->evs = xcalloc(MODEL_MAX_EVENTS, sizeof(*a->evs));
	snapshot_init(&a->empty.snap);
	a->m = &a->empty;
	a->st.m = a->m;
	a->st.log_tail = "";
	a->st.why = "";
	a->st.policy_log = "";
	buf_init(&a->log, 0);
	for (int i = 0; i < VIEW_COUNT; i++) {
		a->views[i].ops = view_table[i];
		view_table[i]->open(&a->views[i]);
	}
	a->cur = a->prev = a->help_prev = o->view;
	if (pipe(a->wake) < 0) {
		err_set(e, GQ_EIO, "cannot create a pipe: %s", strerror(errno));
		goto out_views;
	}
	fcntl(a->wake[0], F_SETFL, O_NONBLOCK);
	fcntl(a->wake[1], F_SETFL, O_NONBLOCK);
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->cv, NULL);
	if (term_open(&to, &ascii, e) < 0)
		goto out_pipe;
	grid_init(&a->g, ascii);
	/* Signals go to the UI thread, whose poll() they interrupt: SIGWINCH
	 * for a resize, the quit signals for a clean exit. */
	struct sigaction sa = {.sa_handler = on_quit_signal}, old_int, old_term, old_hup, old_pipe;
	sigemptyset(&sa.sa_mask);
	quit_signal = 0;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, &old_pipe);
	sigset_t block, old_mask;
	sigemptyset(&block);
	sigaddset(&block, SIGWINCH);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &block, &old_mask);
	pthread_t th = 0;
	int th_err = pthread_create(&th, NULL, fetcher, a);
	pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
	if (th_err) {
		term_close();
		err_set(e, GQ_EIO, "cannot start the fetcher thread");
		goto out_signals;
	}
	if (o->job)
		open_job(a, o->job);
	bool dirty = true;
	for (;;) {
		if (dirty) {
			render(a);
			dirty = false;
		}
		struct pollfd pf[2] = {{.fd = term_fd(), .events = POLLIN},
				       {.fd = a->wake[0], .events = POLLIN}};
		int n = poll(pf, 2, -1);
		if ((n < 0 && errno != EINTR) || quit_signal)
			break;
		if (pf[0].revents & (POLLHUP | POLLERR | POLLNVAL))
			break; /* the terminal is gone */
		if (pf[1].revents & POLLIN) {
			char drain[64];
			while (read(a->wake[0], drain, sizeof(drain)) > 0)
				;
			dirty |= take_update(a);
		}
		/* A resize interrupts poll() with SIGWINCH: read in any case. */
		struct key_event k;
		bool quit = false;
		while (term_read(&k)) {
			dirty = true;
			if (!handle_key(a, &k)) {
				quit = true;
				break;
			}
		}
		if (quit)
			break;
	}
	rc = 0;
	term_close();
	pthread_mutex_lock(&a->mu);
	a->stop = true;
	pthread_cond_signal(&a->cv);
	pthread_mutex_unlock(&a->mu);
	pthread_join(th, NULL);
out_signals:
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	sigaction(SIGPIPE, &old_pipe, NULL);
	grid_release(&a->g);
out_pipe:
	close(a->wake[0]);
	close(a->wake[1]);
	pthread_mutex_destroy(&a->mu);
	pthread_cond_destroy(&a->cv);
	if (a->fresh) {
		model_release(a->fresh);
		free(a->fresh);
	}
out_views:
	for (int i = 0; i < VIEW_COUNT; i++)
		a->views[i].ops->close(&a->views[i]);
	if (a->m != &a->empty) {
		model_release(a->m);
		free(a->m);
	}
	snapshot_release(&a->empty.snap);
	buf_release(&a->log);
	free(a->why);
	free(a->policy_log);
	free(a->evs);
	free(a);
	return rc;
}
