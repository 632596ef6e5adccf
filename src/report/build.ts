import { gateVerdict } from '../compare/benchmark.js';
import {
  REPORT_SCHEMA_VERSION,
  type BenchmarkReport,
  type CostBasis,
  type Environment,
  type GateReport,
} from '../model.js';
import { TOOL_NAME, TOOL_VERSION } from '../version.js';
import { serverSettingsOf } from './server-settings.js';

export interface ReportParts {
  benchmarks: BenchmarkReport[];
  environment: Environment;
  baselineSource?: string;
  isolation?: string;
  warnings?: string[];
  runUrl?: string;
  now?: Date;
  ab?: GateReport['ab'];
  cost?: CostBasis;
}

/** Assembles the report.json contract from the judged benchmarks. */
export function buildGateReport(parts: ReportParts): GateReport {
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    tool: { name: TOOL_NAME, version: TOOL_VERSION },
    createdAt: (parts.now ?? new Date()).toISOString(),
    verdict: gateVerdict(parts.benchmarks.map((b) => b.verdict)),
    benchmarks: parts.benchmarks,
    environment: parts.environment,
    ...(parts.baselineSource ? { baselineSource: parts.baselineSource } : {}),
    ...(parts.isolation ? { isolation: parts.isolation } : {}),
    links: parts.runUrl ? { run: parts.runUrl } : {},
    warnings: parts.warnings ?? [],
    ...(parts.ab ? { ab: parts.ab } : {}),
    ...(parts.cost ? { cost: parts.cost } : {}),
    ...serverSettingsPart(parts.benchmarks, parts.cost),
  };
}

/** Each entry with server settings, side by side (server-settings.ts); none without. */
function serverSettingsPart(
  benchmarks: BenchmarkReport[],
  cost: CostBasis | undefined,
): Pick<GateReport, 'serverSettings'> {
  const views = serverSettingsOf(benchmarks, cost);
  return views.length > 0 ? { serverSettings: views } : {};
}

/** How many metrics regressed, over all benchmarks. */
export function countRegressions(report: GateReport): number {
  return report.benchmarks.reduce(
    (sum, b) => sum + b.metrics.filter((m) => m.verdict === 'regression').length,
    0,
  );
}
