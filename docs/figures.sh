#!/usr/bin/env bash
# Regenerates the two figures the README and docs/ show, from the reports of the two published
# campaigns (cached results are reused; cold, shaking2007 takes several minutes):
#   bash docs/figures.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export CAMPAIGN_TRACE_DIR="${CAMPAIGN_TRACE_DIR:-$(cd .. && pwd)/shared/traces}"
cargo build --release --quiet
target/release/campaign run campaigns/paper2024.toml >/dev/null
target/release/campaign run campaigns/shaking2007.toml >/dev/null
cp results/paper2024/figures/timeline-kth-easy.svg docs/figures/madon2024-timeline-kth-easy.svg
cp results/shaking2007/figures/sweep-bounded_slowdown_mean-load.svg docs/figures/ouaknine2007-load-ctc.svg
ls -l docs/figures/*.svg
