// A/B's agreement check (`accuracy:`): once the blocks have judged a benchmark, its prompt
// set goes to a server of each side started for it (base, head, base: accuracy/check.ts),
// after the blocks so that no timing is touched. The base side's settings decide the
// prompts and margins: the head (a pull request) cannot make the check easier.

import { unavailableReport, withAgreement } from '../accuracy/agreement-report.js';
import { checkAgreement, type ServedSide } from '../accuracy/check.js';
import { originOf } from '../config/accuracy-prompts.js';
import { timeoutMsOf } from '../runner/benchmark.js';
import type { BenchmarkSpec } from '../config/types.js';
import type { Logger } from '../log.js';
import type { BenchmarkReport } from '../model.js';
import type { AbSide } from './schedule.js';

export interface SideServers {
  /** Starts `side`'s server, runs `use`, stops it; throws when it does not start. */
  served<T>(side: AbSide, purpose: string, use: () => Promise<T>): Promise<T>;
}

export async function withSideAgreement(
  reports: BenchmarkReport[],
  specs: Record<AbSide, BenchmarkSpec>,
  servers: SideServers,
  options: { log: Logger; baseLabel: string; confidence: number; failOnInconclusive: boolean },
): Promise<BenchmarkReport[]> {
  const accuracy = specs.base.accuracy;
  if (!accuracy || reports.some((r) => r.verdict === 'error')) return reports;
  const reference = `the base side's answers (${options.baseLabel})`;
  if (!specs.head.server) {
    const why = `the head side's ${specs.head.name} has no server: block, and the base's accuracy: asks a server of each side`;
    const agreement = unavailableReport(accuracy, reference, why);
    return reports.map((report) => withAgreement(report, agreement, options.failOnInconclusive));
  }
  const headOrigin =
    specs.head.accuracy?.origin ??
    (specs.head.server && originOf(specs.head.server)) ??
    accuracy.origin;
  const side = (name: AbSide, origin: string): ServedSide => ({
    origin,
    serve: (purpose, use) => servers.served(name, purpose, use),
  });
  options.log.info(
    `${specs.base.name}: the agreement check: ${accuracy.promptsSource}, ${accuracy.maxTokens} tokens each, on a server of the base, the head and the base again`,
  );
  const agreement = await checkAgreement(
    accuracy,
    { base: side('base', accuracy.origin), head: side('head', headOrigin) },
    {
      reference,
      confidence: options.confidence,
      log: options.log,
      passTimeoutMs: timeoutMsOf(specs.base),
    },
  );
  options.log.info(`${specs.base.name}: agreement: ${agreement.verdict}: ${agreement.reason}`);
  return reports.map((report) => withAgreement(report, agreement, options.failOnInconclusive));
}
