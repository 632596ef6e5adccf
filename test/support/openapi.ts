// GitHub's published OpenAPI description (@octokit/openapi's api.github.com.json), used to
// check the requests our code sends to the loopback API and the answers the loopback API
// gives back. The description is read once per test process, when first needed.
//
// The plain file (13 MB) is read rather than the dereferenced one (73 MB): parsing it is about
// five times faster and takes a fifth of the memory. `$ref`s are resolved by ajv instead: only
// the component schemas an operation actually uses are registered, when that operation is
// first checked.
//
// The description is OpenAPI 3.0, not plain JSON Schema, so every schema is adjusted before
// ajv sees it: `nullable: true` without a `type` becomes `anyOf [schema, null]` (ajv only
// understands `nullable` next to `type`), examples are dropped, and component `$ref`s point at
// the registered component schemas.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsPlugin from 'ajv-formats';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Json;
}

interface Operation {
  operationId: string;
  parameters: Parameter[];
  requestBody?: JsonObject;
  responses: JsonObject;
}

export interface OperationMatch {
  method: string;
  /** The path as the description writes it, e.g. `/repos/{owner}/{repo}/issues`. */
  template: string;
  /** Path parameters, decoded. */
  params: Record<string, string>;
  operationId: string;
}

export interface RequestToCheck {
  method: string;
  path: string;
  query: URLSearchParams;
  /** The parsed JSON body; `undefined` when the request had none. */
  body: unknown;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const COMPONENT_PREFIX = '#/components/schemas/';
const COMPONENT_ID = 'https://openapi.test/github/components/schemas/';
/** Formats GitHub's description uses that ajv-formats does not know; not checked. */
const UNCHECKED_FORMATS = ['repo.nwo', 'timestamp'];
const MAX_MESSAGES = 5;

/**
 * The problems with one request, measured against GitHub's description: an unknown method
 * and path, path or query parameters the operation does not declare or whose values do not
 * fit, a JSON body that does not fit the operation's schema (or top-level fields the schema
 * does not name: GitHub ignores those silently, so they are almost always a typo). Empty when
 * the request is fine.
 */
export function requestProblems(request: RequestToCheck): string[] {
  const description = githubDescription();
  const match = description.find(request.method, request.path);
  if (!match) {
    return [`${request.method} ${request.path} is not an operation in GitHub's REST API`];
  }
  return [
    ...description.parameterProblems(match, 'path', match.params),
    ...description.parameterProblems(match, 'query', Object.fromEntries(request.query)),
    ...description.bodyProblems(match, request.body),
  ];
}

/** The problems with a response body, for an operation given by method and path template. */
export function responseProblems(
  method: string,
  template: string,
  status: number,
  body: unknown,
): string[] {
  return githubDescription().responseProblems(method, template, status, body);
}

/** The operation a request is for, or `undefined` when GitHub's REST API has none. */
export function findOperation(method: string, path: string): OperationMatch | undefined {
  return githubDescription().find(method, path);
}

/**
 * The path parameters when `path` fits `template` (`{name}` stands for one path segment, or
 * part of one as in `{base}...{head}`), else `undefined`.
 */
export function matchTemplate(template: string, path: string): Record<string, string> | undefined {
  const { segments, names } = compiledTemplate(template);
  const parts = path.split('/');
  if (parts.length !== segments.length) return undefined;
  const values: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const segment = segments[i]!;
    if (typeof segment === 'string') {
      if (segment !== parts[i]) return undefined;
      continue;
    }
    const found = segment.exec(parts[i]!);
    if (!found) return undefined;
    values.push(...found.slice(1));
  }
  const params: Record<string, string> = {};
  names.forEach((name, i) => (params[name] = safeDecode(values[i]!)));
  return params;
}

/**
 * Orders templates from most to least specific, so that `/issues/comments` is tried before
 * `/issues/{issue_number}`: the first segment where they differ decides, a literal beating
 * a parameter.
 */
export function compareSpecificity(a: string, b: string): number {
  const as = a.split('/');
  const bs = b.split('/');
  for (let i = 0; i < Math.min(as.length, bs.length); i++) {
    const aLiteral = !as[i]!.includes('{');
    const bLiteral = !bs[i]!.includes('{');
    if (aLiteral !== bLiteral) return aLiteral ? -1 : 1;
  }
  return 0;
}

// --- the description -----------------------------------------------------------------------

let cached: GitHubDescription | undefined;

function githubDescription(): GitHubDescription {
  cached ??= new GitHubDescription(readDescription());
  return cached;
}

function readDescription(): JsonObject {
  const require = createRequire(import.meta.url);
  const file = require.resolve('@octokit/openapi/generated/api.github.com.json');
  return JSON.parse(readFileSync(file, 'utf8')) as JsonObject;
}

