// The shape of src/: which folder (or top-level file) may import which. Each room has a
// floor; an import must point to a lower floor, so data flows one way (docs/development.md,
// Architecture) and no circle can form between rooms. Inside a room, files may import each other, but no
// circle of files. test/house/imports.test.ts fails on either; `node scripts/house.mjs
// --write` redraws the table in docs/development.md from the code's imports.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';

/**
 * Floor → rooms, from the ground up, each with what it holds. Formats sits below config
 * because config checks a benchmark's `format` against the registry of parsers; github is
 * the API adapter, low in the house: it takes rendered bodies from the stages above.
 */
export const FLOORS = [
  [
    ['model.ts', 'the data model; imports nothing'],
    ['errors.ts', 'error kinds and messages'],
    ['log.ts', 'the logger interface'],
    ['signals.ts', 'termination signals'],
    ['version.ts', 'the tool version'],
    ['fs', 'atomic writes, link refusal'],
    ['text', 'printable text, durations'],
    ['secrets-in-memory.ts', 'secrets kept from the environment'],
    ['raw-text.d.ts', 'types of ?raw imports'],
  ],
  [
    ['stats', 'all numerics: distributions, intervals, tests, power'],
    ['net', 'deadlines for network calls'],
    ['secrets-first.ts', 'secrets taken before anything else loads'],
  ],
  [
    ['formats', 'parse: one module per result format'],
    ['github', 'the GitHub API adapter: events, comments, artifacts, issues'],
  ],
  [['config', 'settings: inputs, flags and YAML into a validated GateConfig']],
  [
    ['inputs.ts', 'the action inputs, named once'],
    ['runner', 'run: processes, sandbox, benchmark runs'],
  ],
  [
    ['environment', 'observe: the environment fingerprint'],
    ['observe', 'observe: the compile cache and neuron-monitor around the runs, /proc beside them'],
    ['profile', 'profile: NTFF/NEFF files into a ProfileSummary'],
    ['derive', 'derive: goodput, attainment, capacity under an SLO, and cost'],
    ['accuracy', "agreement: the answers against the base's or stored ones, teacher-forced"],
  ],
  [['baseline', 'baseline: records and their stores']],
  [['compare', 'compare: verdicts per metric, benchmark and gate']],
  [
    ['report', 'report: markdown and report.json'],
    ['calibrate', 'run counts and thresholds from measured noise'],
  ],
  [
    ['pipeline.ts', 'the gate: settings → run → judge → store'],
    ['history', 'history: series, change points, regressions'],
  ],
  [
    ['publish', 'publish: comment, summary, outputs, artifacts, issues'],
    ['dashboard', 'the dashboard page'],
    ['bisect', 'bisect: the first bad commit'],
  ],
  [['ab', 'same-runner A/B']],
  [
    ['action', "the action's modes"],
    ['cli', "the CLI's commands"],
  ],
  [
    ['main.ts', 'the action'],
    ['cli.ts', 'the CLI'],
  ],
  [
    ['index.ts', "the action's entry"],
    ['launcher', "the CLI's launcher (checks the Node.js version)"],
  ],
];

const floorOf = new Map(FLOORS.flatMap((rooms, floor) => rooms.map(([room]) => [room, floor])));

/** The room of a path relative to src/: its first folder, or the file itself. */
export function roomOf(path) {
  return path.split(sep)[0];
}

