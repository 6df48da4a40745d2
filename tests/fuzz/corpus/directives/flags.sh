#!/bin/bash
# every flag
#GQ --gpus 2 --gpu-type a100 --gpu-mem 80G --same-node
#GQ --cpus 8 --mem 64G --tier P0 --queue exp
#GQ --name 'train "big"' --time-limit 1d2h --estimate 02:30:00
#GQ	--checkpointable --after 1,#2 --hold --json

python train.py
