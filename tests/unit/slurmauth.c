/* slurmauth.c - Slurm's identity texts (wire/slurmauth.h): base64url, a
 * JWT's claims as 'scontrol token' issues them, the token in scontrol's
 * answer, and PrivateData in 'scontrol show config', each with the inputs
 * that must be refused. Also gq serve --slurm's priority body. */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

#include "wire/slurmauth.h"
#include "wire/wire.h"

/* A token of the kit's (bob's, signed with its throwaway key): its payload
 * is {"exp":1796614207,"iat":1796527807,"sun":"bob"}. */
static const char kit_token[] = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
				"eyJleHAiOjE3OTY2MTQyMDcsImlhdCI6MTc5NjUyNzgwNywic3VuIjoiYm9iIn0."
				"NIu3YeM67p_TijBhMDdXh6mbGy63tdl2vlF77V9CxXk";

static void test_base64url_decodes_with_and_without_padding(void)
{
	unsigned char out[16];
	CHECK_INT(base64url_decode("aGk", 3, out, sizeof(out)), 2);
	CHECK(!memcmp(out, "hi", 2));
	CHECK_INT(base64url_decode("aGk=", 4, out, sizeof(out)), 2);
	CHECK_INT(base64url_decode("", 0, out, sizeof(out)), 0);
	/* '-' and '_' are 62 and 63 (where base64 has '+' and '/') */
	CHECK_INT(base64url_decode("-_8", 3, out, sizeof(out)), 2);
	CHECK_INT(out[0], 0xfb);
	CHECK_INT(out[1], 0xff);
}

static void test_base64url_refuses_what_is_not(void)
{
	unsigned char out[4];
	CHECK_INT(base64url_decode("a+b/", 4, out, sizeof(out)), -1);
	CHECK_INT(base64url_decode("a", 1, out, sizeof(out)), -1);
	CHECK_INT(base64url_decode("aGVsbG8", 7, out, sizeof(out)), -1); /* 5 bytes > 4 */
}

static void test_jwt_claims_of_a_kit_token(void)
{
	struct jwt_claims c;
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(jwt_claims_parse(kit_token, &c, &e), 0);
	CHECK_STR(c.user, "bob");
	CHECK_INT(c.exp, 1796614207);
	CHECK_INT(c.iat, 1796527807);
}

static void test_jwt_claims_refuse_what_is_not_a_jwt(void)
{
	struct jwt_claims c;
	memset(&c, 0x5a, sizeof(c));
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(jwt_claims_parse("", &c, &e), -1);
	CHECK_INT(e.code, GQ_EINVAL);
	CHECK_INT(jwt_claims_parse("abc.def", &c, &e), -1);
	CHECK_STR(e.msg, "not a Slurm token (a JWT is three parts joined by dots)");
	CHECK_INT(jwt_claims_parse("a.b.c.d", &c, &e), -1);
	/* "not json" */
	CHECK_INT(jwt_claims_parse("x.bm90IGpzb24.y", &c, &e), -1);
	CHECK_STR(e.msg, "not a Slurm token (its payload is not a JSON object)");
	/* {"exp":"soon","sun":"bob"} */
	CHECK_INT(jwt_claims_parse("x.eyJleHAiOiJzb29uIiwic3VuIjoiYm9iIn0.y", &c, &e), -1);
	CHECK_STR(e.msg, "not a Slurm token (\"exp\" and \"iat\" must be integers)");
	/* {"sun":7} */
	CHECK_INT(jwt_claims_parse("x.eyJzdW4iOjd9.y", &c, &e), -1);
	/* out untouched on failure; the message never carries the token */
	CHECK_INT(c.exp, 0x5a5a5a5a5a5a5a5a);
	CHECK(!strstr(e.msg, "eyJ"));
}

static void test_jwt_claims_missing_are_empty(void)
{
	struct jwt_claims c;
	struct gq_err e = GQ_ERR_INIT;
	/* {} */
	CHECK_INT(jwt_claims_parse("x.e30.y", &c, &e), 0);
	CHECK_STR(c.user, "");
	CHECK_INT(c.exp, 0);
}

