// A record store named in one word, for the CLI's --store and `baseline migrate`:
//
//   s3://BUCKET[/PREFIX][?region=REGION&endpoint=URL&path-style=true]
//   postgres://USER:PASSWORD@HOST/DB   (or postgresql://…)
//   git+REMOTE[#BRANCH]                a data branch of any remote git takes (https://,
//                                      ssh://, file://, a path); BRANCH perf-gate-data
//   dir:PATH                           a folder of record files
//
// The result lacks what only the caller knows (the git store's scratch folder).

import { resolveRemote } from './git/remote.js';
import { DEFAULT_S3_PREFIX, type StoreSpec } from './open-backend.js';
import { DEFAULT_DATA_BRANCH } from './git/git-branch-store.js';
import { usageError } from '../errors.js';
import {
  ALLOWED,
  baselineS3BucketSchema,
  baselineS3EndpointSchema,
  baselineS3PrefixSchema,
  baselineS3RegionSchema,
} from '../config/schema.js';
import { resolve } from 'node:path';

export type ParsedStore =
  | Exclude<StoreSpec, { kind: 'git-branch' }>
  | { kind: 'git-branch'; remote: string; branch: string };

const FORMS =
  's3://BUCKET/PREFIX?region=REGION&endpoint=URL, postgres://USER@HOST/DB, git+REMOTE#BRANCH or dir:PATH';

/** The store `text` names; relative paths are taken from `cwd`. `flag` names it in errors. */
export function parseStoreUrl(text: string, cwd: string, flag = '--store'): ParsedStore {
  if (text.startsWith('git+')) return parseGit(text.slice('git+'.length), cwd, flag);
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text)?.[1]?.toLowerCase();
  if (scheme === 's3') return parseS3(text, flag);
  if (scheme === 'postgres' || scheme === 'postgresql') {
    return { kind: 'postgres', connectionString: text };
  }
  if (scheme === 'dir') {
    const dir = text.slice('dir:'.length);
    if (dir === '') throw usageError(`${flag} dir:: give the folder, like dir:./records`);
    return { kind: 'folder', dir: resolve(cwd, dir) };
  }
  // Never echo the text: it may be a connection string with a password in it.
  throw usageError(
    `${flag}: ${scheme ? `'${scheme}:' is not a store this tool knows` : 'not a store URL'}; give ${FORMS}`,
  );
}

function parseS3(text: string, flag: string): ParsedStore {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw usageError(`${flag} ${text}: not a URL; give s3://BUCKET/PREFIX`);
  }
  if (url.hostname === '' || url.username !== '' || url.password !== '') {
    throw usageError(
      `${flag} ${url.protocol}//${url.host}…: give the bucket as the host, s3://BUCKET/PREFIX; credentials come from the AWS environment, never the URL`,
    );
  }
  const known = new Set(['region', 'endpoint', 'path-style']);
  for (const key of url.searchParams.keys()) {
    if (!known.has(key)) {
      throw usageError(`${flag}: unknown S3 option '${key}'; known: region, endpoint, path-style`);
    }
  }
  const prefix = decodeURIComponent(url.pathname).replace(/^\/+|\/+$/g, '');
  const region = url.searchParams.get('region');
  const endpoint = url.searchParams.get('endpoint');
  const pathStyle = url.searchParams.get('path-style');
  const bad = [
    {
      part: 'the bucket',
      value: url.hostname,
      schema: baselineS3BucketSchema,
      rule: ALLOWED.baselineS3Bucket,
    },
    {
      part: 'the prefix',
      value: prefix || undefined,
      schema: baselineS3PrefixSchema,
      rule: ALLOWED.baselineS3Prefix,
    },
    {
      part: 'region=',
      value: region,
      schema: baselineS3RegionSchema,
      rule: ALLOWED.baselineS3Region,
    },
    {
      part: 'endpoint=',
      value: endpoint,
      schema: baselineS3EndpointSchema,
      rule: ALLOWED.baselineS3Endpoint,
    },
  ].find(({ value, schema }) => value != null && !schema.safeParse(value).success);
  if (bad) throw usageError(`${flag} s3://…: ${bad.part} is not usable (${bad.rule})`);
  return {
    kind: 's3',
    bucket: url.hostname,
    prefix: prefix || DEFAULT_S3_PREFIX,
    ...(region ? { region } : {}),
    ...(endpoint ? { endpoint } : {}),
    ...(pathStyle === 'true' ? { forcePathStyle: true } : {}),
  };
}

function parseGit(rest: string, cwd: string, flag: string): ParsedStore {
  const hash = rest.lastIndexOf('#');
  const remote = hash === -1 ? rest : rest.slice(0, hash);
  const branch = hash === -1 ? DEFAULT_DATA_BRANCH : rest.slice(hash + 1);
  if (remote === '' || branch === '') {
    throw usageError(
      `${flag} git+${rest}: give the remote and, if not ${DEFAULT_DATA_BRANCH}, the branch: git+https://github.com/OWNER/REPO.git#BRANCH or git+../origin.git`,
    );
  }
  return { kind: 'git-branch', remote: resolveRemote(remote, cwd), branch };
}
