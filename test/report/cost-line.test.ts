// The comment's cost line: the price behind the cost metrics and where it came from, or
// why there are none; from an untrusted report.json it never shows a text as a number.
import { describe, expect, it } from 'vitest';
import { priceFor } from '../../src/derive/prices.js';
import type { CostBasis, GateReport } from '../../src/model.js';
import { renderComment } from '../../src/report/markdown.js';
import { benchmark, expectWellFormed, outsideCode, reportOf } from './support.js';

function commentWith(cost: CostBasis | undefined): string {
  const report: GateReport = { ...reportOf([benchmark('serve')]), ...(cost ? { cost } : {}) };
  return renderComment(report);
}

const costLineOf = (comment: string) => comment.split('\n').find((l) => l.startsWith('**Cost**'));

describe('the cost line of the comment', () => {
  it('names the built-in price, its instance type, region and date', () => {
    const comment = commentWith(priceFor('inf2.xlarge', undefined));
    expectWellFormed(comment);
    expect(costLineOf(comment)).toBe(
      '**Cost**: 0.7582 USD/h for `inf2.xlarge` (built-in AWS list price, us-east-1, Linux, ' +
        'on-demand, as of 2026-08-26); `cost_per_million_tokens` counts output tokens, ' +
        '`cost_per_million_requests` requests; the baseline is priced the same.',
    );
  });

  it('changes with the instance type', () => {
    const large = costLineOf(commentWith(priceFor('inf2.48xlarge', undefined)));
    expect(large).toMatch(/^\*\*Cost\*\*: 12\.98127 USD\/h for `inf2\.48xlarge` \(built-in/);
  });

  it('says a trn2 price is a Capacity Block rate and not on-demand', () => {
    expect(costLineOf(commentWith(priceFor('trn2.48xlarge', undefined)))).toMatch(
      /^\*\*Cost\*\*: 35\.7608 USD\/h for `trn2\.48xlarge` \(the EC2 Capacity Block rate in us-east-2 as listed 2026-07-22, not an on-demand price: AWS publishes none for this type; set `price-per-hour` to yours\);/,
    );
  });

  it('says when the price is the config’s', () => {
    expect(costLineOf(commentWith(priceFor('inf2.xlarge', { 'inf2.xlarge': 0.45 })))).toMatch(
      /^\*\*Cost\*\*: 0\.45 USD\/h for `inf2\.xlarge` \(`price-per-hour` in the config\);/,
    );
    expect(costLineOf(commentWith(priceFor(undefined, 2)))).toMatch(
      /^\*\*Cost\*\*: 2 USD\/h \(`price-per-hour` in the config\);/,
    );
  });

  it('says why there is no cost, in one line, when the instance type is unknown', () => {
    const comment = commentWith(priceFor(undefined, undefined));
    expect(costLineOf(comment)).toBe(
      "**Cost**: not computed: the runner's instance type is unknown; set PERF_GATE_INSTANCE_TYPE " +
        'or environment-probe, or give one price with price-per-hour.',
    );
  });

  it('is absent when the gate had no rate to price', () => {
    expect(costLineOf(commentWith(undefined))).toBeUndefined();
  });

  it('reads an untrusted price that is no number as none, and escapes the texts', () => {
    const forged = {
      instanceType: 'x` [click](https://evil.example)',
      usdPerHour: '0.1 [click](https://evil.example)',
      note: '<img src=x>',
    } as unknown as CostBasis;
    const line = costLineOf(commentWith(forged))!;
    expect(line).toBe('**Cost**: not computed: &lt;img src=x&gt;.');
    const priced = costLineOf(
      commentWith({
        ...forged,
        usdPerHour: 1,
        source: 'table',
        region: '[a](https://evil.example)',
      }),
    )!;
    expect(priced).toMatch(/^\*\*Cost\*\*: 1 USD\/h for ``/);
    expect(outsideCode(priced)).not.toContain('](https://evil.example)');
  });
});
