#!/bin/sh
# a comment
#GQ --gpus 2 --tier P2
#GQ --name "scripted" --hold
echo from the script
#GQ --gpus 7
