// The agreement check's settings made whole: its prompts read (a JSON Lines file in the
// repository, or the default set), the server's origin settled, and the entry checked for
// what the check needs (a server; not a sweep, whose variants share one).

import { readFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { DEFAULT_PROMPTS } from './default-prompts.js';
import { configError, errorMessage } from '../errors.js';
import { unreadableConfigFile } from '../fs/no-links.js';
import { ACCURACY_ALLOWED, ACCURACY_LIMITS } from './accuracy-schema.js';
import { problemsError } from './problems.js';
import type { AccuracySetting, AccuracySpec, ServerSpec } from './types.js';

const MAX_PROMPT_FILE_BYTES = 4 * 1024 * 1024;

export async function accuracySpec(
  setting: AccuracySetting,
  entry: { server?: ServerSpec; sweep?: unknown },
  where: { at: string; file: string; workspace: string },
): Promise<AccuracySpec> {
  const refuse = (path: string, message: string) =>
    problemsError(
      'config',
      [{ where: where.file, path: `${where.at}.accuracy${path}`, message }],
      where.file,
    );
  if (!entry.server) throw refuse('', ACCURACY_ALLOWED.needsServer);
  if (entry.sweep !== undefined) throw refuse('', ACCURACY_ALLOWED.notOnSweep);
  const origin = setting.origin ?? originOf(entry.server);
  if (origin === undefined) {
    throw refuse(
      '.url',
      `the server is ready by its log, so the gate does not know its port; ${ACCURACY_ALLOWED.url}`,
    );
  }
  const { promptsFile, ...rest } = setting;
  const prompts =
    promptsFile === undefined
      ? {
          prompts: [...DEFAULT_PROMPTS],
          promptsSource: `the default ${DEFAULT_PROMPTS.length} prompts`,
        }
      : await readPrompts(resolve(where.workspace, promptsFile), where.workspace);
  return { ...rest, origin, ...prompts };
}

/** The origin of a server's ready-url; undefined for one told ready by its log. */
export function originOf(server: ServerSpec): string | undefined {
  return 'url' in server.readiness ? new URL(server.readiness.url).origin : undefined;
}

/** The prompts of a JSON Lines file: one `{"prompt": "…"}` a line, blank lines skipped. */
async function readPrompts(
  path: string,
  workspace: string,
): Promise<{ prompts: string[]; promptsSource: string }> {
  const label = relative(workspace, path) || path;
  const refused = await unreadableConfigFile(path, workspace);
  if (refused !== undefined) throw configError(label, `cannot read the prompt file: ${refused}`);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw configError(
      label,
      `cannot read the prompt file: ${errorMessage(error)}; ${ACCURACY_ALLOWED.prompts}`,
    );
  }
  if (text.length > MAX_PROMPT_FILE_BYTES)
    throw configError(label, `the prompt file is over 4 MiB; ${ACCURACY_ALLOWED.prompts}`);
  const prompts: string[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    prompts.push(promptOfLine(line, `${label}:${index + 1}`));
  }
  if (prompts.length < ACCURACY_LIMITS.minPrompts || prompts.length > ACCURACY_LIMITS.prompts) {
    throw configError(label, `${prompts.length} prompt(s); ${ACCURACY_ALLOWED.prompts}`);
  }
  return { prompts, promptsSource: label };
}

function promptOfLine(line: string, where: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    throw configError(where, `not a JSON line; ${ACCURACY_ALLOWED.prompts}`);
  }
  const prompt =
    typeof parsed === 'object' && parsed !== null
      ? (parsed as { prompt?: unknown }).prompt
      : undefined;
  if (typeof prompt !== 'string' || prompt === '' || prompt.includes('\u0000')) {
    throw configError(where, `no "prompt" text; ${ACCURACY_ALLOWED.prompts}`);
  }
  return prompt;
}
