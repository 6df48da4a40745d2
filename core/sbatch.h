/*
 * sbatch.h - what a batch script's #SBATCH lines ask for.
 *
 * sbatch reads these lines on the client (slurmrestd does not), so a gq
 * that submits to Slurm reads them itself for existing scripts to work
 * unchanged. This file only reads the text; which of the requests a
 * scheduler can carry, and how gq's own options win over them, is the
 * backend's business. Pure: no I/O, no environment.
 */
#ifndef GQ_CORE_SBATCH_H
#define GQ_CORE_SBATCH_H

#include <stdbool.h>
#include <stdint.h>

/* How many options not honoured (or with a value that cannot be read) are
 * remembered; more are counted in nskipped only. */
#define SBATCH_MAX_SKIPPED 16

/* Why an option is in skipped[]. */
enum sbatch_skip {
	SBATCH_UNKNOWN, /* gq does not honour this option */
	SBATCH_BADVAL,	/* gq honours it, but cannot read this value */
};

struct sbatch_skipped {
	char opt[48];	/* as written: "--mem-per-cpu", "-w" */
	char value[64]; /* its value ("" none), cut to fit */
	enum sbatch_skip why;
};

/* Every string is "" when the script does not give it; numbers are 0 (gpus
 * -1) when not given. Values are kept as written where Slurm reads the
 * same text (partition, dependency, array, begin, mail-type, export). */
struct sbatch {
	char name[64], partition[64], qos[32], account[32];
	char output[256], error[256], chdir[256];
	char dependency[128], begin[64], array[128], constraint[128];
	char mail_type[64], mail_user[128];
	char reservation[64];
	char exclusive[16]; /* "exclusive" (the whole node), "user", "mcs" or "" */
	char export_env[512];
	char gpu_type[32];
	int gpus;		  /* -1: none; per node when gpus_per_node, else the job's */
	bool gpus_per_node;	  /* --gres / --gpus-per-node (true), --gpus (false) */
	int nodes_min, nodes_max; /* -N MIN[-MAX]; max 0: MIN only */
	int ntasks, ntasks_per_node, cpus_per_task;
	bool hold;
	int64_t mem_mb;	    /* per node */
	int64_t time_limit; /* seconds; 0: none or UNLIMITED */
	int nlines;	    /* #SBATCH lines read */
	struct sbatch_skipped skipped[SBATCH_MAX_SKIPPED];
	int nskipped; /* may exceed SBATCH_MAX_SKIPPED */
};

/*
 * Reads the #SBATCH lines of script: after the shebang, comments and blank
 * lines, up to the first line of code, as sbatch does. Options take their
 * value as "--opt=V", "--opt V", "-xV" or "-x V"; a value may be in double
 * quotes; "#" after the options starts a comment. Fills out (which needs no
 * initialisation); never fails.
 */
void sbatch_parse(const char *script, struct sbatch *out);

/* Slurm's time forms (M, M:S, H:M:S, D-H, D-H:M, D-H:M:S) as seconds; -1
 * when v is none of them, 0 for UNLIMITED / INFINITE. */
int64_t sbatch_time(const char *v);

#endif
