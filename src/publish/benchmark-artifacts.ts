import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { GateConfig } from '../config/types.js';
import type { ArtifactInfo, GateReport } from '../model.js';
import type { Deadline } from '../net/deadline.js';
import { benchmarkPaths } from '../runner/benchmark.js';
import { serverLogDir } from '../runner/served-benchmarks.js';
import { redactLogFiles } from './redact-logs.js';
import { firstLinkBelow } from '../fs/no-links.js';
import { artifactName, uploadProfileArtifact, type ArtifactUploadClient } from './artifact.js';

export interface ArtifactContext {
  /** Names the artifacts, e.g. the workflow job. */
  gate: string;
  /** GITHUB_RUN_ATTEMPT: a re-run uploads under a new name. */
  attempt: string | undefined;
  reportFile: string;
  /** Replaced in the run logs before they are uploaded (redact-logs.ts). */
  secrets?: readonly string[];
  client?: ArtifactUploadClient;
  /** The publish phase's. */
  deadline?: Deadline;
}

/**
 * Uploads one artifact per configured benchmark with what an engineer needs to look into
 * it: the NTFF and NEFF files, the profiler's summaries, the raw result files, the run
 * logs, its server's logs and report.json. Returns the report with each benchmark's artifact (or the warning
 * why there is none); a failed upload never changes a verdict.
 */
export async function uploadBenchmarkArtifacts(
  report: GateReport,
  config: GateConfig,
  context: ArtifactContext,
): Promise<GateReport> {
  const uploaded = new Map<string, ArtifactInfo>();
  for (const spec of config.benchmarks) {
    const { runsDir, profileDir } = benchmarkPaths(config.outDir, spec.name);
    const files = [
      ...(await filesBelow(profileDir, config.outDir)),
      ...(await filesBelow(runsDir, config.outDir)),
      // The logs of the server it ran against (shared by a sweep's variants: in each).
      ...(spec.server ? await filesBelow(serverLogDir(config.outDir, spec), config.outDir) : []),
      context.reportFile,
    ];
    await redactLogFiles(files, context.secrets ?? []);
    const name = artifactName(context.gate, spec.name, context.attempt);
    const outcome = await uploadProfileArtifact({
      name,
      files,
      rootDirectory: config.outDir,
      retentionDays: config.artifactRetentionDays,
      compressionLevel: config.artifactCompressionLevel,
      ...(context.client ? { client: context.client } : {}),
      ...(context.deadline ? { deadline: context.deadline } : {}),
    });
    uploaded.set(
      spec.name,
      outcome.ok
        ? { name, id: outcome.id, size: outcome.size, ...(outcome.url ? { url: outcome.url } : {}) }
        : { name, warning: outcome.warning },
    );
  }
  return {
    ...report,
    benchmarks: report.benchmarks.map((benchmark) => {
      const artifact = uploaded.get(benchmark.source ?? benchmark.name);
      return artifact ? { ...benchmark, artifact } : benchmark;
    }),
  };
}

/**
 * The files below `dir`, none through a symbolic link: a run folder the benchmark swapped
 * for a link (to ~/.ssh, say) would otherwise upload what it points at.
 */
async function filesBelow(dir: string, root: string): Promise<string[]> {
  if ((await firstLinkBelow(root, dir)) !== undefined) return [];
  try {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true });
    return entries
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name))
      .sort();
  } catch {
    return [];
  }
}
