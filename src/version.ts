export const TOOL_NAME = 'neuron-perf-gate';
export const TOOL_VERSION = '0.1.0';
