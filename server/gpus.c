/*
 * gpus.c - asks nvidia-smi for the GPUs (index, name, memory) or makes
 * slots.
 */
#include "gpus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define DEFAULT_SLOTS 8

static int from_nvidia_smi(const char *cmd, struct node *n)
{
	char *line =
	    xasprintf("%s --query-gpu=index,name,memory.total --format=csv,noheader,nounits "
		      "2>/dev/null",
		      cmd);
	FILE *p = popen(line, "r");
	free(line);
	if (!p)
		return -1;
	char buf[512];
	int count = 0;
	while (fgets(buf, sizeof(buf), p) && count < GQ_MAX_NODE_GPUS) {
		char *name = strchr(buf, ',');
		char *mem = name ? strchr(name + 1, ',') : NULL;
		if (!name || !mem)
			continue;
		*name++ = '\0';
		*mem++ = '\0';
		while (*name == ' ')
			name++;
		/* "NVIDIA A100-SXM4-80GB" -> "a100-sxm4-80gb": a name_valid()
		 * token users can type. */
		const char *nm = !strncmp(name, "NVIDIA ", 7) ? name + 7 : name;
		char model[32];
		size_t k = 0;
		for (; *nm && *nm != '\n' && k < sizeof(model) - 1; nm++)
			model[k++] = (*nm == ' ')
					 ? '-'
					 : (char)((*nm >= 'A' && *nm <= 'Z') ? *nm + 32 : *nm);
		model[k] = '\0';
		if (count == 0) {
			STR_COPY(n->gpu_model, model);
			n->gpu_mem_mb = strtoll(mem, NULL, 10);
		}
		count++;
	}
	int st = pclose(p);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0 || count == 0)
		return -1;
	n->ngpus = count;
	return 0;
}

int gpus_detect(const struct gpu_opts *o, struct node *out, const char **how, struct gq_err *e)
{
	struct node n;
	memset(&n, 0, sizeof(n));
	n.up = true;
	if (gethostname(n.name, sizeof(n.name) - 1) < 0 || !n.name[0])
		STR_COPY(n.name, "local");
	n.cpus = o->cpus > 0 ? o->cpus : (int)sysconf(_SC_NPROCESSORS_ONLN);
	n.mem_mb = o->node_mem_mb > 0 ? o->node_mem_mb
				      : (int64_t)sysconf(_SC_PHYS_PAGES) / 1024 *
					    (int64_t)sysconf(_SC_PAGESIZE) / 1024;
	if (o->slots < 0 &&
	    from_nvidia_smi(o->nvidia_smi ? o->nvidia_smi : "nvidia-smi", &n) == 0) {
		*how = "nvidia-smi";
	} else {
		n.ngpus = o->slots < 0 ? DEFAULT_SLOTS : o->slots;
		STR_COPY(n.gpu_model, "slot");
		*how = "slots";
	}
	if (n.ngpus > GQ_MAX_NODE_GPUS)
		return err_set(e, GQ_EINVAL, "--gpus %d: at most %d GPUs per machine", n.ngpus,
			       GQ_MAX_NODE_GPUS);
	if (o->model) {
		if (!name_valid(o->model) || strlen(o->model) >= sizeof(n.gpu_model))
			return err_set(e, GQ_EINVAL, "--gpu-model '%s': use 1-31 of [A-Za-z0-9._-]",
				       o->model);
		STR_COPY(n.gpu_model, o->model);
	}
	if (o->mem_mb >= 0)
		n.gpu_mem_mb = o->mem_mb;
	*out = n;
	return 0;
}
