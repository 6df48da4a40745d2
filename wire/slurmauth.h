/*
 * slurmauth.h - the texts Slurm's identity comes in, read without I/O: a
 * JWT's claims (what 'scontrol token' issues: "sun", the user, and "exp"),
 * the answer of 'scontrol token' ("SLURM_JWT=..."), and the PrivateData
 * line of 'scontrol show config'. gq serve --slurm (server/front_act.c)
 * runs the commands; this file only reads what they print.
 *
 * Nothing here verifies a token's signature: only slurmctld can (its key).
 * The claims read are for scheduling renewal and naming the user a token
 * says it is; whoever trusts that name must have Slurm accept the token
 * first.
 */
#ifndef GQ_WIRE_SLURMAUTH_H
#define GQ_WIRE_SLURMAUTH_H

#include <stddef.h>
#include <stdint.h>

#include "core/util.h"

#define JWT_MAX 4096 /* the longest token gq accepts, in bytes */

struct jwt_claims {
	char user[64]; /* "sun" (Slurm's user name claim), "" when absent */
	int64_t exp;   /* seconds since the epoch; 0 when absent */
	int64_t iat;   /* 0 when absent */
};

/* The claims of token (header.payload.signature, base64url, the payload
 * a JSON object). -1 with GQ_EINVAL and what is wrong (never the token's
 * text) when it is not a JWT; a missing claim is not an error. */
int jwt_claims_parse(const char *token, struct jwt_claims *out, struct gq_err *e);

/* base64url (RFC 4648 §5, padding optional) of in[len] into out[size]:
 * the number of bytes written, -1 when in is not base64url or out is too
 * small. */
long base64url_decode(const char *in, size_t len, unsigned char *out, size_t size);

/* The token in the answer of 'scontrol token': the value of its
 * "SLURM_JWT=" line, into out[size]. -1 with GQ_EINTERNAL when there is
 * none (or it is longer than size - 1). */
int slurm_token_answer_parse(const char *text, char *out, size_t size, struct gq_err *e);

/* PrivateData's flags as 'scontrol show config' prints them ("none",
 * "jobs,usage", "accounts,events,jobs,..."; "all" is every flag). */
enum slurm_private {
	SLURM_PRIVATE_JOBS = 1u << 0,
	SLURM_PRIVATE_NODES = 1u << 1,
	SLURM_PRIVATE_PARTITIONS = 1u << 2,
	SLURM_PRIVATE_OTHER = 1u << 3, /* accounts, events, reservations, usage, users */
};
/* The flags of the "PrivateData = ..." line of text (the whole answer of
 * 'scontrol show config'); -1 with GQ_EINTERNAL when it has no such line. */
int slurm_private_data_parse(const char *text, unsigned *out, struct gq_err *e);

#endif
