#!/bin/sh
# GNU parallel over ssh: 8 shares of LIST on the hosts given (each sees the same paths, on
# a shared file system, and has filterchain on PATH); ':' is this machine.
#
#   samples/cluster/parallel-ssh.sh CHAIN LIST OUTPUT_DIR host1,host2,:
#   filterchain report merge OUTPUT_DIR-reports/*.jsonl --files-from LIST
set -eu
seq 8 | parallel -S "$4" --workdir . filterchain apply "$1" --files-from "$2" --output-dir "$3" \
    --shard {}/8 --skip-existing --report "${3%/}-reports/shard-{}.jsonl" --jobs 1 --threads 1 --quiet