const IMPORT = /(?:^|[\s;])(?:import|export)\s[^'"`]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]/g;
const BARE_IMPORT = /(?:^|[\s;])import\s*['"](\.{1,2}\/[^'"]+)['"]/g;
const DYNAMIC_IMPORT = /\bimport\(\s*['"`](\.{1,2}\/[^'"`$]+)['"`]\s*\)/g;

/**
 * The text with its comments blanked out, so an import in a comment is not one and an
 * apostrophe in a comment does not hide the import around it. Strings and template
 * literals are kept as they are (an import specifier is one); a `//` inside them stays.
 */
function withoutComments(text) {
  let out = '';
  let quote = '';
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i];
    if (quote) {
      out += char;
      if (char === '\\') out += text[++i] ?? '';
      else if (char === quote) quote = '';
    } else if (char === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i += 1;
      out += '\n';
    } else if (char === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
      out += ' ';
    } else {
      if (char === "'" || char === '"' || char === '`') quote = char;
      out += char;
    }
  }
  return out;
}

/** Every source file under srcDir, relative to it. */
function sourceFiles(srcDir) {
  return readdirSync(srcDir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(ts|js|mjs)$/.test(entry.name))
    .map((entry) => relative(srcDir, join(entry.parentPath, entry.name)))
    .sort();
}

/** File → the files of src/ it imports (type-only imports too), relative to src/. */
export function readImportGraph(srcDir) {
  const graph = new Map();
  const files = sourceFiles(srcDir);
  const known = new Set(files);
  for (const file of files) {
    const text = withoutComments(readFileSync(join(srcDir, file), 'utf8'));
    const targets = new Set();
    for (const pattern of [IMPORT, BARE_IMPORT, DYNAMIC_IMPORT]) {
      for (const match of text.matchAll(pattern)) {
        const spec = match[1].replace(/\?raw$/, '');
        const target = normalize(join(dirname(file), spec)).replace(/\.js$/, '.ts');
        if (known.has(target)) targets.add(target);
        else if (known.has(normalize(join(dirname(file), spec)))) {
          targets.add(normalize(join(dirname(file), spec)));
        }
      }
    }
    graph.set(file, [...targets].sort());
  }
  return graph;
}

/** Imports that do not point to a lower floor, and rooms with no floor. */
export function upwardImports(graph) {
  const problems = [];
  for (const [file, targets] of graph) {
    const from = roomOf(file);
    if (!floorOf.has(from)) {
      problems.push(`${file}: its room '${from}' has no floor in scripts/house.mjs FLOORS`);
      continue;
    }
    for (const target of targets) {
      const to = roomOf(target);
      if (to === from || !floorOf.has(to)) continue;
      if (floorOf.get(to) >= floorOf.get(from)) {
        problems.push(
          `${file} imports ${target}: '${from}' (floor ${floorOf.get(from)}) may only import rooms below it, and '${to}' is on floor ${floorOf.get(to)}`,
        );
      }
    }
  }
  return problems;
}

/** Circles of files (strongly connected components of more than one file, or a self-import). */
export function importCircles(graph) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const circles = [];
  let counter = 0;
  const visit = (file) => {
    index.set(file, counter);
    low.set(file, counter);
    counter += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file), low.get(target)));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file), index.get(target)));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    const selfImport = (graph.get(file) ?? []).includes(file);
    if (component.length > 1 || selfImport) circles.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return circles;
}

/** The house as a markdown table, top floor first, with the rooms each room imports. */
export function renderHouse(graph) {
  const importsOf = (room) => {
    const rooms = new Set();
    for (const [file, targets] of graph) {
      if (roomOf(file) !== room) continue;
      for (const target of targets) if (roomOf(target) !== room) rooms.add(roomOf(target));
    }
    return [...rooms].sort((a, b) => floorOf.get(b) - floorOf.get(a) || a.localeCompare(b));
  };
  const rows = ['| floor | room | holds | imports |', '|---|---|---|---|'];
  for (let floor = FLOORS.length - 1; floor >= 0; floor -= 1) {
    for (const [room, holds] of FLOORS[floor]) {
      const name = room.includes('.') ? `\`src/${room}\`` : `\`src/${room}/\``;
      const uses = importsOf(room).map((r) => `\`${r}\``);
      rows.push(`| ${floor} | ${name} | ${holds} | ${uses.join(' ')} |`);
    }
  }
  return rows.join('\n');
}

const BEGIN = '<!-- house: begin (node scripts/house.mjs --write) -->';
const END = '<!-- house: end -->';

/** docs/development.md with the table between its markers replaced. */
export function withHouseTable(doc, table) {
  const begin = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (begin < 0 || end < begin) throw new Error(`the markers ${BEGIN} … ${END} are missing`);
  return `${doc.slice(0, begin + BEGIN.length)}\n${table}\n${doc.slice(end)}`;
}

/** The rows of the table between the markers, cell by cell (whatever the padding). */
export function houseRows(doc) {
  const body = doc.slice(doc.indexOf(BEGIN) + BEGIN.length, doc.indexOf(END));
  return body
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|[-\s|:]+\|$/.test(line))
    .map((line) => line.split('|').map((cell) => cell.trim()));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const graph = readImportGraph('src');
  const problems = [...upwardImports(graph), ...importCircles(graph).map((c) => c.join(' → '))];
  for (const problem of problems) console.error(problem);
  const table = renderHouse(graph);
  if (process.argv.includes('--write')) {
    const path = 'docs/development.md';
    writeFileSync(path, withHouseTable(readFileSync(path, 'utf8'), table));
    execFileSync('npx', ['prettier', '--write', path], { stdio: 'inherit' });
  } else console.log(table);
  process.exitCode = problems.length > 0 ? 1 : 0;
}
