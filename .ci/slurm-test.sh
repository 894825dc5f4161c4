#!/bin/bash
# CI: batches on a real scheduler. Installs Debian's slurm-wlm and munge when missing, starts
# a one-node Slurm cluster on this machine (munged, slurmctld and slurmd on localhost, with a
# private key, socket, configuration and ports; no cgroups), and submits
# samples/cluster/filterchain.sbatch as an array of 4 tasks, 2 at a time, over 43 images: the
# samples at 10 sizes and one large image, all made with filterchain itself, and two damaged
# files. It checks, with an independent reading of the reports in Python:
#   1. the outputs are byte-identical to one local run of the same list, and
#      `filterchain report merge` accounts for every input exactly once, naming the two
#      damaged files as failed;
#   2. a task cancelled with scancel while it renders the large image (its temporary output
#      is there, its earlier inputs done) leaves no partial file; `report merge` then names
#      the inputs it never reached; the array resubmitted finishes them with --skip-existing,
#      nothing done twice, the outputs byte-identical to the local run;
#   3. an array with another minimum and a step (--array=3-10:2) makes shares 1/4 to 4/4.
# The cluster is stopped at the end, whatever happens.
#
#   .ci/slurm-test.sh [FILTERCHAIN]      (default .build/release/filterchain; runs as root)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
started=$(date +%s)
fc=$(realpath "${1:-.build/release/filterchain}")
[ -x "$fc" ] || { echo "slurm-test: no filterchain binary at $fc (swift build -c release first)" >&2; exit 1; }
if [ "$(id -u)" -ne 0 ]; then exec sudo "$0" "$fc"; fi

missing=""
for package in slurm-wlm munge python3; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing="$missing $package"
done
if [ -n "$missing" ]; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y $missing
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/filterchain-slurm.XXXXXX")
chmod 755 "$work"            # munged wants its socket's folder searchable by all
export SLURM_CONF=$work/slurm.conf
say() { echo "slurm-test: $*"; }
fail() { echo "slurm-test: FAILED: $*" >&2; exit 1; }

