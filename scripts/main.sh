#!/usr/bin/env bash
# The main job: set up, verify every known-answer vector through the public API (the auditors'
# report), then run the end-to-end demo of every flow, client and server side.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ewc vectors verify vectors
.venv/bin/ewc demo
