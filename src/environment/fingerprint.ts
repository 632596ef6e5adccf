// Whether two measurements come from the same environment: the same hardware, the same
// Neuron SDK, compiler and runtime, the same vLLM, the same benchmark config. Numbers
// from different fingerprints are never compared without saying so.

import type { Environment } from '../model.js';

export type FingerprintKey =
  | 'instanceType'
  | 'neuronCores'
  | 'logicalNcConfig'
  | 'neuronSdkVersion'
  | 'compilerVersion'
  | 'runtimeVersion'
  | 'vllmVersion'
  | 'vllmNeuronVersion'
  | 'configHash'
  | 'runner';

export interface FingerprintField {
  field: FingerprintKey;
  /** For people: "Neuron SDK", "instance type". */
  label: string;
  /** How a value reads in a sentence: a version, a plain value, or a hash. */
  kind: 'value' | 'version' | 'hash';
}

/** The fields that must match, in the order reports list them. */
export const FINGERPRINT_FIELDS: readonly FingerprintField[] = [
  { field: 'instanceType', label: 'instance type', kind: 'value' },
  { field: 'neuronCores', label: 'NeuronCores', kind: 'value' },
  { field: 'logicalNcConfig', label: 'LNC (physical cores per logical NeuronCore)', kind: 'value' },
  { field: 'neuronSdkVersion', label: 'Neuron SDK', kind: 'version' },
  { field: 'compilerVersion', label: 'neuronx-cc', kind: 'version' },
  { field: 'runtimeVersion', label: 'Neuron runtime', kind: 'version' },
  { field: 'vllmVersion', label: 'vLLM', kind: 'version' },
  { field: 'vllmNeuronVersion', label: 'vllm-neuron', kind: 'version' },
  { field: 'configHash', label: 'benchmark config', kind: 'hash' },
];

export interface FingerprintDifference {
  field: FingerprintKey;
  label: string;
  baseline?: string;
  current?: string;
}

/** A field that could not be compared because one side does not know it. */
export interface UnknownField {
  field: FingerprintKey;
  label: string;
  /** The side without a value. */
  missingIn: 'baseline' | 'current';
}

/** Hashes are shown this short, like git's abbreviated commits. */
const SHORT_HASH = 7;

/**
 * The fingerprint fields whose values differ. A field missing on either side (an older
 * record, a probe that found nothing) is not a difference: see unknownFields.
 */
export function fingerprintDifferences(
  baseline: Environment,
  current: Environment,
): FingerprintDifference[] {
  const differences: FingerprintDifference[] = [];
  for (const { field, label } of FINGERPRINT_FIELDS) {
    const before = valueOf(baseline, field);
    const after = valueOf(current, field);
    const known = before !== undefined && after !== undefined;
    if ((known && before !== after) || lncKnownOnOneTrainiumSide(baseline, current, field)) {
      differences.push({
        field,
        label,
        ...(before !== undefined ? { baseline: before } : {}),
        ...(after !== undefined ? { current: after } : {}),
      });
    }
  }
  return differences;
}

/** Trainium2 and later, where a logical NeuronCore may be one or two physical ones. */
const WITH_LNC = /^(trn2|trn2u|trn3)\./;

/**
 * An LNC known on one side only, on trn2: a difference, not a field left uncompared. A
 * record from before the gate read the LNC may have run at either setting, and its MFU is
 * the profiler's against one physical core; compared with a run at LNC 2 it would read as
 * MFU halved.
 */
function lncKnownOnOneTrainiumSide(
  baseline: Environment,
  current: Environment,
  field: FingerprintKey,
): boolean {
  if (field !== 'logicalNcConfig') return false;
  const before = valueOf(baseline, field);
  const after = valueOf(current, field);
  if ((before === undefined) === (after === undefined)) return false;
  return [baseline, current].some((side) => WITH_LNC.test(valueOf(side, 'instanceType') ?? ''));
}

