import { TOOL_NAME, TOOL_VERSION } from '../version.js';

/** The `baseline` commands: part of --help, and all of `baseline --help`. */
const BASELINE_USAGE = `  ${TOOL_NAME} baseline list [--gate KEY] [--benchmark NAME] [--limit N] [--json]
  ${TOOL_NAME} baseline show RECORD [--json]
  ${TOOL_NAME} baseline accept RECORD [--by NAME] [--note TEXT] [--dry-run]
  ${TOOL_NAME} baseline migrate --from STORE --to STORE
      Looks at or fixes the stored baseline history by hand. RECORD is a record path
      as 'baseline list' prints it: <gate-key>/<benchmark>/<time>-<sha7>-<run id>.json.
      list                  one line per record, newest first, per gate and benchmark:
                            time, branch, event, commit, verdict, accepted mark, path
      show                  the record's facts, environment and metric summaries
      accept                records are never rewritten: adds a NEW record, a copy of
                            RECORD that says it was accepted (manual) by whom and why,
                            for the gate's baseline selection; prints its path
      --repo DIR            a clone whose origin holds the data branch (default: .)
      --branch NAME         the data branch (default: perf-gate-data)
      --remote URL|PATH     use this remote instead of the clone's origin
      --dir FOLDER          a plain folder of record files instead of the data branch,
                            e.g. a worktree of it (laid out <gate-key>/<benchmark>/<file>)
      --store URL           any record store instead: s3://BUCKET/PREFIX?region=R&endpoint=URL,
                            postgres://USER@HOST/DB, git+REMOTE#BRANCH or dir:PATH
      migrate               copies every record, samples and all, under the same paths, then
                            reads the target back and checks each gate's count; a second
                            migrate adds nothing. STORE: git-branch (the data branch of
                            --repo/--remote/--branch), dir:PATH or a --store URL
      --gate KEY, --benchmark NAME
                            list only this gate's or this benchmark's records
      --limit N             list only the newest N records of each benchmark
      --json                print JSON instead of text
      --by NAME, --note TEXT
                            who accepts (default: $GITHUB_ACTOR or $USER) and why
      --dry-run             print the path accept would write, and write nothing
`;

export const BASELINE_HELP = `Usage:
${BASELINE_USAGE}
Exit codes:
  0  done (also: no records yet)
  2  usage or input error (unknown record path, bad flag, unreadable data branch)
`;

const RUN_USAGE = `  ${TOOL_NAME} run [--config FILE] [--baseline FILE...] [--out DIR] [--save-baseline FILE] [--quiet]
      Runs the configured benchmarks (each 'runs' times, then once with the Neuron
      profiler on) and compares them with the baseline.
      --config FILE         config file (default: .github/perf-gate.yml)
      --baseline FILE...    baseline: a file written by --save-baseline, a report.json,
                            or benchmark result files (several files = several runs)
      --out DIR             where report.json, comment.md, summary.md, run logs and
                            profiles go (default: perf-gate-output)
      --save-baseline FILE  write this run's results as a baseline file (only when the
                            run passed or had no baseline: a failed run never overwrites it)
      --quiet               do not stream the benchmarks' output
      --isolation KIND      auto (default), bubblewrap, unshare or none: the sandbox the
                            benchmark, probe, profiler and hooks run in (docs/security.md)
      --command CMD [--name N] [--format F] [--runs N] [--threshold throughput=5%]...
      [--profile auto|on-change|true|false] [--profile-mode auto|model|session] [--profiler-path P]
      [--confirm-runs N] [--confidence 95%] [--timeout-minutes M] [--working-directory D]
                            the same settings as the action's inputs; --command runs one
                            benchmark without a config file. --profile on-change profiles
                            only when a gated metric ends beyond its threshold, or always
                            with --save-baseline
      --threshold M=V       e.g. --threshold throughput=5% (repeatable); the same as
                            --thresholds 'throughput: 5%, latency_p99: 15%'
`;

