/*
 * config.h - the client's configuration: where the scheduler is and the
 * user's defaults, from the environment and $XDG_CONFIG_HOME/gq/config.
 *
 * The file uses git-config syntax and is read with libgit2's parser, so a
 * mistake is reported with its line number:
 *
 *     [gq]
 *         server = unix:/run/gq/sock      # or http://HOST:PORT
 *         backend = native
 *         tokenFile = ~/.config/gq/token  # bearer token for TCP servers
 *         tier = P2                       # default tier of gq submit
 *         queue = exp                     # default queue of gq submit
 *         qosMap = p0=P0,p1=P1,p2=P2,*=P1 # backend slurm: QOS → tier
 *         caFile = /etc/ssl/my-ca.pem     # https: CA bundle (default: the system's)
 *     [notify]
 *         webhook = https://chat.example/hook  # gq submit --notify: POST the JSON here
 *         command = notify-send gq "$GQ_JOB_ID"  # and/or run this, the JSON on stdin
 *
 * The environment wins over the file: GQ_SERVER, GQ_BACKEND, GQ_TOKEN_FILE,
 * GQ_TIER, GQ_QUEUE, GQ_SLURM_QOS, GQ_CA_FILE. A token is never taken from the command line, only
 * from a file. This module does not connect to anything; backend.c does.
 */
#ifndef GQ_BACKEND_CONFIG_H
#define GQ_BACKEND_CONFIG_H

#include <stdbool.h>

#include "core/util.h"

#define GQ_PATH_MAX 4096

struct gq_config {
	char server[GQ_PATH_MAX];     /* "" = none configured: the user's own server */
	char backend[16];	      /* "native" unless configured */
	char token_file[GQ_PATH_MAX]; /* "" = none */
	char tier[8];		      /* "" = none: the server's default */
	char queue[32];		      /* "" = none: the policy's default queue */
	char qos_map[256];	      /* slurm: "QOS=TIER,..." ("" = p0/p1/p2) */
	char ca_file[GQ_PATH_MAX];    /* https: CA bundle, "" = the system's */
	char file[GQ_PATH_MAX];	      /* the config file read, "" when there was none */
	char notify_webhook[1024];    /* notify.webhook: an http(s) URL, "" none */
	char notify_command[1024];    /* notify.command: a shell command line, "" none */
};

/*
 * Fills c from the config file (when it exists) and then the environment.
 * Fails with GQ_EINVAL naming the file, line and key of a bad entry, or an
 * environment variable with a bad value.
 */
int config_load(struct gq_config *c, struct gq_err *e);

/* $XDG_CONFIG_HOME/gq/config (or ~/.config/gq/config) into out. The home
 * (~) is $HOME when it is an absolute path, else the passwd entry's; -1
 * with e (GQ_EINVAL) when neither is, here and below. */
int config_path(char *out, size_t size, struct gq_err *e);

/*
 * $XDG_STATE_HOME/gq (or ~/.local/state/gq), created with mode 0700 when
 * create is true. Used for the shell's history and the auto-started server's
 * log and state, and as gq serve's default --state-dir. -1 with e filled
 * when there is no home or it cannot be created.
 */
int state_dir(char *out, size_t size, bool create, struct gq_err *e);

/*
 * The policy repository the client reads (gq policy, gq top's Policy view):
 * $GQ_POLICY_REPO, else <state_dir>/policy, where your own gq serve keeps
 * it. Caller frees; NULL with e when there is no home.
 */
char *config_policy_repo(struct gq_err *e);

/*
 * The user's own server socket: $XDG_RUNTIME_DIR/gq/sock, or
 * /tmp/gq-$UID/sock when XDG_RUNTIME_DIR is unset. With create, makes the
 * directory (mode 0700).
 */
int default_socket(char *out, size_t size, bool create, struct gq_err *e);

/*
 * Reads a bearer token from path (first line, surrounding white space
 * removed) into out. Refuses a file that others may read, like ssh does with
 * keys, with a message that says how to fix it.
 */
int token_read(const char *path, char *out, size_t size, struct gq_err *e);

#endif