static void test_scontrol_token_answer(void)
{
	char tok[JWT_MAX];
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(slurm_token_answer_parse("SLURM_JWT=aa.bb.cc\n", tok, sizeof(tok), &e), 0);
	CHECK_STR(tok, "aa.bb.cc");
	CHECK_INT(slurm_token_answer_parse("note\nSLURM_JWT=x.y.z\r\n", tok, sizeof(tok), &e), 0);
	CHECK_STR(tok, "x.y.z");
	CHECK_INT(
	    slurm_token_answer_parse("scontrol: error: slurm_fetch_token: error with request: "
				     "Invalid user id\nError fetching token\n",
				     tok, sizeof(tok), &e),
	    -1);
	CHECK_STR(e.msg, "its answer has no SLURM_JWT= line");
	CHECK_INT(slurm_token_answer_parse("SLURM_JWT=\n", tok, sizeof(tok), &e), -1);
	CHECK_INT(slurm_token_answer_parse("SLURM_JWT=abcdef\n", tok, 4, &e), -1);
}

static void test_private_data_flags(void)
{
	unsigned f = 99;
	struct gq_err e = GQ_ERR_INIT;
	const char *conf = "SlurmUser               = slurm(64030)\n"
			   "PrivateData             = none\n"
			   "ProctrackType           = proctrack/linuxproc\n";
	CHECK_INT(slurm_private_data_parse(conf, &f, &e), 0);
	CHECK_INT(f, 0);
	CHECK_INT(slurm_private_data_parse("PrivateData = jobs,usage\n", &f, &e), 0);
	CHECK_INT(f, SLURM_PRIVATE_JOBS | SLURM_PRIVATE_OTHER);
	CHECK_INT(slurm_private_data_parse("X = 1\nPrivateData = accounts,events,nodes\n", &f, &e),
		  0);
	CHECK_INT(f, SLURM_PRIVATE_NODES | SLURM_PRIVATE_OTHER);
	CHECK_INT(slurm_private_data_parse("PrivateData=partitions,JOBS\n", &f, &e), 0);
	CHECK_INT(f, SLURM_PRIVATE_PARTITIONS | SLURM_PRIVATE_JOBS);
	CHECK_INT(slurm_private_data_parse("PrivateData = all", &f, &e), 0);
	CHECK(f & SLURM_PRIVATE_JOBS);
	/* PrivateDataX is another key; no line at all is an error */
	CHECK_INT(slurm_private_data_parse("PrivateDataX = jobs\n", &f, &e), -1);
	CHECK_INT(slurm_private_data_parse("", &f, &e), -1);
	CHECK_STR(e.msg, "its answer has no PrivateData line");
}

static void test_priority_body(void)
{
	int64_t p = 0;
	struct gq_err e = GQ_ERR_INIT;
	char *t = wire_priority_text(100000);
	CHECK_INT(wire_priority_parse(t, strlen(t), &p, &e), 0);
	CHECK_INT(p, 100000);
	free(t);
	CHECK_INT(wire_priority_parse("{\"priority\":0}", 14, &p, &e), -1);
	CHECK_INT(wire_priority_parse("{\"priority\":4294967294}", 23, &p, &e), -1);
	CHECK_INT(wire_priority_parse("{\"priority\":\"5\"}", 16, &p, &e), -1);
	CHECK_INT(wire_priority_parse("{\"prio\":5}", 10, &p, &e), -1);
}

void suite_slurmauth(void)
{
	RUN(test_base64url_decodes_with_and_without_padding);
	RUN(test_base64url_refuses_what_is_not);
	RUN(test_jwt_claims_of_a_kit_token);
	RUN(test_jwt_claims_refuse_what_is_not_a_jwt);
	RUN(test_jwt_claims_missing_are_empty);
	RUN(test_scontrol_token_answer);
	RUN(test_private_data_flags);
	RUN(test_priority_body);
}