const COMPARE_USAGE = `  ${TOOL_NAME} compare --baseline FILE... --current FILE... [--format FMT]
                    [--threshold METRIC=VALUE]... [--confidence LEVEL] [--name NAME] [--out DIR]
      Compares result files without running anything. Several files on one side are
      several runs of the same benchmarks.
      --format FMT          format of the result files (default: auto)
      --threshold M=V       e.g. --threshold throughput=3% (repeatable); the same as
                            --thresholds 'throughput: 3%' (defaults: throughput 5%,
                            latency_p50 5%, latency_p95 10%, latency_p99 15%, mfu 10%)
      --name NAME           name for results whose file names no benchmark
      --confidence LEVEL    confidence level of the intervals (default: 95%)
      --fail-on-inconclusive  exit 1 also when a change beyond its threshold is
                            inconclusive (its interval includes no change)
`;

const CALIBRATE_USAGE = `  ${TOOL_NAME} calibrate [--config FILE] [--runs N] | --results FILE... [--format FMT]
      Measures the run-to-run noise of every metric, from N clean runs of each
      configured benchmark (default 10) or from existing result files, and prints the
      smallest thresholds that keep false alarms under 1% as a thresholds: block.
      --isolation KIND      auto (default), bubblewrap, unshare or none: the sandbox the
                            benchmark, probe, profiler and hooks run in (docs/security.md)
`;

const HISTORY_USAGE = `  ${TOOL_NAME} history [--gate KEY] [--benchmark NAME] [--metric ID] [--json]
      Reads every stored record of the data branch as series (gate × benchmark × metric
      × instance/config, every run of every night) and prints their change points (first
      bad and last good record, step with its interval, environment change such as an
      SDK upgrade) and the regressions they make up (open, restored or accepted).
      --repo DIR, --branch NAME, --remote URL|PATH, --dir FOLDER, --store URL
                            where the records are, as for 'baseline list'
      --default-branch NAME only records of this branch (default: every branch)
      --json                print JSON (series with every run, change points, regressions)
      See docs/history.md for how change points are found and their error rates.
`;

const BISECT_USAGE = `  ${TOOL_NAME} bisect --good SHA --bad SHA [--config FILE] [--command CMD] [--max-runs N] [--json]
                   [--benchmark NAME] [--metric ID] [--confidence LEVEL] [--out DIR] [--quiet]
      Finds the first commit between a fast (--good) and a slow (--bad) one that measures
      like the slow one: each commit is checked out in its own git worktree, the configured
      benchmark runs there (clean runs only), and each commit gets runs only until it is
      surely nearer one end than the other. Prints the commit, its step with an interval
      and any environment change (Neuron SDK, compiler, runtime, vLLM) at it.
      --command CMD         run under bash in each worktree before its benchmark (a rebuild);
                            a commit it or the benchmark fails on is skipped
      --max-runs N          runs per commit at most, ends included (default 10)
      --benchmark NAME      which configured benchmark (needed when there are several)
      --metric ID           bisect this metric (default: the worsened one that is clearest)
      --confidence LEVEL    of every decision (default 99%)
      --out DIR             run logs and results (default: perf-gate-bisect)
      --json                print the result as JSON
      --isolation KIND      auto (default), bubblewrap, unshare or none: the sandbox the
                            benchmark, probe, profiler and hooks run in (docs/security.md)
      Exit 0: found (a commit, or a range when skipped commits hide it); 2: bad input or
      nothing to bisect; 3: the good or the bad end could not be built or run.
      See docs/bisect.md.
`;