class GitHubDescription {
  /** Per upper-case method, the templates most specific first. */
  private readonly templates = new Map<string, string[]>();
  private readonly operations = new Map<string, Operation>();
  private readonly schemas: SchemaCompiler;
  private readonly parameterSchemas: SchemaCompiler;
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(document: JsonObject) {
    const components = asObject(document.components);
    const componentSchemas = asObject(components.schemas);
    const sharedParameters = asObject(components.parameters);
    const sharedResponses = asObject(components.responses);
    const resolve = (node: Json | undefined, shared: JsonObject): JsonObject => {
      const object = asObject(node ?? {});
      const ref = object.$ref;
      return typeof ref === 'string' ? asObject(shared[ref.split('/').pop()!]) : object;
    };

    for (const [template, item] of Object.entries(asObject(document.paths))) {
      const pathItem = asObject(item);
      const shared = asArray(pathItem.parameters).map((p) => resolve(p, sharedParameters));
      for (const method of HTTP_METHODS) {
        const operation = pathItem[method];
        if (!operation) continue;
        const op = asObject(operation);
        const own = asArray(op.parameters).map((p) => resolve(p, sharedParameters));
        const responses: JsonObject = {};
        for (const [status, response] of Object.entries(asObject(op.responses))) {
          responses[status] = resolve(response, sharedResponses);
        }
        const upper = method.toUpperCase();
        this.operations.set(`${upper} ${template}`, {
          operationId: String(op.operationId),
          parameters: [...shared, ...own] as unknown as Parameter[],
          ...(op.requestBody ? { requestBody: asObject(op.requestBody) } : {}),
          responses,
        });
        const list = this.templates.get(upper) ?? [];
        list.push(template);
        this.templates.set(upper, list);
      }
    }
    for (const list of this.templates.values()) list.sort(compareSpecificity);
    this.schemas = new SchemaCompiler(componentSchemas, false);
    this.parameterSchemas = new SchemaCompiler(componentSchemas, true);
  }

  find(method: string, path: string): OperationMatch | undefined {
    const upper = method.toUpperCase();
    for (const template of this.templates.get(upper) ?? []) {
      const params = matchTemplate(template, path);
      if (!params) continue;
      const { operationId } = this.operations.get(`${upper} ${template}`)!;
      return { method: upper, template, params, operationId };
    }
    return undefined;
  }

  parameterProblems(
    match: OperationMatch,
    location: 'path' | 'query',
    values: Record<string, string>,
  ): string[] {
    const key = `${match.method} ${match.template} ${location}`;
    const validate = this.validator(key, this.parameterSchemas, () => {
      const declared = this.operation(match).parameters.filter((p) => p.in === location);
      return {
        type: 'object',
        properties: Object.fromEntries(declared.map((p) => [p.name, oneOfAsAnyOf(p.schema ?? {})])),
        required: declared.filter((p) => p.required).map((p) => p.name),
        additionalProperties: false,
      };
    });
    // Coercion turns '2' into 2 in place, so the caller's values are copied first.
    if (validate({ ...values })) return [];
    return describeErrors(validate.errors, `${location} parameter`);
  }

  bodyProblems(match: OperationMatch, body: unknown): string[] {
    const requestBody = this.operation(match).requestBody;
    if (body === undefined) {
      return requestBody?.required === true ? ['the operation requires a request body'] : [];
    }
    if (!requestBody) return ['the request has a body, but the operation takes none'];
    const schema = jsonSchemaOf(requestBody);
    if (!schema) return [];
    const problems = [...this.unnamedFields(schema, body)];
    const validate = this.validator(`${match.method} ${match.template} body`, this.schemas, () => {
      return schema;
    });
    if (!validate(body)) problems.push(...describeErrors(validate.errors, 'body'));
    return problems;
  }

  responseProblems(method: string, template: string, status: number, body: unknown): string[] {
    const upper = method.toUpperCase();
    const operation = this.operations.get(`${upper} ${template}`);
    if (!operation) return [`${upper} ${template} is not an operation in GitHub's REST API`];
    const response = operation.responses[String(status)];
    if (!response) return [`${upper} ${template} does not answer ${status}`];
    const schema = jsonSchemaOf(asObject(response));
    if (!schema) return body === undefined ? [] : [`a ${status} answer has no JSON body`];
    const validate = this.validator(`${upper} ${template} ${status}`, this.schemas, () => schema);
    return validate(body) ? [] : describeErrors(validate.errors, 'response');
  }

  private unnamedFields(schema: Json, body: unknown): string[] {
    const object = asObject(schema);
    if (!isPlainObject(body) || !isPlainObject(object.properties)) return [];
    if (object.additionalProperties !== undefined) return [];
    const named = new Set(Object.keys(object.properties));
    return Object.keys(body)
      .filter((field) => !named.has(field))
      .map((field) => `body field "${field}" is not in the schema (GitHub would ignore it)`);
  }

  private operation(match: OperationMatch): Operation {
    return this.operations.get(`${match.method} ${match.template}`)!;
  }

  private validator(key: string, compiler: SchemaCompiler, schema: () => Json): ValidateFunction {
    let validate = this.validators.get(key);
    if (!validate) {
      validate = compiler.compile(schema());
      this.validators.set(key, validate);
    }
    return validate;
  }
}

