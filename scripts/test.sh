#!/usr/bin/env bash
# Runs every test (built already), one at a time, keeping the whole output in .build/test-output.log.
# When the run fails, what failed is printed again at the end: CI shows the tail of a run, and the
# failed tests' issues are otherwise thousands of lines up (known issues are left out).
set -uo pipefail
swift="${1:-swift}"
log=.build/test-output.log
"$swift" test --skip-build --no-parallel 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
    echo
    echo "── What failed (the whole run's output is in $log) ──"
    # Each issue's line and the lines that continue it (its message, comments), up to the next event.
    awk '/^✘ / && !/recorded a known issue/ { print; more = 20; next }
         /^(◇|✔|✘|➜) / { more = 0; next }
         more > 0 { print; more-- }' "$log"
fi
exit "$status"