const AB_USAGE = `  ${TOOL_NAME} ab --base REF [--head REF] [--config FILE] [--blocks N] [--confirm-blocks N]
                 [--base-env NAME=VALUE...] [--head-env NAME=VALUE...]
                 [--base-config FILE] [--head-config FILE] [--out DIR] [--quiet]
                 [--isolation KIND]
      Measures two versions on this host, side by side, e.g. ab --base HEAD~1: the base
      ref and the head (a ref, or by default the working tree), each in its own folder
      and prepared by the config's 'setup' command, run in blocks of base, head, head,
      base; each change is judged within the blocks, so the host's drift cancels. Exits
      1 when the head regressed against the base.
      --base REF, --head REF
                            the commits (a SHA, tag or branch); without --head, the
                            working tree as it is
      --base-env NAME=VALUE, --head-env NAME=VALUE
                            variables of one side only (repeatable): two environments,
                            e.g. two virtualenvs' PATH; without --base and --head both
                            sides are the committed HEAD, each in a worktree of its own
      --config FILE         each side at a commit reads it from that commit, the working
                            tree's side from the working tree; benchmarks pair by name;
                            its runs and confirm-runs do not apply, blocks do
      --base-config FILE, --head-config FILE
                            a config file of one side's own: two serving stacks side by
                            side (each its server, command and setup), benchmarks paired
                            by name; the head's judges (docs/moving-to-vllm-neuron.md)
      --blocks N            blocks every benchmark starts with, 2 to 50 (default 2: 4 runs
                            a side)
      --confirm-blocks N    blocks it may add while a change is open, 0 to 50 (default 1)
      --out DIR             report.json, comment.md, each side's run logs (default:
                            perf-gate-ab)
      --isolation KIND      auto (default), bubblewrap, unshare or none, as for run
      See docs/ab.md.
`;

const DASHBOARD_USAGE = `  ${TOOL_NAME} dashboard --out DIR [--gate KEY] [--repo-url URL] [--default-branch NAME]
                    [--title TEXT] [--missing-after N]
                    [--repo DIR | --remote URL | --branch NAME | --dir FOLDER | --store URL]
      Writes DIR/index.html: one self-contained page (charts bundled, nothing fetched)
      that opens with the open regressions and recent change points, then every stored
      series with each record's run-to-run spread, software changes, change points,
      regressions and acceptances, sweep curves, and links to each record's workflow run
      and commit (its subject from the clone, when it has the commit). See docs/dashboard.md.
      --repo-url URL        https://github.com/OWNER/REPO, below which runs and commits are linked
                            (default: $GITHUB_SERVER_URL/$GITHUB_REPOSITORY, or the remote)
      --default-branch NAME only this branch's records (default: every branch)
      --missing-after N     list a series as stopped reporting once its gate ran on N later
                            days without it (default 3; 0: never; docs/history.md)
      --repo DIR, --branch NAME, --remote URL|PATH, --dir FOLDER, --store URL
                            where the records are, as for 'baseline list'
`;

const EXIT_CODES = `Exit codes:
  0  no regression (pass, improvement, unchanged, inconclusive, no baseline)
  1  regression
  2  usage, config or input error
  3  a benchmark failed to run
`;

export const HELP = `${TOOL_NAME} ${TOOL_VERSION}: performance gate for vllm-neuron benchmarks on AWS Inferentia2 and Trainium2

Usage:
${RUN_USAGE}
${COMPARE_USAGE}
${CALIBRATE_USAGE}
${HISTORY_USAGE}
${BISECT_USAGE}
${AB_USAGE}
${DASHBOARD_USAGE}
${BASELINE_USAGE}
  ${TOOL_NAME} --help | --version

The markdown report goes to stdout, progress to stderr.

${EXIT_CODES}`;

/** The help of one command (`run --help`), or undefined for a command without one. */
export function commandHelp(command: string | undefined): string | undefined {
  const usages: Record<string, string> = {
    run: RUN_USAGE,
    compare: COMPARE_USAGE,
    calibrate: CALIBRATE_USAGE,
    history: HISTORY_USAGE,
    bisect: BISECT_USAGE,
    ab: AB_USAGE,
    dashboard: DASHBOARD_USAGE,
  };
  const usage = command === undefined ? undefined : usages[command];
  return usage === undefined ? undefined : `Usage:\n${usage}\n${EXIT_CODES}`;
}
