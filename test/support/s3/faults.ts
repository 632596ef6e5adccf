// Faults a test programs into the S3 test server: which requests (method, key pattern) and
// how many, and what goes wrong. Rules are tried in the order they were added; a rule
// stops matching once it has fired `times` times.
//
// 500 InternalError and 503 SlowDown are the server errors S3 documents as retryable
// (https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html, error code list);
// the SDKs retry both by default.

export type S3Fault =
  /**
   * An S3 error instead of the answer. `applied: true` carries the operation out first (a
   * write lands, then the client hears 500): the case where a retried create-only write
   * meets its own object and gets 412.
   */
  | { kind: 'InternalError' | 'SlowDown'; applied?: boolean }
  /**
   * The connection is cut mid-answer: a GET sends its headers and half its body; any other
   * operation is carried out and the connection closed before the answer.
   */
  | { kind: 'drop' }
  /** Nothing is sent (not even headers) until `release` settles; then the normal answer. */
  | { kind: 'slow-first-byte'; release: Promise<unknown> };

export interface FaultMatch {
  /** HTTP method, e.g. PUT; any when absent. */
  method?: string;
  /** The object key: exact, or a pattern; any (including bucket-level requests) when absent. */
  key?: string | RegExp;
  /** How many requests the rule fires on (default 1). */
  times?: number;
}

export interface FaultRule {
  readonly match: FaultMatch;
  readonly fault: S3Fault;
  /** Requests it has fired on so far. */
  fired: number;
}

function matches(rule: FaultRule, method: string, key: string | undefined): boolean {
  const { match } = rule;
  if (rule.fired >= (match.times ?? 1)) return false;
  if (match.method !== undefined && match.method.toUpperCase() !== method) return false;
  if (match.key === undefined) return true;
  if (key === undefined) return false;
  return typeof match.key === 'string' ? match.key === key : match.key.test(key);
}

export class FaultPlan {
  private readonly rules: FaultRule[] = [];

  add(match: FaultMatch, fault: S3Fault): FaultRule {
    const rule: FaultRule = { match, fault, fired: 0 };
    this.rules.push(rule);
    return rule;
  }

  /** The fault for this request, counted as fired; undefined when none applies. */
  take(method: string, key: string | undefined): S3Fault | undefined {
    const rule = this.rules.find((candidate) => matches(candidate, method, key));
    if (rule === undefined) return undefined;
    rule.fired += 1;
    return rule.fault;
  }

  clear(): void {
    this.rules.length = 0;
  }
}
