#!/usr/bin/env bash
# The main job: set up what the package needs (no test tools, browser, database or Redis), then
# write the auditors' report: every known-answer vector verified through the public API, and the
# end-to-end demo of every flow, client and server side. It prints both as it goes and saves them
# as report/report.html (a page to read) and report/report.json.
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
esac
printf '== [1/2] set up (scripts/setup.sh --main)\n'
bash scripts/setup.sh --main
printf '\n== [2/2] the report: vectors, then the demo\n'
.venv/bin/ewc report --vectors vectors --out report