stop_cluster() {
    status=$?
    set +e
    if [ -f "$work/slurmctld.pid" ]; then scancel --quiet --user=root 2>/dev/null; sleep 1; fi
    for daemon in slurmd slurmctld; do
        if [ -f "$work/$daemon.pid" ]; then
            pid=$(cat "$work/$daemon.pid")
            kill "$pid" 2>/dev/null
            for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        fi
    done
    [ -S "$work/munge.socket" ] && munged --stop --socket="$work/munge.socket" >/dev/null 2>&1
    if [ "$status" -ne 0 ]; then
        for log in slurmctld.log slurmd.log; do echo "== $log (last 20 lines)"; tail -n 20 "$work/$log" 2>/dev/null; done
        for log in "$work"/logs/*.log; do [ -f "$log" ] && { echo "== $(basename "$log")"; cat "$log"; }; done
        echo "slurm-test: kept $work"
    else
        rm -rf "$work"
        say "passed in $(( $(date +%s) - started )) s, the cluster stopped"
    fi
    exit "$status"
}
trap stop_cluster EXIT
trap 'exit 130' INT TERM

# --- the cluster -----------------------------------------------------------------------
mungekey --create --keyfile="$work/munge.key"
munged --socket="$work/munge.socket" --key-file="$work/munge.key" --pid-file="$work/munged.pid" \
    --log-file="$work/munged.log" --seed-file="$work/munged.seed"
mkdir -p "$work/state" "$work/spool" "$work/logs"
cat > "$SLURM_CONF" <<EOF
ClusterName=filterchain-ci
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge.socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
KillWait=10
MinJobAge=600
NodeName=ci NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=ci Nodes=ci Default=YES MaxTime=30 State=UP
EOF
slurmctld -i
slurmd -N ci
for _ in $(seq 100); do
    [ "$(sinfo -h -o %T 2>/dev/null)" = "idle" ] && break
    sleep 0.3
done
[ "$(sinfo -h -o %T)" = "idle" ] || fail "the node did not come up: $(sinfo 2>&1)"
say "one-node cluster up ($(sinfo -h -o '%P %D node, %c CPUs, %T'))"

# --- the images --------------------------------------------------------------------------
images=$work/in
mkdir -p "$images"
chain=$root/samples/chains/look.json
for width in 64 96 128 160 200 256 320 400 512 640; do
    "$fc" chain new "$work/w$width.json"
    "$fc" chain add "$work/w$width.json" resize width=$width >/dev/null
    for sample in chelsea.png coffee.png camera.png rocket.jpg; do
        "$fc" apply "$work/w$width.json" "samples/$sample" "$images/${sample%.*}-$width.${sample##*.}"
    done
done
# One large image (6000 x 4000): seconds of work on one thread, long enough to be cancelled
# while it renders.
"$fc" chain new "$work/large.json"
"$fc" chain add "$work/large.json" resize width=6000 >/dev/null
"$fc" apply "$work/large.json" samples/coffee.png "$images/large.png"
# Two damaged files: a JPEG cut in half, a PNG with a corrupted compressed block.
head -c "$(( $(stat -c %s "$images/rocket-640.jpg") / 2 ))" "$images/rocket-640.jpg" > "$images/damaged-cut.jpg"
cp "$images/coffee-640.png" "$images/damaged-bytes.png"
printf '\377\377\377\377\377\377\377\377' | dd of="$images/damaged-bytes.png" bs=1 seek=$(( $(stat -c %s "$images/coffee-640.png") / 2 )) conv=notrunc status=none

# The list: input k is in share k % 4 + 1, task k % 4 of --array=0-3. The large image is the
# third input of task 2 (positions 2, 6, 10); the damaged files go to tasks 1 and 3.
list=$work/list.txt
ls "$images"/*-*.* | grep -v damaged | grep -v large | sort > "$work/sizes.txt"
python3 - "$work/sizes.txt" "$list" "$images" <<'EOF'
import sys
sizes = open(sys.argv[1]).read().split()
folder = sys.argv[3]
order = sizes[:10] + [folder + "/large.png"] + sizes[10:]
order.insert(13, folder + "/damaged-cut.jpg")
order.insert(31, folder + "/damaged-bytes.png")
assert order.index(folder + "/large.png") % 4 == 2 and order[13].endswith("cut.jpg") and order[31].endswith("bytes.png")
open(sys.argv[2], "w").write("".join(p + "\n" for p in order))
EOF
count=$(wc -l < "$list")
[ "$count" -ge 43 ] || fail "only $count inputs"
say "$count inputs: 4 samples at 10 sizes, one 6000 x 4000 image, two damaged files"

# One local run of the same list: the reference bytes.
set +e
"$fc" apply "$chain" --files-from "$list" --output-dir "$work/local" --quiet 2>"$work/local.err"
local_status=$?
set -e
[ "$local_status" -eq 1 ] || fail "the local run exited $local_status, not 1 (two damaged inputs): $(cat "$work/local.err")"
[ "$(ls "$work/local" | wc -l)" -eq $((count - 2)) ] || fail "the local run wrote $(ls "$work/local" | wc -l) files"

# --- helpers -----------------------------------------------------------------------------
submit() {   # submit OUTPUT_DIR RUN_NAME [ARRAY [CHAIN LIST]]: the recipe as an array, by default of 4 tasks, 2 at a time
    FILTERCHAIN=$fc sbatch --parsable --array="${3:-0-3%2}" --chdir="$work" --output="$work/logs/$2-%a.log" \
        samples/cluster/filterchain.sbatch "${4:-$chain}" "${5:-$list}" "$1" | cut -d';' -f1
}
wait_for() {  # wait_for JOB_ID: until no task of the array is queued or running (3 minutes at most)
    for _ in $(seq 1800); do
        [ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && return 0
        sleep 0.1
    done
    fail "job $1 still running after 3 minutes: $(squeue -j "$1")"
}
task_states() {  # task_states JOB_ID: "0 COMPLETED 0:0" ... per task
    scontrol -o show job "$1" | sed -n 's/.*ArrayTaskId=\([0-9]*\) .*JobState=\([A-Z]*\) .*ExitCode=\([0-9:]*\) .*/\1 \2 \3/p' | sort -n
}
same_as_local() {  # same_as_local OUTPUT_DIR: the same files, the same bytes, nothing else
    [ "$(ls -A "$1")" = "$(ls -A "$work/local")" ] || fail "$1 holds other files than the local run: $(diff <(ls -A "$1") <(ls -A "$work/local") | head)"
    for file in "$work/local"/*; do
        cmp -s "$file" "$1/$(basename "$file")" || fail "$1/$(basename "$file") differs from the local run's"
    done
}
# check RUN_DIR: the merge's JSON against the reports read independently. Every input of
# the list is accounted exactly once (latest record of its one share), the two damaged ones
# failed, nothing in two shares, nothing done twice.
check() {
    set +e
    "$fc" report merge "$1-reports"/*.jsonl --files-from "$list" --json > "$work/merge.json"
    merge_status=$?
    set -e
    [ "$merge_status" -eq 1 ] || fail "report merge exited $merge_status, not 1 (two inputs failed)"
    python3 - "$list" "$work/merge.json" "$1-reports" <<'EOF'
import json, sys, glob, collections
inputs = open(sys.argv[1]).read().split("\n")[:-1]
merge = json.load(open(sys.argv[2]))
damaged = sorted(p for p in inputs if "damaged" in p)
records = collections.defaultdict(list)
for report in sorted(glob.glob(sys.argv[3] + "/*.jsonl")):
    for line in open(report):
        r = json.loads(line)
        records[r["input"]].append(r)
problems = []
for p in inputs:
    rs = records.get(p, [])
    shards = {r["shard"] for r in rs}
    done = sum(r["status"] == "done" for r in rs)
    expected = "failed" if p in damaged else "done"
    final = rs[-1]["status"] if rs else None
    if len(shards) != 1: problems.append(f"{p}: in shards {sorted(shards)}")
    if expected == "done" and done != 1: problems.append(f"{p}: done {done} times")
    if expected == "failed" and (done or final != "failed"): problems.append(f"{p}: {[r['status'] for r in rs]}")
    if expected == "done" and final not in ("done", "skipped"): problems.append(f"{p}: last {final}")
if set(records) - set(inputs): problems.append(f"not in the list: {sorted(set(records) - set(inputs))}")
failed = sorted(f["input"] for f in merge["failed"])
if failed != damaged: problems.append(f"merge says failed {failed}, not {damaged}")
if merge["missing"] or merge["duplicated"] or merge["unreadable"] or merge["unlisted"]:
    problems.append(f"merge: missing {merge['missing']}, duplicated {merge['duplicated']}, unreadable {merge['unreadable']}")
if merge["inputs"] != len(inputs) or merge["done"] + merge["skipped"] != len(inputs) - 2 or merge["complete"]:
    problems.append(f"merge counts: {merge['inputs']} inputs, {merge['done']} done, {merge['skipped']} skipped")
if problems:
    sys.exit("slurm-test: FAILED: " + "; ".join(problems))
EOF
}

# --- 1. the array over the list ------------------------------------------------------------
job=$(submit "$work/run1" run1)
say "run 1: job $job, --array=0-3%2"
wait_for "$job"
say "run 1 tasks (id, state, exit): $(task_states "$job" | tr '\n' ',' | sed 's/,$//')"
same_as_local "$work/run1"
check "$work/run1"
large=$(grep -h '/large.png"' "$work/run1-reports"/*.jsonl | python3 -c 'import sys, json; print(json.loads(sys.stdin.readline())["seconds"])')
say "run 1: outputs byte-identical to the local run (large.png took $large s in task 2); report merge says:"
set +e
"$fc" report merge "$work/run1-reports"/*.jsonl --files-from "$list" | sed 's/^/    /'
set -e

# --- 2. a task cancelled mid-run, the array resubmitted ------------------------------------
job=$(submit "$work/run2" run2a)
say "run 2: job $job; cancelling task 2 while it renders large.png"
seen=""
for _ in $(seq 1800); do
    if compgen -G "$work/run2/.large.png.filterchain-*" >/dev/null; then seen=yes; break; fi
    [ -e "$work/run2/large.png" ] && fail "large.png was finished before the test saw it rendering"
    [ -z "$(squeue -h -j "$job")" ] && fail "the array ended before task 2 reached large.png"
    sleep 0.1
done
[ -n "$seen" ] || fail "task 2 did not start large.png within 3 minutes"
before=$(grep -c '"status":"done"' "$work/run2-reports/shard-3.jsonl" || true)
scancel "${job}_2"
wait_for "$job"
say "run 2 tasks: $(task_states "$job" | tr '\n' ',' | sed 's/,$//')"
task_states "$job" | grep -q '^2 CANCELLED' || fail "task 2 was not cancelled"
[ "$before" -ge 2 ] || fail "task 2 had done $before inputs when cancelled, not its first 2"
leftovers=$(find "$work/run2" -name '.*' -type f)
[ -z "$leftovers" ] || fail "partial files left: $leftovers"
[ ! -e "$work/run2/large.png" ] || fail "large.png exists after its task was cancelled"
set +e
"$fc" report merge "$work/run2-reports"/*.jsonl --files-from "$list" > "$work/merge-cancelled.txt"
merge_status=$?
set -e
[ "$merge_status" -eq 1 ] || fail "report merge after the cancel exited $merge_status"
grep -q "^in no report:" "$work/merge-cancelled.txt" && grep -q "/large.png$" "$work/merge-cancelled.txt" \
    || fail "report merge does not name large.png as in no report: $(cat "$work/merge-cancelled.txt")"
say "after the cancel ($before inputs of task 2 done, no partial file), report merge says: $(head -n 1 "$work/merge-cancelled.txt")"

job=$(submit "$work/run2" run2b)
say "run 2 resubmitted: job $job"
wait_for "$job"
say "run 2 resubmitted tasks: $(task_states "$job" | tr '\n' ',' | sed 's/,$//')"
leftovers=$(find "$work/run2" -name '.*' -type f)
[ -z "$leftovers" ] || fail "partial files left: $leftovers"
same_as_local "$work/run2"
check "$work/run2"
say "run 2: outputs byte-identical to the local run; report merge says:"
set +e
"$fc" report merge "$work/run2-reports"/*.jsonl --files-from "$list" | sed 's/^/    /'
set -e

# --- 3. an array with another minimum and a step ---------------------------------------------
# --array=3-10:2 runs tasks 3, 5, 7 and 9: shares 1/4 to 4/4 again, each input once.
head -n 12 "$list" | grep -v -e damaged -e large > "$work/short.txt"
job=$(submit "$work/run3" run3 3-10:2%2 "$root/samples/chains/invert.json" "$work/short.txt")
wait_for "$job"
say "run 3 (--array=3-10:2%2) tasks: $(task_states "$job" | tr '\n' ',' | sed 's/,$//')"
grep -h '^shard ' "$work"/logs/run3-*.log | sed 's/^/    /'
"$fc" report merge "$work/run3-reports"/*.jsonl --files-from "$work/short.txt" > "$work/merge3.txt" \
    || fail "report merge of run 3: $(cat "$work/merge3.txt")"
shares=$(cat "$work/run3-reports"/*.jsonl | python3 -c 'import sys, json; print(" ".join(sorted({json.loads(l)["shard"] for l in sys.stdin})))')
[ "$shares" = "1/4 2/4 3/4 4/4" ] || fail "run 3 made shares $shares"
say "run 3: $(head -n 1 "$work/merge3.txt")"
