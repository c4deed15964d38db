#!/usr/bin/env bash
# Re-runs every experiment of the CacheRoute paper (seed 003) and the canary
# note (seed 000) from scenarios/paper/, then writes the side-by-side tables of
# docs/REPRODUCING.md and the plots.
#
#   scripts/reproduce.sh [OUT_DIR [NAME...]]   (default: reproduce/ in the repository)
#
# With NAMEs (flagship, second_k128, regime_share0.5_sigma1, canary_lambda10, ...: the
# first argument of each run below) only those runs are made; the tables then
# cover every result in OUT_DIR, from this call or an earlier one.
#
# Needs a Release build (scripts/bootstrap.sh run or test makes one). Each run
# writes OUT_DIR/NAME.h5 and NAME.txt; OUT_DIR/timings.txt has the wall and
# CPU seconds of each; OUT_DIR/tables.md the tables; OUT_DIR/plots/NAME/ the
# PNGs of `kvroute report --plots`; OUT_DIR/regimes.md and plots/regimes.png the
# regimes figure (scripts/regimes_figure.py). scripts/update_reproducing.py OUT_DIR
# then writes the tables and figures into docs/REPRODUCING.md and docs/reproducing/.
set -euo pipefail
out=$(realpath -m "${1:-$(dirname "$0")/../reproduce}")  # relative to where it is run from
cd "$(dirname "$0")/.."
kvroute=build/release/kvroute
python=${KVROUTE_PYTHON:-/usr/bin/python3}
jobs=$(nproc)
only=("${@:2}")

