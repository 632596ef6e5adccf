// The built-in price table and which price a run uses: the config's price-per-hour over
// the table, and a note instead of a price when neither has one.
import { describe, expect, it } from 'vitest';
import {
  MISSING_PRICES,
  ON_DEMAND_PRICES,
  PRICE_TABLE_DATE,
  priceFor,
  unknownPriceKeyWarnings,
} from '../../src/derive/prices.js';

describe('the built-in price table', () => {
  it('prices every inf2 and trn1 size, and names the trn2 sizes it has no price for', () => {
    expect(Object.keys(ON_DEMAND_PRICES).sort()).toEqual([
      'inf2.24xlarge',
      'inf2.48xlarge',
      'inf2.8xlarge',
      'inf2.xlarge',
      'trn1.2xlarge',
      'trn1.32xlarge',
      'trn1n.32xlarge',
    ]);
    expect(MISSING_PRICES).toEqual(['trn2.3xlarge', 'trn2.48xlarge', 'trn2u.48xlarge']);
    expect(PRICE_TABLE_DATE).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('agrees with the rounded inf2 prices of the Neuron docs and grows with the size', () => {
    // aws-neuron-sdk general/benchmarks/inf2/inf2_instance_prices.csv
    const neuronDocs = {
      'inf2.xlarge': 0.758,
      'inf2.8xlarge': 1.97,
      'inf2.24xlarge': 6.49,
      'inf2.48xlarge': 12.981,
    };
    for (const [type, rounded] of Object.entries(neuronDocs)) {
      expect(ON_DEMAND_PRICES[type], type).toBeCloseTo(rounded, 2);
    }
    const inf2 = ['inf2.xlarge', 'inf2.8xlarge', 'inf2.24xlarge', 'inf2.48xlarge'];
    const prices = inf2.map((type) => ON_DEMAND_PRICES[type]!);
    expect([...prices].sort((a, b) => a - b)).toEqual(prices);
  });
});

describe('priceFor', () => {
  it("takes the table's price, saying from when and where", () => {
    expect(priceFor('inf2.xlarge', undefined)).toEqual({
      instanceType: 'inf2.xlarge',
      usdPerHour: 0.7582,
      source: 'table',
      asOf: '2026-08-26',
      region: 'us-east-1, Linux, on-demand',
      url: 'https://instances.vantage.sh/aws/ec2/inf2.xlarge',
    });
    expect(priceFor('trn1.32xlarge', undefined).usdPerHour).toBe(21.5);
  });

  it('lets one configured price win over the table, even without an instance type', () => {
    expect(priceFor('inf2.48xlarge', 7.8)).toEqual({
      instanceType: 'inf2.48xlarge',
      usdPerHour: 7.8,
      source: 'config',
    });
    expect(priceFor(undefined, 0.45)).toEqual({ usdPerHour: 0.45, source: 'config' });
  });

  it('takes a price per instance type for the runner, else the table', () => {
    const configured = { 'inf2.xlarge': 0.45, 'trn2.48xlarge': 30 };
    expect(priceFor('inf2.xlarge', configured)).toMatchObject({
      usdPerHour: 0.45,
      source: 'config',
    });
    expect(priceFor('trn2.48xlarge', configured)).toMatchObject({
      usdPerHour: 30,
      source: 'config',
    });
    expect(priceFor('inf2.8xlarge', configured)).toMatchObject({
      usdPerHour: 1.96786,
      source: 'table',
    });
  });

  it('has no price, and says why, for an unknown runner or a type without one', () => {
    const unknown = priceFor(undefined, { 'inf2.xlarge': 0.45 });
    expect(unknown.usdPerHour).toBeUndefined();
    expect(unknown.note).toContain("the runner's instance type is unknown");
    expect(unknown.note).toContain('price-per-hour');

    const ultra = priceFor('trn2u.48xlarge', undefined);
    expect(ultra).toEqual({
      instanceType: 'trn2u.48xlarge',
      note:
        'the built-in price table has no price for trn2u.48xlarge (its sources give no ' +
        'on-demand price for it); give one with price-per-hour',
    });
    expect(priceFor('m7i.large', undefined).note).toContain(
      'no price for m7i.large (an instance type it does not know)',
    );
  });

  it("prices trn2 by its Capacity Block rate, said as such, the config's price over it", () => {
    expect(priceFor('trn2.48xlarge', undefined)).toEqual({
      instanceType: 'trn2.48xlarge',
      usdPerHour: 35.7608,
      source: 'capacity-block',
      asOf: '2026-07-22',
      region: 'us-east-2',
      url: 'https://aws.amazon.com/ec2/capacityblocks/pricing/',
    });
    // 2.235 USD per Trainium2 chip-hour (rounded): one chip, and sixteen.
    expect(priceFor('trn2.3xlarge', undefined).usdPerHour).toBe(2.235);
    expect(priceFor('trn2.48xlarge', undefined).usdPerHour).toBeCloseTo(16 * 2.235, 2);
    expect(priceFor('trn2.48xlarge', { 'trn2.48xlarge': 30 })).toMatchObject({
      usdPerHour: 30,
      source: 'config',
    });
  });

  it('does not take an inherited property for a price', () => {
    expect(priceFor('constructor', undefined).usdPerHour).toBeUndefined();
    expect(priceFor('toString', { 'inf2.xlarge': 1 }).usdPerHour).toBeUndefined();
  });
});

describe('unknownPriceKeyWarnings', () => {
  it('warns about a configured type the table does not know, not about one it lacks a price for', () => {
    expect(unknownPriceKeyWarnings(undefined)).toEqual([]);
    expect(unknownPriceKeyWarnings(0.45)).toEqual([]);
    expect(unknownPriceKeyWarnings({ 'inf2.xlarge': 0.4, 'trn2.48xlarge': 30 })).toEqual([]);
    const [warning, ...rest] = unknownPriceKeyWarnings({ 'inf2.2xlarge': 0.9 });
    expect(rest).toEqual([]);
    expect(warning).toMatch(
      /^price-per-hour names inf2\.2xlarge, an instance type the built-in price table does not know \(inf2\.xlarge, .*trn2u\.48xlarge\); check its spelling/,
    );
  });
});
