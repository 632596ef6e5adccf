// A regression's commits as a person acts on them: the last good and the first bad commit,
// the compare link of the range between them, and the bisect command with both ends
// filled in; beside them the links to a night's workflow run, its profile artifact and a
// series on the dashboard page. Shared by the regression issue and the dashboard, so both
// say the same. Links are made only below an https repository (or page) URL checked here,
// and only for hex shas and numeric ids: nothing a record holds becomes a link otherwise.

const SHA = /^[0-9a-f]{7,40}$/i;

/** `https://host/owner/repo` for an https repository URL of plain path segments; else undefined. */
export function repositoryBase(repositoryUrl: string | undefined): string | undefined {
  const url = plainHttpsUrl(repositoryUrl?.replace(/\/+$/, '').replace(/\.git$/, ''));
  if (!url || !/^\/[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(url.pathname)) return undefined;
  return `${url.origin}${url.pathname}`;
}

/** An https URL without credentials, query or fragment; undefined for anything else. */
function plainHttpsUrl(text: string | undefined): URL | undefined {
  if (!text) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  const plain = url.protocol === 'https:' && !url.username && !url.password;
  return plain && !url.search && !url.hash ? url : undefined;
}

/** Whether a commit id is a hex sha (7 to 40 digits): only such ids become links or commands. */
export function isCommitSha(commit: string): boolean {
  return SHA.test(commit);
}

/** The commit's page, or undefined (no repository base, or not a sha). */
export function commitLink(base: string | undefined, commit: string): string | undefined {
  return base && isCommitSha(commit) ? `${base}/commit/${commit}` : undefined;
}

/** GitHub's compare page of the commits after `lastGood` up to `firstBad`, or undefined. */
export function compareLink(
  base: string | undefined,
  lastGood: string,
  firstBad: string,
): string | undefined {
  if (!base || !isCommitSha(lastGood) || !isCommitSha(firstBad) || lastGood === firstBad) {
    return undefined;
  }
  return `${base}/compare/${lastGood}...${firstBad}`;
}

/** A record's run id as the action writes it: `<run id>-<attempt>` (an older one: `<run id>`). */
const RUN_ID = /^(\d{1,16})(?:-(\d{1,6}))?$/;

/**
 * The numeric workflow run id of a record's run id (`<run id>` or `<run id>-<attempt>`);
 * 0 (no link) for anything else, such as a run id with text after it.
 */
export function numericRunId(runId: string): number {
  const match = RUN_ID.exec(runId);
  return match ? Number(match[1]) : 0;
}

/** The attempt of a record's run id (`5012-2` → `2`), or undefined when it names none. */
export function runAttemptOf(runId: string): string | undefined {
  return RUN_ID.exec(runId)?.[2];
}

/** The workflow run's page, or undefined (no repository base, or not a numeric run id). */
export function runLink(base: string | undefined, runId: string): string | undefined {
  const id = numericRunId(runId);
  return base && id > 0 ? `${base}/actions/runs/${id}` : undefined;
}

/** An artifact's page below its workflow run, or undefined (see runLink; a positive id). */
export function artifactLink(
  base: string | undefined,
  runId: string,
  artifactId: number,
): string | undefined {
  const run = runLink(base, runId);
  return run && Number.isSafeInteger(artifactId) && artifactId > 0
    ? `${run}/artifacts/${artifactId}`
    : undefined;
}

/**
 * A page's address for links (the dashboard on GitHub Pages): https, no credentials,
 * query or fragment, plain path characters; the page itself or its folder. Else undefined.
 */
export function pageBase(pageUrl: string | undefined): string | undefined {
  const url = plainHttpsUrl(pageUrl);
  if (!url || !/^(\/[A-Za-z0-9_.~-]+)*\/?$/.test(url.pathname)) return undefined;
  return `${url.origin}${url.pathname}`;
}

/** The dashboard's chart of one series: the page's `#series=<id>` anchor. */
export function seriesLink(page: string | undefined, seriesId: string): string | undefined {
  const base = pageBase(page);
  return base && seriesId ? `${base}#series=${encodeURIComponent(seriesId)}` : undefined;
}

/**
 * `neuron-perf-gate bisect --good <last good> --bad <first bad>`, with the benchmark and
 * metric (and the config file) when given (names as the config spells them, quoted when
 * they need it); undefined when an end is not a sha or both ends are one commit (nothing
 * to bisect).
 */
export function bisectCommand(
  lastGood: string,
  firstBad: string,
  options: { benchmark?: string; metric?: string; config?: string } = {},
): string | undefined {
  if (!isCommitSha(lastGood) || !isCommitSha(firstBad) || lastGood === firstBad) return undefined;
  const parts = ['neuron-perf-gate bisect', `--good ${lastGood}`, `--bad ${firstBad}`];
  if (options.config) parts.push(`--config ${shellWord(options.config)}`);
  if (options.benchmark) parts.push(`--benchmark ${shellWord(options.benchmark)}`);
  if (options.metric) parts.push(`--metric ${shellWord(options.metric)}`);
  return parts.join(' ');
}

/** A word as a POSIX shell reads it back: bare when plain, else single-quoted. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_.,:=/@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
