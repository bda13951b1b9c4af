import type { AddressNumbering, CarrierInput, RouteCarrier, RouteInput, RouteMatch, RoutePrice } from '@seed/sms-batch-contracts';
import { isSupportedCountryCode } from '../msisdn';
import { RoutingConfigError } from './routing-config.error';

/*
 * The shape checks of carriers and routes. Commands arrive over Kafka, so every field is checked
 * here whatever the gateway checked before: a bad value is refused (400) before anything is written,
 * and what is stored is normalised (error codes in capitals, countries in capitals, lists without
 * repeats) so that the same settings always compare equal.
 */

/** A carrier's settings but its URL: what the operator states beside where and as whom to bind. */
export type CarrierLimits = Omit<CarrierInput, 'url'>;

export const MAX_BINDS = 64;
export const MAX_WINDOW = 1000;
export const MAX_PER_SECOND = 100_000;
/** SMPP 3.4 (5.2.3): system_type is a C-Octet String of at most 13 octets with its NUL. */
const MAX_SYSTEM_TYPE = 12;
/** SMPP 3.4 (5.2.5, 5.2.6): TON 0-6; NPI 0, 1, 3, 4, 6, 8, 9, 10, 14, 18 are defined, the rest reserved. */
const MAX_TON = 6;
const MAX_NPI = 18;
const COMMAND_STATUS = /^0x([0-9a-fA-F]{8})$/;
const PREFIX = /^[0-9]{1,15}$/;
/** Account and sub-account ids as the admin API creates them. */
const ACCOUNT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{1,62}$/;
const PRICE_AMOUNT = /^\d{1,6}(\.\d{1,6})?$/;
const CURRENCY = /^[A-Z]{3}$/;
export const MAX_POSITION = 1_000_000;
export const MAX_WEIGHT = 1_000_000;
/** Least-cost tables name many prefixes; more than this in one route is a mistake, not a table. */
const MAX_PREFIXES = 10_000;
const MAX_LIST = 1000;
const MAX_ROUTE_CARRIERS = 32;

export function validCarrierLimits(input: unknown): CarrierLimits {
  const carrier = objectOf(input, 'carrier');
  return {
    binds: integerIn(carrier['binds'], 'binds', 1, MAX_BINDS),
    window: integerIn(carrier['window'], 'window', 1, MAX_WINDOW),
    maxPerSecond: carrier['maxPerSecond'] === null ? null : integerIn(carrier['maxPerSecond'], 'maxPerSecond', 1, MAX_PER_SECOND, 'or null for no cap'),
    systemType: systemTypeOf(carrier['systemType']),
    source: numberingOf(carrier['source'], 'source'),
    destination: numberingOf(carrier['destination'], 'destination'),
    enabled: booleanOf(carrier['enabled'], 'enabled'),
    rerouteOnErrors: listOf(carrier['rerouteOnErrors'], 'rerouteOnErrors', MAX_LIST, commandStatusOf),
  };
}

export function validRouteInput(input: unknown): RouteInput {
  const route = objectOf(input, 'route');
  const mode = route['mode'];
  if (mode !== 'failover' && mode !== 'weighted') throw invalid('mode must be failover or weighted');
  return {
    position: integerIn(route['position'], 'position', -MAX_POSITION, MAX_POSITION),
    match: matchOf(route['match']),
    mode,
    carriers: routeCarriersOf(route['carriers']),
    price: route['price'] === null ? null : priceOf(route['price']),
  };
}

function matchOf(input: unknown): RouteMatch {
  const match = objectOf(input, 'match');
  return {
    prefixes: listOf(match['prefixes'], 'match.prefixes', MAX_PREFIXES, (value, name) => stringMatching(value, name, PREFIX, 'E.164 digits (1-15), without +')),
    countries: listOf(match['countries'], 'match.countries', MAX_LIST, countryOf),
    accountIds: listOf(match['accountIds'], 'match.accountIds', MAX_LIST, (value, name) => stringMatching(value, name, ACCOUNT_ID, 'an account id')),
    subAccountIds: listOf(match['subAccountIds'], 'match.subAccountIds', MAX_LIST, (value, name) => stringMatching(value, name, ACCOUNT_ID, 'a sub-account id')),
  };
}

