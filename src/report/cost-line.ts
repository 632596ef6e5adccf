// The comment's one line on cost: the hourly price behind cost_per_million_tokens and
// cost_per_million_requests and where it came from, or why there is no cost metric. The
// figures themselves are rows of the metric tables like any metric.

import type { CostBasis } from '../model.js';
import { codeSpan, escapeMarkdown } from './escape.js';

/**
 * `Cost: 0.7582 USD/h for `inf2.xlarge` (built-in AWS list price, us-east-1, Linux,
 * on-demand, as of 2026-08-26); ...`, in USD rather than with $, which GitHub may read as
 * the start of a formula. A report.json from an artifact is untrusted: a price that is not
 * a finite number reads as no price, and every text is escaped.
 */
export function costLine(cost: CostBasis): string {
  const instance =
    typeof cost.instanceType === 'string' ? ` for ${codeSpan(cost.instanceType)}` : '';
  const price = cost.usdPerHour;
  if (typeof price !== 'number' || !Number.isFinite(price)) {
    const why = typeof cost.note === 'string' ? escapeMarkdown(cost.note) : 'no price is known';
    return `**Cost**: not computed: ${why}.`;
  }
  const from = priceSource(cost);
  return (
    `**Cost**: ${usd(price)} USD/h${instance} (${from}); ` +
    '`cost_per_million_tokens` counts output tokens, `cost_per_million_requests` requests; ' +
    'the baseline is priced the same.'
  );
}

function priceSource(cost: CostBasis): string {
  const region = escapeMarkdown(String(cost.region ?? ''));
  const asOf = escapeMarkdown(String(cost.asOf ?? 'an unknown day'));
  if (cost.source === 'config') return '`price-per-hour` in the config';
  if (cost.source === 'capacity-block') {
    return (
      `the EC2 Capacity Block rate in ${region} as listed ${asOf}, not an on-demand price: ` +
      'AWS publishes none for this type; set `price-per-hour` to yours'
    );
  }
  return `built-in AWS list price, ${region}, as of ${asOf}`;
}

/** A price with the digits it was given, up to five decimals: 0.7582, 12.98127, 21.5. */
function usd(price: number): string {
  return String(Number(price.toFixed(5)));
}
