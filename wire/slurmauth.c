/*
 * slurmauth.c - Slurm's identity texts (slurmauth.h): JWT claims through
 * a hand-written base64url decoder (neither libcurl nor jansson offers
 * one) and jansson, and the two lines of scontrol's answers gq reads.
 */
#include "slurmauth.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static int b64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '-')
		return 62;
	if (c == '_')
		return 63;
	return -1;
}

long base64url_decode(const char *in, size_t len, unsigned char *out, size_t size)
{
	while (len > 0 && in[len - 1] == '=')
		len--;
	if (len % 4 == 1)
		return -1;
	size_t n = 0;
	uint32_t acc = 0;
	int bits = 0;
	for (size_t i = 0; i < len; i++) {
		int v = b64_value((unsigned char)in[i]);
		if (v < 0)
			return -1;
		acc = (acc << 6) | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (n >= size)
				return -1;
			out[n++] = (unsigned char)(acc >> bits);
			acc &= (1u << bits) - 1;
		}
	}
	return (long)n;
}

int jwt_claims_parse(const char *token, struct jwt_claims *out, struct gq_err *e)
{
	size_t len = strlen(token);
	if (len == 0 || len >= JWT_MAX)
		return err_set(e, GQ_EINVAL, "not a Slurm token (%s)", len ? "too long" : "empty");
	const char *d1 = strchr(token, '.');
	const char *d2 = d1 ? strchr(d1 + 1, '.') : NULL;
	if (!d1 || !d2 || strchr(d2 + 1, '.'))
		return err_set(e, GQ_EINVAL,
			       "not a Slurm token (a JWT is three parts joined by dots)");
	unsigned char payload[JWT_MAX];
	long n = base64url_decode(d1 + 1, (size_t)(d2 - d1 - 1), payload, sizeof(payload) - 1);
	if (n <= 0)
		return err_set(e, GQ_EINVAL, "not a Slurm token (its payload is not base64url)");
	json_error_t je;
	json_t *o = json_loadb((const char *)payload, (size_t)n, 0, &je);
	if (!json_is_object(o)) {
		json_decref(o);
		return err_set(e, GQ_EINVAL,
			       "not a Slurm token (its payload is not a JSON object)");
	}
	struct jwt_claims c;
	memset(&c, 0, sizeof(c));
	const json_t *sun = json_object_get(o, "sun"), *exp = json_object_get(o, "exp"),
		     *iat = json_object_get(o, "iat");
	int rc = 0;
	if (sun && (!json_is_string(sun) || json_string_length(sun) >= sizeof(c.user) ||
		    strlen(json_string_value(sun)) != json_string_length(sun)))
		rc = err_set(e, GQ_EINVAL, "not a Slurm token (its user, \"sun\", is not a name)");
	else if ((exp && !json_is_integer(exp)) || (iat && !json_is_integer(iat)))
		rc = err_set(e, GQ_EINVAL,
			     "not a Slurm token (\"exp\" and \"iat\" must be integers)");
	if (rc == 0) {
		if (sun)
			snprintf(c.user, sizeof(c.user), "%s", json_string_value(sun));
		c.exp = exp ? (int64_t)json_integer_value(exp) : 0;
		c.iat = iat ? (int64_t)json_integer_value(iat) : 0;
		*out = c;
	}
	json_decref(o);
	return rc;
}

int slurm_token_answer_parse(const char *text, char *out, size_t size, struct gq_err *e)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (strncmp(l, "SLURM_JWT=", 10))
			continue;
		const char *v = l + 10;
		size_t n = strcspn(v, "\r\n");
		if (n == 0 || n >= size)
			break;
		memcpy(out, v, n);
		out[n] = '\0';
		return 0;
	}
	return err_set(e, GQ_EINTERNAL, "its answer has no SLURM_JWT= line");
}

int slurm_private_data_parse(const char *text, unsigned *out, struct gq_err *e)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (strncmp(l, "PrivateData", 11) || (l[11] != ' ' && l[11] != '='))
			continue;
		const char *v = l + 11;
		while (*v == ' ')
			v++;
		if (*v++ != '=')
			continue;
		while (*v == ' ')
			v++;
		unsigned f = 0;
		while (*v && *v != '\n' && *v != '\r') {
			size_t n = strcspn(v, ",\r\n");
			char w[32];
			snprintf(w, sizeof(w), "%.*s", (int)(n < 31 ? n : 31), v);
			if (!strcasecmp(w, "jobs"))
				f |= SLURM_PRIVATE_JOBS;
			else if (!strcasecmp(w, "nodes"))
				f |= SLURM_PRIVATE_NODES;
			else if (!strcasecmp(w, "partitions"))
				f |= SLURM_PRIVATE_PARTITIONS;
			else if (!strcasecmp(w, "all"))
				f |= SLURM_PRIVATE_JOBS | SLURM_PRIVATE_NODES |
				     SLURM_PRIVATE_PARTITIONS | SLURM_PRIVATE_OTHER;
			else if (strcasecmp(w, "none") && w[0])
				f |= SLURM_PRIVATE_OTHER;
			v += n;
			if (*v == ',')
				v++;
		}
		*out = f;
		return 0;
	}
	return err_set(e, GQ_EINTERNAL, "its answer has no PrivateData line");
}
