// Two Neuron SDK virtualenvs on the simulator, for A/B across environments: each a folder
// whose bin/ holds `activate` (as a venv's: VIRTUAL_ENV, its bin/ first on PATH) and the
// simulated tools behind wrappers that give them that SDK's compiler version, so which SDK
// a command ran is decided by which bin/ its PATH reached, as on an inf2 host.
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SIMULATOR_BIN } from './bundled.js';

const TOOLS = ['offline-benchmark', 'pip', 'neuron-ls', 'vllm'];

export interface FakeSdk {
  /** neuronx-cc as `pip list` reports it in this venv. */
  compiler: string;
  /** aws-neuronx-tools (neuron-ls --version), whose major.minor is the SDK release. */
  tools: string;
}

/** Makes `<root>/<name>` a simulated SDK venv; its folder. */
export async function fakeVenv(root: string, name: string, sdk: FakeSdk): Promise<string> {
  const venv = join(root, name);
  const bin = join(venv, 'bin');
  await mkdir(bin, { recursive: true });
  await writeFile(
    join(bin, 'activate'),
    `# a virtualenv's activate, as far as the gate can tell\nexport VIRTUAL_ENV='${venv}'\nexport PATH="$VIRTUAL_ENV/bin:$PATH"\n`,
  );
  for (const tool of TOOLS) {
    const path = join(bin, tool);
    await writeFile(
      path,
      `#!/bin/sh\nSIM_NEURONX_CC_VERSION='${sdk.compiler}' SIM_NEURON_TOOLS_VERSION='${sdk.tools}' exec '${join(SIMULATOR_BIN, tool)}' "$@"\n`,
    );
    await chmod(path, 0o755);
  }
  return venv;
}

export const OLD_SDK: FakeSdk = { compiler: '2.21.18209.0+043b1bf7', tools: '2.26.9.0' };
export const NEW_SDK: FakeSdk = { compiler: '2.22.5122.0+1c2d3e4f', tools: '2.27.7.0' };
