#!/bin/bash
# t16: the GPU inventory. With nvidia-smi on PATH the node has its GPUs
# (count, model, memory); when it fails or is absent, 8 slots of model
# "slot"; --gpus, --gpu-model and --gpu-mem say otherwise. A fake
# nvidia-smi stands in for the real one on machines without GPUs.
. "$(dirname "$0")/lib.sh"
. "$T_SRC/api.sh"
mkdir -p "$T_DIR/bin"
cat >"$T_DIR/bin/nvidia-smi" <<'SH'
#!/bin/sh
[ -e "$(dirname "$0")/broken" ] && exit 9
echo "0, NVIDIA A100-SXM4-80GB, 81920"
echo "1, NVIDIA A100-SXM4-80GB, 81920"
echo "2, NVIDIA A100-SXM4-80GB, 81920"
SH
chmod +x "$T_DIR/bin/nvidia-smi"
export PATH="$T_DIR/bin:$PATH"

node() { api GET /v1/snapshot | jq -c '.nodes[0] | [.ngpus, .gpu_model, .gpu_mem_mb, .up]'; }
server_start
check_eq "GPUs from nvidia-smi" "$(node)" '[3,"a100-sxm4-80gb",81920,true]'
check_match "the log says where they came from" "$(cat "$T_DIR/server.log")" "ready: 3 GPUs \(nvidia-smi, model 'a100-sxm4-80gb'\)"
api POST /v1/jobs '{"argv":["sh","-c","echo $CUDA_VISIBLE_DEVICES"],"req":{"gpus":2,"gpu_type":"a100-sxm4-80gb"}}' >/dev/null
check "a job asking for the model runs" wait_state 1 completed
check_eq "on two of them" "$(api GET /v1/jobs/1/logs)" "0,1"
server_stop

touch "$T_DIR/bin/broken"
server_start
check_eq "nvidia-smi failing: 8 slots" "$(node)" '[8,"slot",0,true]'
server_stop

server_start --gpus 2 --gpu-model h100 --gpu-mem 94G
check_eq "--gpus, --gpu-model, --gpu-mem" "$(node)" '[2,"h100",96256,true]'
check_eq "a bad --gpus is a usage error" "$("$GQ" serve --gpus 0 2>&1; echo "rc=$?")" \
	"gq serve: --gpus: '0' is out of range (1..64); see 'gq serve -h'
rc=2"
finish
