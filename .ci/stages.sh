# Sourced by .ci/run: stages that say when they start and how long they took, a table of them
# all at the end (also when one fails), and the check that a build printed no warning.

ci_started=$(date +%s)
ci_table=$(mktemp)
ci_failed=""

# stage NAME COMMAND...: runs COMMAND as one stage, in a subshell where any failing command
# ends it (set -e holds inside: it would not in `COMMAND || ...`); its failure ends the run.
stage() {
    local name=$1 start status
    shift
    start=$(date +%s)
    echo
    echo "== $name (started $(date -u +%H:%M:%S), $(( start - ci_started )) s into the run)"
    set +e
    ( set -e; "$@" )
    status=$?
    set -e
    local took=$(( $(date +%s) - start ))
    printf '%s\t%s\t%s\n' "$name" "$took" "$status" >> "$ci_table"
    if [ $status -ne 0 ]; then
        ci_failed=$name
        echo "== $name FAILED (exit $status) after $took s"
        return $status
    fi
    echo "== $name: $took s"
}

# The table of stages, printed when the run ends, whatever the outcome.
stage_table() {
    local total=$(( $(date +%s) - ci_started ))
    echo
    echo "| stage | seconds |"
    echo "|---|---:|"
    while IFS=$'\t' read -r name took status; do
        if [ "$status" = 0 ]; then echo "| $name | $took |"; else echo "| $name (FAILED, exit $status) | $took |"; fi
    done < "$ci_table"
    echo "| **total** | **$total** ($(( total / 60 )) min $(( total % 60 )) s) |"
    [ -z "$ci_failed" ] || echo "CI failed in: $ci_failed"
    rm -f "$ci_table"
}
# A failure ends the run: builds still running in the background go too.
stop_background() {
    local pids
    pids=$(jobs -p)
    [ -z "$pids" ] || { pkill -P "$(echo $pids | tr ' ' ',')" 2>/dev/null; kill $pids 2>/dev/null; } || true
}
trap 'stage_table; stop_background' EXIT

# no_warnings LOG: fails, printing them, when the build output in LOG has a compiler or linker
# warning. Two exceptions are not ours: the static Swift runtime's Foundation uses mktemp, and
# GNU ld says so whenever it is linked statically; and gold cannot export a symbol the ASan
# runtime itself marks local (__asan_extra_spill_area), which it says on every sanitized link.
no_warnings() {
    local found
    # Compiler and linker diagnostics start with a path; SwiftPM's own with "warning:".
    found=$(grep -a -E '^(/.*: warning: |warning: )' "$1" \
        | grep -a -v -E "libFoundationEssentials\.a\(.*: warning: the use of .mktemp' is dangerous" \
        | grep -a -v -E "^/usr/bin/ld\.gold: warning: Cannot export local symbol '__asan_extra_spill_area'$" \
        || true)
    if [ -n "$found" ]; then
        echo "$found"
        echo "ci: the build printed $(printf '%s\n' "$found" | wc -l) warning line(s) (above); CI builds without warnings" >&2
        return 1
    fi
}

# build_checked LOG COMMAND...: runs a build, its output kept in LOG and shown, then checks it
# for warnings.
build_checked() {
    local log=$1
    shift
    "$@" 2>&1 | tee "$log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || return 1
    no_warnings "$log"
}
