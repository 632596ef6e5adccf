// A regression's commits as a person acts on them: the last good and the first bad commit,
// the compare link of the range between them, and the bisect command with both ends
// filled in. Shared by the regression issue and the dashboard, so both say the same.
// Links are made only below an https repository URL of plain path segments and only for
// hex shas: nothing a record holds becomes a link otherwise.

const SHA = /^[0-9a-f]{7,40}$/i;

/** `https://host/owner/repo` for an https repository URL of plain path segments; else undefined. */
export function repositoryBase(repositoryUrl: string | undefined): string | undefined {
  if (!repositoryUrl) return undefined;
  let url: URL;
  try {
    url = new URL(repositoryUrl.replace(/\/+$/, '').replace(/\.git$/, ''));
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' || url.username || url.password || url.search || url.hash) {
    return undefined;
  }
  if (!/^\/[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(url.pathname)) return undefined;
  return `${url.origin}${url.pathname}`;
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

/**
 * `neuron-perf-gate bisect --good <last good> --bad <first bad>`, with the benchmark and
 * metric when given (names as the config spells them, quoted when they need it); undefined
 * when an end is not a sha or both ends are one commit (nothing to bisect).
 */
export function bisectCommand(
  lastGood: string,
  firstBad: string,
  options: { benchmark?: string; metric?: string } = {},
): string | undefined {
  if (!isCommitSha(lastGood) || !isCommitSha(firstBad) || lastGood === firstBad) return undefined;
  const parts = ['neuron-perf-gate bisect', `--good ${lastGood}`, `--bad ${firstBad}`];
  if (options.benchmark) parts.push(`--benchmark ${shellWord(options.benchmark)}`);
  if (options.metric) parts.push(`--metric ${shellWord(options.metric)}`);
  return parts.join(' ');
}

/** A word as a POSIX shell reads it back: bare when plain, else single-quoted. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_.,:=/@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
