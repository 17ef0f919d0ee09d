#!/usr/bin/env bash
# GPU benchmark in one command (see benchmarks/gpu.py): G-RAT, FR, RNP at the reference dimensions in fp32,
# bf16-mixed and 16-mixed, the gpu-marked tests, and two-GPU DDP scaling when two GPUs are visible.
# Usage: bash benchmarks/gpu.sh [OUTPUT_FILE]   (default gpu_benchmark.txt; the whole run is capped at 10 minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-4}"
exec timeout 600 "${PYTHON:-python}" benchmarks/gpu.py --output "${1:-gpu_benchmark.txt}"