/**
 * The runner, when both sides name one and they differ: not a fingerprint field (runners
 * of one instance type are one environment), but the history names a step that comes
 * with a runner change as such (src/history/runner-levels.ts).
 */
export function runnerDifference(
  baseline: Environment,
  current: Environment,
): FingerprintDifference | undefined {
  const before = valueOf(baseline, 'runner');
  const after = valueOf(current, 'runner');
  if (before === undefined || after === undefined || before === after) return undefined;
  return { field: 'runner', label: 'runner', baseline: before, current: after };
}

/** True when no fingerprint field differs. */
export function sameFingerprint(a: Environment, b: Environment): boolean {
  return fingerprintDifferences(a, b).length === 0;
}

/**
 * The fields known on one side only, so a report can say what was not compared. A field
 * unknown on both sides is left out: nothing was ever known to compare.
 */
export function unknownFields(baseline: Environment, current: Environment): UnknownField[] {
  const unknown: UnknownField[] = [];
  for (const { field, label } of FINGERPRINT_FIELDS) {
    const before = valueOf(baseline, field);
    const after = valueOf(current, field);
    if ((before === undefined) === (after === undefined)) continue;
    if (lncKnownOnOneTrainiumSide(baseline, current, field)) continue;
    unknown.push({ field, label, missingIn: before === undefined ? 'baseline' : 'current' });
  }
  return unknown;
}

/** `Neuron SDK 2.26 → 2.27`, `benchmark config changed (hash 1a2b3c4 → 9f8e7d6)`. */
export function describeDifference(difference: FingerprintDifference): string {
  const kind = kindOf(difference.field);
  if (kind === 'hash') {
    const { baseline, current } = difference;
    const short = (hash: string | undefined): string => shown(hash, SHORT_HASH);
    // Two hashes that share their first digits must still read as different.
    const [before, after] =
      short(baseline) === short(current)
        ? [shown(baseline), shown(current)]
        : [short(baseline), short(current)];
    return `${difference.label} changed (hash ${before} → ${after})`;
  }
  return `${difference.label} ${shown(difference.baseline)} → ${shown(difference.current)}`;
}

/** `vLLM version unknown in the baseline`, `instance type unknown in this run`. */
export function describeUnknown(unknown: UnknownField): string {
  const kind = kindOf(unknown.field);
  const subject =
    kind === 'version'
      ? `${unknown.label} version`
      : kind === 'hash'
        ? `${unknown.label} hash`
        : unknown.label;
  return `${subject} unknown in ${unknown.missingIn === 'baseline' ? 'the baseline' : 'this run'}`;
}

/**
 * What the report says about fields one side does not know: `vLLM version unknown in the
 * baseline (not compared)`. Nothing when the baseline knows no field at all: a plain result
 * file records no environment, and a note on every field would bury the real ones.
 */
export function notComparedNotes(baseline: Environment, current: Environment): string[] {
  if (FINGERPRINT_FIELDS.every(({ field }) => valueOf(baseline, field) === undefined)) return [];
  return unknownFields(baseline, current).map(
    (unknown) => `${describeUnknown(unknown)}${NOT_COMPARED}`,
  );
}

/** How a note of notComparedNotes ends; the report tells such notes from differences by it. */
export const NOT_COMPARED = ' (not compared)';

/** Values as text, so `2` and `"2"` match; blank counts as missing. */
function valueOf(environment: Environment, field: FingerprintKey): string | undefined {
  const value = environment[field];
  if (value === undefined || value === null) return undefined;
  const text = String(value).trim();
  return text === '' ? undefined : text;
}

function kindOf(field: FingerprintKey): FingerprintField['kind'] {
  return FINGERPRINT_FIELDS.find((entry) => entry.field === field)?.kind ?? 'value';
}

function shown(value: string | undefined, length?: number): string {
  if (value === undefined) return 'unknown';
  return length === undefined ? value : value.slice(0, length);
}
