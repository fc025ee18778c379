#!/usr/bin/env bash
# Every GPU measurement in one call, for a lent GPU machine that reaches no package index.
#
# The machine's Python is expected to hold JAX (CUDA), flax and optax; what it lacks travels as wheels
# in .whl/, fetched beforehand on a machine that reaches PyPI, for the GPU machine's Python, e.g.
#     pip download --no-deps --only-binary=:all: --python-version 3.12 --platform manylinux2014_x86_64 \
#         -d .whl pydantic pydantic-core annotated-types typing-inspection jaxmarl gymnax gymnasium farama-notifications
# (pydantic-core at the version the pydantic wheel pins). The core and the two game plugins are then
# installed from this checkout into a throwaway folder, so their entry points are found. Each step has
# its own time limit, and one failing step does not stop the rest.
#
#     bash benchmarks/gpu.sh            # about 5 minutes on one H100, with the machine's start, and a few more
#                                       # for the table's 100 AdaSociety matches
set -uo pipefail
cd "$(dirname "$0")/.."
SITE=${SITE:-/tmp/negotiation-gpu-site}
if [ -d .whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --target "$SITE" .whl/*.whl || exit 1
fi
python3 -m pip install -q --no-index --no-deps --no-build-isolation --target "$SITE" . plugins/coin_games plugins/adasociety \
  || exit 1
export PYTHONPATH="$SITE" PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
python3 -c "import jax; print('jax', jax.__version__, jax.devices())"

# Kernels against the engine (env-steps/s at each batch), then the table beside JaxMARL's Overcooked.
timeout 240 python3 benchmarks/kernels.py --device gpu --games adasociety split_100 trust_and_split deal_or_no_deal \
  --batches 4096 65536 1048576 --rounds 3 --engine-seconds 1 || echo "kernels.py stopped: $?"

# IPPO on the full AdaSociety at GPU scale, on the team's reward with potential-based shaping (docs/train.md),
# then at the engine's table against the scripted gatherer team: 50 seeds each, means with 95% intervals.
timeout 420 python3 -c "from negotiation_platform.cli.main import main; main()" train adasociety \
  --total-steps 60000000 --num-envs 16384 --num-steps 32 --hidden 128 128 --team-reward 1 --shaping 1 \
  --scripted gatherer --scripted-matches 20 --table-seeds 50 \
  --out "${OUT:-/tmp}/runs/adasociety" --json || echo "train stopped: $?"
