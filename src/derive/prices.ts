// The built-in hourly prices of the Neuron instance types, and which one a run uses: the
// config's `price-per-hour` (reserved, savings-plan or negotiated prices) over this table.
//
// On-demand, Linux, shared tenancy, us-east-1, USD per hour, taken 2026-08-26 from
// instances.vantage.sh's copy of the AWS Price List (as mirrored, "Last updated:
// 2026-08-26", in github.com/tsaol/aws-gpu data/inf2_instances.js, trn1_instances.js and
// trn1n_instances.js). The inf2 figures agree with the rounded ones behind the cost per 1M
// inferences of the Neuron docs' Inf2 performance page (aws-neuron-sdk
// general/benchmarks/inf2/inf2_instance_prices.csv: 0.758, 1.97, 6.49, 12.981).
//
// Left out, for want of an on-demand price in the sources (give one with price-per-hour):
// see MISSING_PRICES.

import type { PricePerHour } from '../config/types.js';
import type { CostBasis } from '../model.js';

/** Where and how the built-in prices apply. */
export const PRICE_TABLE_REGION = 'us-east-1, Linux, on-demand';

/** The day the built-in prices were taken. */
export const PRICE_TABLE_DATE = '2026-08-26';

const VANTAGE = 'https://instances.vantage.sh/aws/ec2/';

/** Instance type → USD per hour (PRICE_TABLE_REGION, PRICE_TABLE_DATE). */
export const ON_DEMAND_PRICES: Readonly<Record<string, number>> = Object.freeze({
  'inf2.xlarge': 0.7582,
  'inf2.8xlarge': 1.96786,
  'inf2.24xlarge': 6.49063,
  'inf2.48xlarge': 12.98127,
  'trn1.2xlarge': 1.34375,
  'trn1.32xlarge': 21.5,
  'trn1n.32xlarge': 24.78,
});

/**
 * Instance types AWS lists whose on-demand price the sources do not give: instances.vantage.sh
 * shows trn2.48xlarge without any price (2026-08-26; an older copy had one us-east-2 figure,
 * $35.76/h, the rate of a Capacity Block rather than an on-demand one), trn2u.48xlarge (a
 * Trn2 UltraServer node, Neuron docs' Trn2 architecture page) not at all. trn2.3xlarge and
 * trn2.48xlarge are priced by their Capacity Block rate instead (CAPACITY_BLOCK_PRICES).
 */
export const MISSING_PRICES: readonly string[] = Object.freeze([
  'trn2.3xlarge',
  'trn2.48xlarge',
  'trn2u.48xlarge',
]);

/** The page the Capacity Block rates are published on (it changes them from time to time). */
export const CAPACITY_BLOCK_URL = 'https://aws.amazon.com/ec2/capacityblocks/pricing/';

/** The day the Capacity Block rates below were listed. */
export const CAPACITY_BLOCK_DATE = '2026-07-22';

/**
 * The only published hourly prices of trn2: the EC2 Capacity Blocks for ML rates (reserved
 * ahead for a fixed time), USD per instance-hour, in the regions listed, as the page's copy
 * of 2026-07-22 gives them (github.com/koyakimu/ec2-capacity-blocks-for-ml-pricing-json,
 * data/pricing.json: 2.235 USD per Trainium2 chip-hour in both). Not an on-demand price: the
 * report says so, and a team's own price goes in price-per-hour.
 */
export const CAPACITY_BLOCK_PRICES: Readonly<
  Record<string, { usdPerHour: number; region: string }>
> = Object.freeze({
  'trn2.3xlarge': { usdPerHour: 2.235, region: 'sa-east-1 and ap-southeast-4' },
  'trn2.48xlarge': { usdPerHour: 35.7608, region: 'us-east-2' },
});

/**
 * The price a run on `instanceType` uses: the config's, else the table's, else none, and
 * the note says why.
 */
export function priceFor(
  instanceType: string | undefined,
  configured: PricePerHour | undefined,
): CostBasis {
  const where = instanceType === undefined ? {} : { instanceType };
  if (typeof configured === 'number') return { ...where, usdPerHour: configured, source: 'config' };
  if (instanceType === undefined) {
    return {
      note:
        "the runner's instance type is unknown; set PERF_GATE_INSTANCE_TYPE or environment-probe, " +
        'or give one price with price-per-hour',
    };
  }
  if (configured !== undefined && Object.hasOwn(configured, instanceType)) {
    return { ...where, usdPerHour: configured[instanceType]!, source: 'config' };
  }
  const listed = Object.hasOwn(ON_DEMAND_PRICES, instanceType)
    ? ON_DEMAND_PRICES[instanceType]
    : undefined;
  if (listed !== undefined) {
    return {
      ...where,
      usdPerHour: listed,
      source: 'table',
      asOf: PRICE_TABLE_DATE,
      region: PRICE_TABLE_REGION,
      url: `${VANTAGE}${instanceType}`,
    };
  }
  const block = Object.hasOwn(CAPACITY_BLOCK_PRICES, instanceType)
    ? CAPACITY_BLOCK_PRICES[instanceType]
    : undefined;
  if (block !== undefined) {
    return {
      ...where,
      usdPerHour: block.usdPerHour,
      source: 'capacity-block',
      asOf: CAPACITY_BLOCK_DATE,
      region: block.region,
      url: CAPACITY_BLOCK_URL,
    };
  }
  const why = MISSING_PRICES.includes(instanceType)
    ? 'its sources give no on-demand price for it'
    : 'an instance type it does not know';
  return {
    ...where,
    note: `the built-in price table has no price for ${instanceType} (${why}); give one with price-per-hour`,
  };
}

/** Whether the table knows `instanceType`, with a price or as one whose price is missing. */
export function knownInstanceType(instanceType: string): boolean {
  return Object.hasOwn(ON_DEMAND_PRICES, instanceType) || MISSING_PRICES.includes(instanceType);
}

/**
 * One warning per price-per-hour key the table does not know (a typo such as inf2.2xlarge
 * would never match the runner): its price is still used on a runner of that type.
 */
export function unknownPriceKeyWarnings(configured: PricePerHour | undefined): string[] {
  if (configured === undefined || typeof configured === 'number') return [];
  return Object.keys(configured)
    .filter((key) => !knownInstanceType(key))
    .map(
      (key) =>
        `price-per-hour names ${key}, an instance type the built-in price table does not know ` +
        `(${Object.keys(ON_DEMAND_PRICES).join(', ')}, ${MISSING_PRICES.join(', ')}); ` +
        'check its spelling: it is used only on a runner of exactly that type',
    );
}
