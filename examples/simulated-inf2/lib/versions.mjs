// Version strings the simulated toolchain reports. They look like a Neuron SDK 2.26
// install so that version parsing in the gate is exercised; none of them is real.
export const SIMULATED_VERSIONS = Object.freeze({
  neuronSdk: '2.26.0',
  tools: '2.26.9.0',
  compiler: '2.21.18209.0+043b1bf7',
  runtime: '2.28.23.0 (simulated)',
  profiler: '2.26.9.0%simulated-inf2',
  vllm: '0.10.2',
  vllmNeuron: '0.2.0',
});
