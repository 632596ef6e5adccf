// The logical NeuronCore setting (LNC) a run uses on trn2 and later: how many physical
// NeuronCores make one logical core (1 or 2; 2 by default on trn2). It halves or doubles
// the cores a host shows and what one core can do, so it is part of the fingerprint.
//
// Where it is said, most trusted first: neuron-ls (it reports the setting in force), the
// runtime's NEURON_LOGICAL_NC_CONFIG, and the host-wide default the Neuron EKS guide writes
// to /opt/aws/neuron/logical_nc_config (`NEURON_LOGICAL_NC_CONFIG=1`).

import { readFile } from 'node:fs/promises';

export const LNC_FILE = '/opt/aws/neuron/logical_nc_config';

type Env = Readonly<Record<string, string | undefined>>;

/** Families with one physical core per logical core, whatever a variable says. */
const WITHOUT_LNC = /^(inf1|inf2|trn1|trn1n)\./;

export async function readLogicalNcConfig(
  env: Env,
  fromNeuronLs: number | undefined,
  instanceType: string | undefined,
  file = LNC_FILE,
): Promise<number | undefined> {
  if (instanceType !== undefined && WITHOUT_LNC.test(instanceType)) return undefined;
  if (fromNeuronLs !== undefined) return fromNeuronLs;
  const fromEnv = lncValue(env.NEURON_LOGICAL_NC_CONFIG);
  if (fromEnv !== undefined) return fromEnv;
  try {
    const text = await readFile(file, 'utf8');
    return lncValue(
      /^\s*(?:export\s+)?(?:NEURON_LOGICAL_NC_CONFIG\s*=\s*)?(\S+)\s*$/m.exec(text)?.[1],
    );
  } catch {
    return undefined;
  }
}

/** 1 or 2, the only settings the runtime takes; anything else is not an LNC. */
function lncValue(text: string | undefined): number | undefined {
  const value = text?.trim().replace(/^["']|["']$/g, '');
  return value === '1' || value === '2' ? Number(value) : undefined;
}