function routeCarriersOf(input: unknown): RouteCarrier[] {
  if (!Array.isArray(input) || input.length === 0) throw invalid('carriers must name at least one carrier');
  if (input.length > MAX_ROUTE_CARRIERS) throw invalid(`carriers must name at most ${MAX_ROUTE_CARRIERS} carriers`);
  const carriers = input.map((item: unknown, i): RouteCarrier => {
    const carrier = objectOf(item, `carriers[${i}]`);
    const carrierId = carrier['carrierId'];
    if (typeof carrierId !== 'string' || carrierId === '') throw invalid(`carriers[${i}].carrierId must be a carrier id`);
    return { carrierId, weight: integerIn(carrier['weight'], `carriers[${i}].weight`, 1, MAX_WEIGHT) };
  });
  const ids = carriers.map((c) => c.carrierId);
  const repeated = ids.find((id, i) => ids.indexOf(id) !== i);
  if (repeated !== undefined) throw invalid(`carriers names ${repeated} twice`);
  return carriers;
}

function priceOf(input: unknown): RoutePrice {
  const price = objectOf(input, 'price');
  return {
    amount: stringMatching(price['amount'], 'price.amount', PRICE_AMOUNT, 'a decimal string such as "0.0125" (up to 6 digits each side of the point)'),
    currency: stringMatching(price['currency'], 'price.currency', CURRENCY, 'an ISO 4217 code in capitals, such as EUR'),
  };
}

function numberingOf(input: unknown, name: string): AddressNumbering {
  const numbering = objectOf(input, name);
  const field = (value: unknown, field: string, max: number): number | null => (value === null ? null : integerIn(value, `${name}.${field}`, 0, max, 'or null'));
  return { ton: field(numbering['ton'], 'ton', MAX_TON), npi: field(numbering['npi'], 'npi', MAX_NPI) };
}

function systemTypeOf(value: unknown): string | null {
  if (value === null || value === '') return null;
  if (typeof value !== 'string' || value.length > MAX_SYSTEM_TYPE || !/^[\x20-\x7e]+$/.test(value)) {
    throw invalid(`systemType must be at most ${MAX_SYSTEM_TYPE} printable ASCII characters, or null`);
  }
  return value;
}

/** `0x0000000b` and `0x0000000B` are one status: stored as the SMPP specification writes them. */
function commandStatusOf(value: unknown, name: string): string {
  const digits = typeof value === 'string' ? COMMAND_STATUS.exec(value)?.[1] : undefined;
  if (digits === undefined || /^0+$/.test(digits)) throw invalid(`${name} must be an SMPP command_status such as 0x0000000B (not 0x00000000, which is success)`);
  return `0x${digits.toUpperCase()}`;
}

function countryOf(value: unknown, name: string): string {
  const country = typeof value === 'string' ? value.toUpperCase() : '';
  if (!isSupportedCountryCode(country)) throw invalid(`${name} must be an ISO 3166-1 alpha-2 country code with a numbering plan, such as GB`);
  return country;
}

/** A list of checked items, repeats dropped (first kept): a repeat changes nothing a route does. */
function listOf<T>(value: unknown, name: string, max: number, item: (value: unknown, name: string) => T): T[] {
  if (!Array.isArray(value)) throw invalid(`${name} must be an array`);
  if (value.length > max) throw invalid(`${name} must have at most ${max} entries`);
  return [...new Set(value.map((v: unknown, i) => item(v, `${name}[${i}]`)))];
}

function objectOf(value: unknown, name: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalid(`${name} must be an object`);
  return value as Record<string, unknown>;
}

function integerIn(value: unknown, name: string, min: number, max: number, orElse?: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(`${name} must be an integer from ${min} to ${max}${orElse ? `, ${orElse}` : ''}`);
  }
  return value;
}

function booleanOf(value: unknown, name: string): boolean {
  if (typeof value !== 'boolean') throw invalid(`${name} must be true or false`);
  return value;
}

function stringMatching(value: unknown, name: string, pattern: RegExp, what: string): string {
  if (typeof value !== 'string' || !pattern.test(value)) throw invalid(`${name} must be ${what}`);
  return value;
}

const invalid = (message: string) => new RoutingConfigError('invalid', message);
