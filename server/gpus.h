/*
 * gpus.h - the GPU inventory of the machine gq serve runs on: what
 * nvidia-smi reports, or a configured number of slots where there is none.
 *
 * Not a monitor: it is read once at start-up and becomes the snapshot's
 * one node.
 */
#ifndef GQ_SERVER_GPUS_H
#define GQ_SERVER_GPUS_H

#include <stdint.h>

#include "core/job.h"
#include "core/util.h"

struct gpu_opts {
	int slots;		/* --gpus N: N slots without asking nvidia-smi; -1 = detect */
	const char *model;	/* --gpu-model; NULL: nvidia-smi's name, or "slot" */
	int64_t mem_mb;		/* --gpu-mem; -1: nvidia-smi's, or 0 */
	const char *nvidia_smi; /* the command to run, "nvidia-smi" by default */
	int cpus;		/* --cpus; -1: the machine's online CPUs */
	int64_t node_mem_mb;	/* --mem; -1: the machine's physical memory */
};

/* Fills *out (one node named after the host). Falls back to 8 slots when
 * nvidia-smi is absent or fails; *how says which ("nvidia-smi" / "slots"). */
int gpus_detect(const struct gpu_opts *o, struct node *out, const char **how, struct gq_err *e);

#endif
