#!/usr/bin/env bash
# Replaced by the `server:` block of perf-gate.yml, with which the gate starts and stops the
# server itself, once for all runs and rates (docs/serving.md); kept, working, for a gate
# older than the block.
#
# One run of a vLLM serving benchmark on an inf2 runner: start `vllm serve`, wait until it
# answers, run `vllm bench serve` against it into the file the gate names
# ($PERF_GATE_OUTPUT), and stop the server with every process it started, also when the
# benchmark fails or the gate's timeout kills this script. The gate runs it once per run.
#
# Settings (environment, with defaults for Qwen3-0.6B on inf2.xlarge, 2 NeuronCores):
#   MODEL, PORT, TP (tensor parallel size), MAX_NUM_SEQS, MAX_MODEL_LEN,
#   READY_TIMEOUT (seconds; the first start compiles the model, later starts read
#   /var/tmp/neuron-compile-cache), SERVER_LOG (kept for the artifact), and the workload:
#   INPUT_LEN, OUTPUT_LEN, NUM_PROMPTS, REQUEST_RATE, MAX_CONCURRENCY.
set -euo pipefail

MODEL=${MODEL:-Qwen/Qwen3-0.6B}
PORT=${PORT:-8000}
TP=${TP:-2}
MAX_NUM_SEQS=${MAX_NUM_SEQS:-32}
MAX_MODEL_LEN=${MAX_MODEL_LEN:-2048}
READY_TIMEOUT=${READY_TIMEOUT:-1800}
SERVER_LOG=${SERVER_LOG:-${PERF_GATE_OUTPUT:-.}.server.log}
: "${PERF_GATE_OUTPUT:?run by neuron-perf-gate, which sets PERF_GATE_OUTPUT}"

# The server in a process group of its own, so that stopping it stops its workers too.
setsid vllm serve "$MODEL" --port "$PORT" --tensor-parallel-size "$TP" \
  --max-num-seqs "$MAX_NUM_SEQS" --max-model-len "$MAX_MODEL_LEN" >"$SERVER_LOG" 2>&1 &
SERVER=$!

stop_server() {
  kill -TERM -- "-$SERVER" 2>/dev/null || true
  for _ in $(seq 1 30); do
    kill -0 -- "-$SERVER" 2>/dev/null || return 0
    sleep 1
  done
  kill -KILL -- "-$SERVER" 2>/dev/null || true
}
trap stop_server EXIT
trap 'exit 143' TERM INT

# Ready when /health answers; a server that exits first has failed: show why.
deadline=$((SECONDS + READY_TIMEOUT))
until curl -sf "http://127.0.0.1:$PORT/health" >/dev/null; do
  if ! kill -0 "$SERVER" 2>/dev/null; then
    echo "vllm serve exited before it was ready; the end of $SERVER_LOG:" >&2
    tail -n 40 "$SERVER_LOG" >&2
    exit 1
  fi
  if ((SECONDS >= deadline)); then
    echo "vllm serve was not ready after ${READY_TIMEOUT}s; the end of $SERVER_LOG:" >&2
    tail -n 40 "$SERVER_LOG" >&2
    exit 1
  fi
  sleep 2
done

vllm bench serve --model "$MODEL" --port "$PORT" \
  --dataset-name random --random-input-len "${INPUT_LEN:-512}" \
  --random-output-len "${OUTPUT_LEN:-128}" --num-prompts "${NUM_PROMPTS:-200}" \
  --request-rate "${REQUEST_RATE:-4}" --max-concurrency "${MAX_CONCURRENCY:-8}" \
  --percentile-metrics ttft,tpot,itl,e2el --metric-percentiles 50,90,95,99 \
  --save-result --result-dir "$(dirname "$PERF_GATE_OUTPUT")" \
  --result-filename "$(basename "$PERF_GATE_OUTPUT")"