/** One ajv instance; registers the component schemas a compiled schema refers to. */
class SchemaCompiler {
  private readonly ajv: Ajv;
  private readonly registered = new Set<string>();

  constructor(
    private readonly components: JsonObject,
    coerce: boolean,
  ) {
    this.ajv = new Ajv({
      strict: false,
      allErrors: true,
      validateSchema: false,
      ...(coerce ? { coerceTypes: 'array' as const } : {}),
    });
    const addFormats = addFormatsPlugin as unknown as (ajv: Ajv) => Ajv;
    addFormats(this.ajv);
    for (const format of UNCHECKED_FORMATS) this.ajv.addFormat(format, true);
  }

  compile(schema: Json): ValidateFunction {
    const prepared = prepareSchema(schema);
    this.register(prepared);
    return this.ajv.compile(asObject(prepared));
  }

  private register(schema: Json): void {
    for (const id of componentRefs(schema)) {
      if (this.registered.has(id)) continue;
      this.registered.add(id);
      const name = id.slice(COMPONENT_ID.length);
      const component = this.components[name];
      if (component === undefined) throw new Error(`the description has no schema ${name}`);
      const prepared = { ...asObject(prepareSchema(component)), $id: id };
      this.ajv.addSchema(prepared);
      this.register(prepared);
    }
  }
}

function prepareSchema(node: Json): Json {
  if (Array.isArray(node)) return node.map(prepareSchema);
  if (!isPlainObject(node)) return node;
  const copy: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'example' || key === 'examples' || key === 'nullable') continue;
    if (key === 'properties' && isPlainObject(value)) {
      // Keys here are field names, not keywords: a field may well be called "example".
      copy.properties = Object.fromEntries(
        Object.entries(value).map(([field, schema]) => [field, prepareSchema(schema)]),
      );
    } else if (key === '$ref' && typeof value === 'string' && value.startsWith(COMPONENT_PREFIX)) {
      copy.$ref = COMPONENT_ID + value.slice(COMPONENT_PREFIX.length);
    } else {
      copy[key] = prepareSchema(value);
    }
  }
  if (node.nullable !== true) return copy;
  if (copy.type === undefined) return { anyOf: [copy, { type: 'null' }] };
  // ajv adds null to the type but still checks an enum, which seldom lists null.
  if (Array.isArray(copy.enum) && !copy.enum.includes(null)) copy.enum = [...copy.enum, null];
  return { ...copy, nullable: true };
}

/**
 * A parameter arrives as text, so `oneOf: [integer, string]` (a workflow id or file name)
 * would match twice for "42": any branch that fits is enough.
 */
function oneOfAsAnyOf(node: Json): Json {
  if (Array.isArray(node)) return node.map(oneOfAsAnyOf);
  if (!isPlainObject(node)) return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key === 'oneOf' ? 'anyOf' : key,
      oneOfAsAnyOf(value),
    ]),
  );
}

function componentRefs(node: Json, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) {
    for (const item of node) componentRefs(item, found);
  } else if (isPlainObject(node)) {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(COMPONENT_ID)) {
        found.add(value);
      } else {
        componentRefs(value, found);
      }
    }
  }
  return found;
}

function jsonSchemaOf(holder: JsonObject): Json | undefined {
  const content = holder.content;
  if (!isPlainObject(content)) return undefined;
  const json = content['application/json'];
  return isPlainObject(json) ? json.schema : undefined;
}

function describeErrors(errors: ErrorObject[] | null | undefined, subject: string): string[] {
  const messages = (errors ?? []).map((error) => {
    const where = error.instancePath ? `${subject} ${error.instancePath}` : subject;
    const params = error.params as Record<string, unknown>;
    const detail =
      'allowedValues' in params
        ? ` (${(params.allowedValues as unknown[]).join(', ')})`
        : 'additionalProperty' in params
          ? ` "${String(params.additionalProperty)}"`
          : '';
    return `${where} ${error.message ?? 'is invalid'}${detail}`;
  });
  return [...new Set(messages)].slice(0, MAX_MESSAGES);
}

// --- templates -----------------------------------------------------------------------------

const compiledTemplates = new Map<string, { segments: (string | RegExp)[]; names: string[] }>();

function compiledTemplate(template: string): { segments: (string | RegExp)[]; names: string[] } {
  let compiled = compiledTemplates.get(template);
  if (compiled) return compiled;
  const names: string[] = [];
  const segments = template.split('/').map((segment) => {
    if (!segment.includes('{')) return segment;
    const pattern = segment.replace(/\{([^}]+)\}|[^{]+/g, (part, name?: string) => {
      if (name === undefined) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(name);
      return '(.+?)';
    });
    return new RegExp(`^${pattern}$`);
  });
  compiled = { segments, names };
  compiledTemplates.set(template, compiled);
  return compiled;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

// --- JSON helpers --------------------------------------------------------------------------

function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asObject(value: Json | undefined): JsonObject {
  return isPlainObject(value) ? value : {};
}

function asArray(value: Json | undefined): Json[] {
  return Array.isArray(value) ? value : [];
}
