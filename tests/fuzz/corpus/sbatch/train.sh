#!/bin/bash
#SBATCH -J train -p gpu -q p0 -A proj_a
#SBATCH --output=out/%j.log --error err/%x-%j.log
#SBATCH -N 2-4 --ntasks=8 --ntasks-per-node=4 -c 6
#SBATCH -C a100 --array=0-9%2 --exclusive=user
#SBATCH --mail-type=END,FAIL --mail-user "alice@example.com"
#SBATCH -t 1-02:03:04 --mem=16G --gres=gpu:a100:4
#SBATCH -D /scratch --export=NONE,X=1 --mem-per-cpu=2G --requeue -w gpu1
srun python train.py