# wanted NAME: true when NAME is to run
wanted() {
  [ ${#only[@]} -eq 0 ] && return 0
  local n
  for n in "${only[@]}"; do [ "$n" = "$1" ] && return 0; done
  return 1
}
if [ ! -x "$kvroute" ]; then
  echo "no $kvroute: run scripts/bootstrap.sh test first" >&2
  exit 1
fi
mkdir -p "$out/plots"
[ ${#only[@]} -eq 0 ] && : >"$out/timings.txt"

# §5.6's bootstrap resamples measured gaps; of the traces in ../shared/traces the
# Azure 2023 code trace has the burstiest inter-arrival gaps (CV 13.2, against 1.09
# for Azure conversation, 1.01 for Mooncake synthetic and 3.03 for Mooncake
# conversation, whose timestamps are rounded to 3 s), so it is the source; blocks
# of 64 gaps keep their short-range correlation (docs/reproducing/BURSTINESS.md);
# blocks of 1 and 1,024 are run too. The short-output flagship draws its lengths
# from the same trace.
azure_code=../shared/traces/azure2023/AzureLLMInferenceTrace_code.csv

# timed NAME OUTPUT COMMAND...: runs COMMAND, its output to OUTPUT and its own
# messages to OUT/NAME.err, and sets the caller's `report` to time's report (in
# the caller's TIMEFORMAT), so that no message is read as a time; a failure
# prints the messages and stops the run.
timed() {
  local name=$1 output=$2
  shift 2
  if ! report=$({ time "$@" >"$output" 2>"$out/$name.err"; } 2>&1); then
    cat "$out/$name.err" >&2
    exit 1
  fi
}

# workload_stats NAME SCENARIO [arguments...]: the generated workload as the
# tables state it (reference load, first seed), with the arguments' --set
# overrides.
workload_stats() {
  local name=$1 scenario=$2 sets=() args=("${@:3}")
  for ((i = 0; i < ${#args[@]}; i++)); do
    if [ "${args[i]}" = --set ]; then sets+=(--set "${args[i + 1]}"); fi
  done
  "$kvroute" workload-stats "$scenario" "${sets[@]}" >"$out/$name.workload.txt"
}

# run NAME SCENARIO [kvroute run arguments...]
run() {
  local name=$1 scenario=$2
  shift 2
  wanted "$name" || return 0
  local TIMEFORMAT='%R %U %S' report
  timed "$name" "$out/$name.txt" "$kvroute" run "$scenario" "$@" --quiet --force --jobs "$jobs" \
    --out "$out/$name.h5"
  rm -f "$out/$name.err"
  workload_stats "$name" "$scenario" "$@"
  read -r wall user sys <<<"$report"
  printf '%-18s wall %7.1f s   cpu %7.1f s\n' "$name" "$wall" "$(awk "BEGIN{print $user + $sys}")" |
    tee -a "$out/timings.txt" >&2
  "$kvroute" report "$out/$name.h5" --plots "$out/plots/$name" >/dev/null
}

# point_json NAME SCENARIO [kvroute point arguments...]
point_json() {
  local name=$1 scenario=$2
  shift 2
  wanted "$name" || return 0
  local TIMEFORMAT='%R' report
  timed "$name" "$out/$name.json" "$kvroute" point "$scenario" "$@" --json
  rm -f "$out/$name.err"
  workload_stats "$name" "$scenario" "$@"
  printf '%-18s wall %7.1f s\n' "$name" "$report" | tee -a "$out/timings.txt" >&2
}

# run_script NAME SCRIPT: an experiment script of its own (scripts/*.py), its
# records in OUT/NAME/ and its tables in OUT/NAME.md, timed; its messages
# ("wrote PATH") are shown after it.
run_script() {
  local name=$1 script=$2
  wanted "$name" || return 0
  local TIMEFORMAT='%R' report
  timed "$name" "$out/$name.md" "$python" "$script" "$kvroute" --out "$out/$name"
  cat "$out/$name.err" >&2
  rm -f "$out/$name.err"
  printf '%-18s wall %7.1f s\n' "$name" "$report" | tee -a "$out/timings.txt" >&2
}

# calibrated SCENARIO [kvroute calibrate arguments...]: CacheRoute's policy
# entry (q_cap and W) as `kvroute calibrate` measures them for that workload.
calibrated() {
  "$kvroute" calibrate "$@" | sed -n 's/^as a policy entry: {\(.*\)}$/\1/p'
}

# stored SCENARIO [kvroute calibrate arguments...]: fails unless SCENARIO's
# CacheRoute entries hold the q_cap and W that `kvroute calibrate` measures on
# it now (the calibration rule), so that no run uses values calibrated on an
# earlier model or workload. (Runs of a changed workload calibrate afresh.)
stored() {
  local file=$1 calibration q w
  calibration=$("$kvroute" calibrate "$@")
  q=$(sed -n 's/^q_cap: //p' <<<"$calibration")
  w=$(sed -n 's/^slots_per_replica (W): //p' <<<"$calibration")
  if grep -E '^  - \{name: cacheroute' "$file" | grep -vq "slots_per_replica: $w," ||
    ! grep -qE "^  - \{name: cacheroute.* q_cap: ${q//./\\.}," "$file"; then
    echo "$file: CacheRoute's entries must hold what kvroute calibrate measures now: q_cap $q, W $w" >&2
    return 1
  fi
}
stale=0
for entry in "flagship.yaml --slo 1" "flagship_synthetic.yaml --slo 1" second_workload.yaml \
  ablation.yaml regime_win.yaml regime_mixed.yaml drift.yaml precision_fp16.yaml qcap.yaml; do
  read -r file args <<<"$entry"
  # shellcheck disable=SC2086  # args are words
  stored "scenarios/paper/$file" $args || stale=1
done
[ $stale = 0 ] || exit 1

total_start=$(date +%s)
run flagship scenarios/paper/flagship.yaml
run flagship_synthetic scenarios/paper/flagship_synthetic.yaml
# Sensitivity (not in the paper): the flagship on the Azure 2023 code trace's
# lengths (outputs median 13 tokens), where prefill dominates; q_cap and W
# recalibrated by `kvroute calibrate` for it.
short=(--set "workload.prompt.new_tokens={kind: empirical, file: $azure_code, column: ContextTokens}"
  --set "workload.output_tokens={kind: empirical, file: $azure_code, column: GeneratedTokens}")
if wanted flagship_short_outputs; then
  entry=$(calibrated scenarios/paper/flagship_synthetic.yaml --slo 1 "${short[@]}")
  run flagship_short_outputs scenarios/paper/flagship_synthetic.yaml "${short[@]}" \
    --set "policies=[flat_lb, sticky, chwbl, {$entry, interval_s: 3600}]" \
    --set 'sweep.qps=[30, 60, 90, 120, 150, 180, 210, 240, 300]' --set sweep.reference_qps=90
fi
# The system prompt's size is the one length the paper's workload fixes and
# kvroute assumes (3,072 tokens): swept around it, each size another workload
# with its own q_cap and W.
for tokens in 1024 8192; do
  wanted "flagship_system$tokens" || continue
  system=(--set "workload.prompt.system_tokens=$tokens")
  entry=$(calibrated scenarios/paper/flagship_synthetic.yaml --slo 1 "${system[@]}")
  run "flagship_system$tokens" scenarios/paper/flagship_synthetic.yaml "${system[@]}" \
    --set "policies=[flat_lb, chwbl, {$entry, interval_s: 3600}]" \
    --set 'sweep.qps=[30, 60, 90, 120, 150, 180, 210, 240, 270, 300, 360]'
done
run second_k128 scenarios/paper/second_workload.yaml
# K256 is another workload (twice the active keys): q_cap and W recalibrated for it.
if wanted second_k256; then
  k256=(--set workload.active_keys=256)
  entry=$(calibrated scenarios/paper/second_workload.yaml "${k256[@]}")
  run second_k256 scenarios/paper/second_workload.yaml "${k256[@]}" \
    --set "policies=[flat_lb, chwbl, dualmap, {$entry, interval_s: 3600}]"
fi
# The second rate vector's shape is assumed (Zipf s = 1.1): run again at s = 0.8
# and 1.4 for both active sets, each a workload of its own, recalibrated.
for s in 0.8 1.4; do
  for k in 128 256; do
    wanted "second_k${k}_s$s" || continue
    zipf=(--set "workload.rate_skew={kind: zipf, s: $s}" --set "workload.active_keys=$k")
    entry=$(calibrated scenarios/paper/second_workload.yaml "${zipf[@]}")
    run "second_k${k}_s$s" scenarios/paper/second_workload.yaml "${zipf[@]}" \
      --set "policies=[flat_lb, chwbl, dualmap, {$entry, interval_s: 3600}]"
  done
done
run ablation scenarios/paper/ablation.yaml
# The ablation's whales are assumed (15% and 10%): run again without whales and
# with twice the head (30% and 15%), CacheRoute's parts recalibrated for each.
for whales in "[]" "[0.30, 0.15]"; do
  name=ablation_whales$([ "$whales" = "[]" ] && echo 0 || echo 45)
  wanted "$name" || continue
  head=(--set "workload.whales=$whales")
  entry=$(calibrated scenarios/paper/ablation.yaml "${head[@]}")
  parts="flat_lb"
  for part in affinity replication; do
    parts+=", {$entry, label: $part, ablation: $part, interval_s: 3600}"
  done
  run "$name" scenarios/paper/ablation.yaml "${head[@]}" \
    --set "policies=[$parts, {$entry, label: cacheroute, interval_s: 3600}]"
done
run regime_win scenarios/paper/regime_win.yaml
# §5.4's lose and tie rows ("aggregate workloads" A and B) differ in how much
# of the traffic shares a prefix and how skewed the key rates are; the paper
# gives neither, so both are swept and every cell is shown. q_cap and W are
# recalibrated per cell (the workload changes), by `kvroute calibrate`.
for share in 0.25 0.5 0.75 0.9; do
  for sigma in 0.5 1 2; do
    cell=(--set "workload.prompt.no_prefix_share=$share"
      --set "workload.rate_skew={kind: lognormal, sigma: $sigma}")
    wanted "regime_share${share}_sigma$sigma" || continue
    entry=$(calibrated scenarios/paper/regime_mixed.yaml "${cell[@]}")
    run "regime_share${share}_sigma$sigma" scenarios/paper/regime_mixed.yaml "${cell[@]}" \
      --set "policies=[flat_lb, {$entry, interval_s: 3600}]"
  done
done
# The Poisson reference of §5.6: flagship_synthetic's Flat-LB and CacheRoute alone
# (the same requests as their rows there); the bursty runs are paired with it
# seed by seed.
run bursty_poisson scenarios/paper/flagship_synthetic.yaml --policies flat_lb,cacheroute
# The paper's CV 1.9 is of request inter-arrival gaps; every session here is one
# request, so a gamma process of CV 1.9 is that (`kvroute workload-stats`
# measures 1.92).
run bursty_gamma scenarios/paper/flagship_synthetic.yaml --policies flat_lb,cacheroute \
  --set 'workload.arrivals={kind: gamma, cv: 1.9}'
# The bootstrap's block length is assumed: 64 gaps, and around it 1 (the gaps
# resampled one by one: the trace's marginal distribution without its
# correlation) and 1,024.
for block in 1 64 1024; do
  name=bursty_bootstrap
  [ "$block" = 64 ] || name+="_block$block"
  run "$name" scenarios/paper/flagship_synthetic.yaml --policies flat_lb,cacheroute \
    --set "workload.arrivals={kind: bootstrap, file: $azure_code, block: $block}"
done
run drift scenarios/paper/drift.yaml
# The control interval is assumed (60 s; the paper gives sigma and six
# intervals): the same drift per interval at 30 s and 120 s, every replanning
# variant replanning at that interval, q_cap and W recalibrated.
for interval in 30 120; do
  wanted "drift_interval$interval" || continue
  drift=(--set "workload.drift={sigma: 0.3, interval_s: $interval}")
  entry=$(calibrated scenarios/paper/drift.yaml "${drift[@]}")
  rows="{$entry, label: static, interval_s: 3600}"
  for variant in stale "fresh, rates: workload" "hold, replan: hold" "churn_aware, replan: churn_aware"; do
    rows+=", {$entry, label: $variant, interval_s: $interval}"
  done
  run "drift_interval$interval" scenarios/paper/drift.yaml "${drift[@]}" --set "policies=[$rows]"
done
# §3.2's worst shift in latency: the stale plan against the fresh one per replanning
# interval, from per-request records (scripts/drift_latency.py; its own table).
run_script drift_latency scripts/drift_latency.py
run precision_k128 scenarios/paper/precision_fp16.yaml
# K256 is another workload: q_cap and W recalibrated for it, as for second_k256.
if wanted precision_k256; then
  k256=(--set workload.active_keys=256)
  entry=$(calibrated scenarios/paper/precision_fp16.yaml "${k256[@]}")
  run precision_k256 scenarios/paper/precision_fp16.yaml "${k256[@]}" \
    --set "policies=[flat_lb, sticky, {$entry, interval_s: 3600}]"
fi
# The joint sweep q_cap x head share: each head share is another workload, so
# the calibrated q_cap and the W every q_cap row shares are measured on it.
for share in 00 05 15 25 45; do
  wanted "qcap_head$share" || continue
  head=()
  [ "$share" = 00 ] || head=(--set "workload.whales=[0.$share]")
  calibration=$("$kvroute" calibrate scenarios/paper/qcap.yaml "${head[@]}")
  q_cap=$(sed -n 's/^q_cap: //p' <<<"$calibration")
  w=$(sed -n 's/^slots_per_replica (W): //p' <<<"$calibration")
  rows=""
  for q in 50 100 200 500; do
    rows+="{name: cacheroute, label: q_cap_$q, q_cap: $q, slots_per_replica: $w, interval_s: 3600}, "
  done
  rows+="{name: cacheroute, label: q_cap_calibrated, q_cap: $q_cap, slots_per_replica: $w, interval_s: 3600}"
  run "qcap_head$share" scenarios/paper/qcap.yaml "${head[@]}" --set "policies=[flat_lb, $rows]"
done
# Appendix Table 14: the win workload on R = 8 and 60 destinations. The file's grid
# (30..360) is R = 30's; it would censor R = 60 at its top (CacheRoute passes 340
# at R = 30) and leave R = 8 with one or two loads below its knee, so each R has the
# grid scaled with R and widened upwards, and its reference load is 120 x R / 30.
# q_cap and W are per-destination quantities (one destination alone), unchanged.
# A W (warm-slot) sweep at the no-head workload's calibrated q_cap, on both
# sides of the W the rule gives (§8).
wsweep="flat_lb"
q_cap=$("$kvroute" calibrate scenarios/paper/qcap.yaml | sed -n 's/^q_cap: //p')
for w in 0 2 4 8 16 32 64 128; do
  wsweep+=", {name: cacheroute, label: W$w, q_cap: $q_cap, slots_per_replica: $w, interval_s: 3600}"
done
run qcap_wsweep scenarios/paper/qcap.yaml --set "policies=[$wsweep]"
run cluster_r8 scenarios/paper/regime_win.yaml --set 'cluster.deployments=[{name: main, replicas: 8}]' \
  --set 'sweep.qps=[8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 120]' --set sweep.reference_qps=32
run cluster_r60 scenarios/paper/regime_win.yaml --set 'cluster.deployments=[{name: main, replicas: 60}]' \
  --set 'sweep.qps=[60, 120, 180, 240, 360, 480, 600, 720, 840, 960, 1080]' --set sweep.reference_qps=240
point_json canary_lambda10 scenarios/paper/canary.yaml --policy sglang_cache_aware --qps 60
point_json canary_lambda0 scenarios/paper/canary.yaml --policy sglang_cache_aware --qps 60 \
  --set cluster.lambda_h=0
# The worked example's 8-token prompts make a held prompt hit in full; with the
# realistic canary's chat prompts (canary_load.yaml: 2,048-token system prompt,
# lognormal new tokens) a held prompt hits only in part, and so leaks more.
point_json canary_chat_prompts scenarios/paper/canary.yaml --policy sglang_cache_aware --qps 60 \
  --set 'workload.prompt={system_tokens: 2048, new_tokens: {kind: lognormal, median: 256, sigma: 0.6, min: 16, max: 4096}}'
# §5.5: a single-characteristic-time model of each replica's cache against the
# simulated hit rates (scripts/residency_table.py; its own table).
run_script residency scripts/residency_table.py
# Where cache affinity pays: CacheRoute against Flat-LB and CHWBL over output
# length x prompt tail, and key-rate skew and no-prefix share through the win
# workload's own cell (scripts/affinity_map.py; nineteen workloads, each calibrated).
run_script affinity_map scripts/affinity_map.py
# Seed 000: the instance-level selection sweep and latency during a canary.
run instance_selection scenarios/instance_selection.yaml
run_script canary_latency scripts/canary_latency.py
# Seed 000's worked canary run for six hours: how long B takes to reach 90%.
run_script canary_convergence scripts/canary_convergence.py
echo "all experiments: $(($(date +%s) - total_start)) s on $jobs cores" | tee -a "$out/timings.txt" >&2

"$python" analysis/paper_tables.py "$out" >"$out/tables.md"
echo "wrote $out/tables.md; scripts/update_reproducing.py $out writes them into docs/" >&2
# The regimes figure (§5.4): CacheRoute / Flat-LB against the hit rate affinity
# gains, for the win run, the swept cells and the affinity map's cells.
if compgen -G "$out/regime_*.h5" >/dev/null; then
  affinity=()
  [ -d "$out/affinity_map" ] && affinity=(--affinity "$out/affinity_map")
  "$python" scripts/regimes_figure.py "$out" "${affinity[@]}" --plot "$out/plots" >"$out/regimes.md"
  echo "wrote $out/regimes.md and $out/plots/regimes.png" >&2
fi
