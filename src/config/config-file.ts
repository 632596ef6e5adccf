// The YAML config file: read, parse, validate against the schema, check that working
// directories exist. Every problem found is reported together, with line and column.

import { readFile } from 'node:fs/promises';
import { unreadableConfigFile } from '../fs/no-links.js';

import { errorMessage, GateError } from '../errors.js';
import { directoryProblem, WORKING_DIRECTORY_ALLOWED } from './directories.js';
import { issuesToProblems } from './format-issues.js';
import { nulByteProblems } from './nul-bytes.js';
import type { Locate } from './format-issues.js';
import { foundMessage, formatPath, problemsError } from './problems.js';
import type { PathSegment, Problem } from './problems.js';
import { profilerEnvProblems } from './profiler-env-problems.js';
import { configFileSchema } from './schema.js';
import type { ConfigFile } from './schema.js';
import { findDuplicateNames, UNIQUE_NAME_ALLOWED } from './unique-names.js';
import { parseYamlConfig } from './yaml-file.js';

/**
 * `path` is absolute; `label` is how messages name the file (relative to the workspace).
 * Throws a GateError of kind 'config' listing every problem.
 */
export async function readConfigFile(
  path: string,
  label: string,
  workspace: string,
): Promise<ConfigFile> {
  let text: string;
  try {
    // The file is the pull request's: a link to .git/config or a file outside the
    // workspace would put its lines (a token) into the error messages the job log shows.
    const refused = await unreadableConfigFile(path, workspace);
    if (refused !== undefined) {
      throw problemsError('config', [{ where: label, path: '', message: refused }], label);
    }
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (error instanceof GateError) throw error;
    const message = `cannot read the file: ${errorMessage(error)}`;
    throw problemsError('config', [{ where: label, path: '', message }], label);
  }

  const yaml = parseYamlConfig(text, label);
  if (!yaml.ok) throw problemsError('config', yaml.problems, label);
  const nul = nulByteProblems(yaml.data, label, yaml.locate);
  if (nul.length > 0) throw problemsError('config', nul, label);

  const problems: Problem[] = [];
  const result = configFileSchema.safeParse(yaml.data, { reportInput: true });
  if (!result.success) {
    problems.push(...issuesToProblems(result.error.issues, { where: label, locate: yaml.locate }));
  }
  problems.push(...duplicateNameProblems(yaml.data, label, yaml.locate));
  for (const { path, key, message } of profilerEnvProblems(yaml.data)) {
    problems.push(problemAt(label, path, yaml.locate, message, key));
  }
  problems.push(...(await workingDirectoryProblems(yaml.data, workspace, label, yaml.locate)));
  if (!result.success || problems.length > 0) {
    throw problemsError('config', sortByPosition(problems), label);
  }
  return result.data;
}

function duplicateNameProblems(data: unknown, where: string, locate: Locate): Problem[] {
  return findDuplicateNames(data).map(({ name, index, firstIndex }) =>
    problemAt(
      where,
      ['benchmarks', index, 'name'],
      locate,
      foundMessage(
        name,
        `already the name of benchmarks[${firstIndex}]${lineOf(locate, firstIndex)}; ${UNIQUE_NAME_ALLOWED}`,
      ),
    ),
  );
}

function lineOf(locate: Locate, index: number): string {
  const position = locate(['benchmarks', index, 'name']);
  return position ? ` (line ${position.line})` : '';
}

/** Checks every working-directory the file names, where it names it. */
async function workingDirectoryProblems(
  data: unknown,
  workspace: string,
  where: string,
  locate: Locate,
): Promise<Problem[]> {
  const declared: { path: PathSegment[]; value: string }[] = [];
  const collect = (mapping: unknown, path: PathSegment[]) => {
    const value = isRecord(mapping) ? mapping['working-directory'] : undefined;
    if (typeof value === 'string' && value.trim() !== '') {
      declared.push({ path: [...path, 'working-directory'], value: value.trim() });
    }
  };
  collect(data, []);
  const benchmarks = isRecord(data) ? data['benchmarks'] : undefined;
  if (Array.isArray(benchmarks))
    benchmarks.forEach((entry, index) => collect(entry, ['benchmarks', index]));

  const problems: Problem[] = [];
  for (const { path, value } of declared) {
    const reason = await directoryProblem(workspace, value);
    if (reason === undefined) continue;
    problems.push(
      problemAt(
        where,
        path,
        locate,
        foundMessage(value, `${reason}; ${WORKING_DIRECTORY_ALLOWED}`),
      ),
    );
  }
  return problems;
}

function problemAt(
  where: string,
  path: PathSegment[],
  locate: Locate,
  message: string,
  key = false,
): Problem {
  const position = locate(path, { key });
  return {
    where,
    ...(position ? { line: position.line, column: position.column } : {}),
    path: formatPath(path),
    message,
  };
}

/** In file order, so the list reads top to bottom like the file. */
function sortByPosition(problems: Problem[]): Problem[] {
  return problems
    .map((problem, index) => ({ problem, index }))
    .sort(
      (a, b) =>
        (a.problem.line ?? 0) - (b.problem.line ?? 0) ||
        (a.problem.column ?? 0) - (b.problem.column ?? 0) ||
        a.index - b.index,
    )
    .map(({ problem }) => problem);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
