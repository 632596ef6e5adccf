import { EXIT } from '../errors.js';
import type { GateVerdict } from '../model.js';

export function exitCodeFor(verdict: GateVerdict): number {
  switch (verdict) {
    case 'regression':
      return EXIT.regression;
    case 'error':
      return EXIT.runFailed;
    default:
      return EXIT.ok;
  }
}
