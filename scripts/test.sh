#!/usr/bin/env bash
# Runs every test (built already), one at a time, keeping the whole output in .build/test-output.log.
# When the run fails, what failed is printed again at the end: CI shows the tail of a run, and the
# failed tests' issues are otherwise thousands of lines up (known issues are left out). A run that
# has not ended after PUSHLINE_TEST_TIMEOUT_SECONDS (default 4200; a whole run takes about 2300)
# is stopped, naming the tests that started and never ended.
# Usage: scripts/test.sh [swift command and its own arguments]   (default: swift)
set -uo pipefail
[ $# -gt 0 ] || set -- swift
limit="${PUSHLINE_TEST_TIMEOUT_SECONDS:-4200}"
log=.build/test-output.log
mkdir -p .build
timeout --kill-after=30 "$limit" "$@" test --skip-build --no-parallel 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    echo
    echo "── The run was stopped after $limit s (PUSHLINE_TEST_TIMEOUT_SECONDS); tests started and never ended: ──"
    # A test's start line is `◇ Test <name> started.`; its end `✔ Test <name> passed after …` or
    # `✘ Test <name> failed after …` (`━` when it passed with known issues).
    awk '/^◇ Test / && !/^◇ Test case / && / started\.$/ { name = substr($0, index($0, "Test ") + 5); sub(/ started\.$/, "", name); open[name] = 1 }
         /^(✔|✘|━) Test / && /( passed| failed) after / { name = substr($0, index($0, "Test ") + 5); sub(/ (passed|failed) after .*$/, "", name); delete open[name] }
         END { for (name in open) print "◇ " name }' "$log"
elif [ "$status" -ne 0 ]; then
    echo
    echo "── What failed (the whole run's output is in $log) ──"
    # Each issue's line and the lines that continue it (its message, comments), up to the next event
    # (`━` marks known issues, `⚠` warnings).
    failures=$(awk '/^✘ / { print; more = 20; next }
                    /^(◇|✔|✘|➜|━|⚠)/ { more = 0; next }
                    more > 0 { print; more-- }' "$log")
    if [ -n "$failures" ]; then
        echo "$failures"
    else
        # No issue recorded: the test process ended otherwise (a crash, a signal).
        echo "(no test recorded an issue; the run's last lines:)"
        tail -n 40 "$log"
    fi
fi
exit "$status"
