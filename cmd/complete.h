/*
 * complete.h - completion words shared by `gq __complete` (for the shell
 * completion scripts) and `gq shell`'s readline completion. Each calls fn
 * once per word; nothing is called when there is nothing to offer (no
 * such command, no server running: completion never starts one).
 */
#ifndef GQ_CMD_COMPLETE_H
#define GQ_CMD_COMPLETE_H

/* The flags of command cmd, from the OPTIONS section of its man page. */
void complete_flags(const char *cmd, void (*fn)(const char *word, void *arg), void *arg);
/* Ids of active jobs, newest first. */
/* The subcommands of cmd, from the SYNOPSIS of its man page. */
void complete_subcommands(const char *cmd, void (*fn)(const char *word, void *arg), void *arg);
/* Every concrete policy key (of the policy in force when a server answers). */
void complete_policy_keys(void (*fn)(const char *word, void *arg), void *arg);
void complete_jobs(void (*fn)(const char *word, void *arg), void *arg);
/* Queues of the server's policy. */
void complete_queues(void (*fn)(const char *word, void *arg), void *arg);

#endif
