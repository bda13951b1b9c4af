import { Metadata } from 'libphonenumber-js/core';
import metadataJson from 'libphonenumber-js/metadata.max.json';

/*
 * Why this file exists: libphonenumber-js builds a new RegExp from its metadata on every pattern
 * test, which on a 10,000-message batch is a large part of its acceptance
 * (docs/adr/0039-batch-acceptance-without-per-item-copies.md). For the common inputs this file repeats the library's decision with the same max
 * metadata, each pattern compiled once. Any input off that path answers `undefined` and goes to the
 * library; numbering-plan.fast-path.unit.spec.ts checks both agree on numbers of every country.
 *
 * The decision mirrored (libphonenumber-js 1.13: parse.js, extractNationalNumber.js,
 * getCountryByNationalNumber.js, getNumberType.js, checkNumberLength.js, isValid.js):
 * - the calling code is the shortest known 1-3 digit prefix (international input);
 * - a national prefix is stripped unless the number only matched the general pattern before
 *   stripping, or the stripped number has an impossible length (national input only: international
 *   input whose national part starts with a national prefix is left to the library);
 * - a shared calling code picks the first of its countries whose leading digits match (countries
 *   with leading digits) or whose number types match (others); else the main country, or the given
 *   country for national input;
 * - valid when that country's general pattern and one of its type patterns match (only the general
 *   pattern for a country without types).
 */

/** The runtime surface of the library's Metadata class that its type declarations leave out. */
interface NumberTypeInternals {
  pattern(): string;
  possibleLengths(): number[] | undefined;
}
interface NumberingPlanInternals {
  callingCode(): string;
  IDDPrefix(): string | undefined;
  nationalNumberPattern(): string;
  nationalPrefixForParsing(): string | undefined;
  nationalPrefixTransformRule(): string | undefined;
  leadingDigits(): string | undefined;
  possibleLengths(): number[] | undefined;
  hasTypes(): boolean;
  type(type: string): NumberTypeInternals | undefined;
}
interface MetadataInternals {
  selectNumberingPlan(countryOrCallingCode: string): void;
  getCountryCodesForCallingCode(callingCode: string): string[] | undefined;
  numberingPlan?: NumberingPlanInternals;
}

interface CompiledType {
  pattern: RegExp;
  lengths: readonly number[] | undefined;
}

interface CompiledPlan {
  country: string;
  callingCode: string;
  internationalPrefix: RegExp;
  nationalNumber: RegExp;
  nationalPrefix: RegExp | null;
  hasPrefixTransformRule: boolean;
  leadingDigits: RegExp | null;
  possibleLengths: readonly number[] | undefined;
  /** null: the plan lists no number types, so only the general pattern decides validity. */
  types: CompiledType[] | null;
}

/** Raised when the library's internals no longer look as expected; the caller asks the library. */
class FastPathUnavailable extends Error {}

const NUMBER_TYPES = [
  'FIXED_LINE',
  'MOBILE',
  'PREMIUM_RATE',
  'TOLL_FREE',
  'SHARED_COST',
  'VOIP',
  'PERSONAL_NUMBER',
  'PAGER',
  'UAN',
  'VOICEMAIL',
] as const;

const MAX_CALLING_CODE_DIGITS = 3;
const MIN_NATIONAL_DIGITS = 2;
const MAX_NATIONAL_DIGITS = 17;

const metadata = new Metadata(metadataJson) as unknown as MetadataInternals;
/** Countries per calling code; null for a non-geographic code (left to the library). */
const countriesByCallingCode = indexCallingCodes();
const compiledPlans = new Map<string, CompiledPlan | null>();

/**
 * E.164 digits of a valid international number given as digits without `+`, null if invalid,
 * or `undefined` where only the library can tell.
 */
export function fastInternationalMsisdn(digits: string): string | null | undefined {
  try {
    for (let length = 1; length <= MAX_CALLING_CODE_DIGITS && length < digits.length; length++) {
      const countries = countriesByCallingCode.get(digits.slice(0, length));
      if (countries === undefined) continue;
      if (countries === null) return undefined;
      const national = digits.slice(length);
      const main = planOf(countries[0]);
      if (!isNationalLengthParsable(national) || main.nationalPrefix?.test(national)) return undefined;
      const plan = planForNationalNumber(countries, national) ?? main;
      return isValidIn(plan, national) ? digits : null;
    }
    return undefined;
  } catch {
    return undefined;
  }
}

/**
 * E.164 digits of a valid number written in the national format of `country` (a supported ISO
 * code), null if invalid, or `undefined` where only the library can tell (international dialling
 * prefix, digits starting with the calling code, national prefix transform rules).
 */
export function fastNationalMsisdn(digits: string, country: string): string | null | undefined {
  try {
    const plan = planOf(country);
    if (digits.length < MIN_NATIONAL_DIGITS || plan.internationalPrefix.test(digits)) return undefined;
    if (digits.startsWith(plan.callingCode)) return undefined;
    const national = withoutNationalPrefix(digits, plan);
    if (national === undefined || !isNationalLengthParsable(national)) return undefined;
    const countries = countriesByCallingCode.get(plan.callingCode);
    if (!countries) return undefined;
    const exact = planForNationalNumber(countries, national) ?? plan;
    return isValidIn(exact, national) ? plan.callingCode + national : null;
  } catch {
    return undefined;
  }
}

function withoutNationalPrefix(digits: string, plan: CompiledPlan): string | undefined {
  const match = plan.nationalPrefix?.exec(digits);
  if (!match) return digits;
  const capturedGroups = match.length - 1;
  if (plan.hasPrefixTransformRule && capturedGroups > 0 && match[capturedGroups]) return undefined;
  const stripped = digits.slice(match[0].length);
  if (stripped === digits) return digits;
  if (plan.nationalNumber.test(digits) && !plan.nationalNumber.test(stripped)) return digits;
  if (plan.possibleLengths === undefined) return stripped;
  const countries = countriesByCallingCode.get(plan.callingCode);
  if (!countries) return undefined;
  const lengthsFrom = planForNationalNumber(countries, stripped) ?? plan;
  return isIncompleteLengthPossible(stripped.length, lengthsFrom.possibleLengths) ? stripped : digits;
}

/** Too short, or between possible lengths without being one, is impossible; too long is not. */
function isIncompleteLengthPossible(length: number, possibleLengths: readonly number[] | undefined): boolean {
  if (!possibleLengths) return true;
  const shortest = possibleLengths[0];
  const longest = possibleLengths[possibleLengths.length - 1];
  if (shortest === undefined || longest === undefined) return false; // the library finds no length possible
  if (length === shortest || length > longest) return true;
  return length > shortest && possibleLengths.includes(length);
}

function isNationalLengthParsable(national: string): boolean {
  return national.length >= MIN_NATIONAL_DIGITS && national.length <= MAX_NATIONAL_DIGITS;
}

/** The country of a shared calling code that a national number belongs to, if any. */
function planForNationalNumber(countries: readonly string[], national: string): CompiledPlan | undefined {
  if (countries.length === 1) return planOf(countries[0]);
  for (const country of countries) {
    const plan = planOf(country);
    const belongs = plan.leadingDigits ? plan.leadingDigits.test(national) : hasNumberType(plan, national);
    if (belongs) return plan;
  }
  return undefined;
}

function isValidIn(plan: CompiledPlan, national: string): boolean {
  return plan.types === null ? plan.nationalNumber.test(national) : hasNumberType(plan, national);
}

function hasNumberType(plan: CompiledPlan, national: string): boolean {
  if (plan.types === null || !plan.nationalNumber.test(national)) return false;
  return plan.types.some(
    (type) => (type.lengths === undefined || type.lengths.includes(national.length)) && type.pattern.test(national),
  );
}

function planOf(country: string | undefined): CompiledPlan {
  if (country === undefined) throw new FastPathUnavailable('no country');
  let plan = compiledPlans.get(country);
  if (plan === undefined) {
    plan = compilePlan(country);
    compiledPlans.set(country, plan);
  }
  if (plan === null) throw new FastPathUnavailable(country);
  return plan;
}

function compilePlan(country: string): CompiledPlan | null {
  try {
    metadata.selectNumberingPlan(country);
    const source = metadata.numberingPlan;
    const internationalPrefix = source?.IDDPrefix();
    if (!source || !internationalPrefix) return null;
    const nationalPrefix = source.nationalPrefixForParsing();
    const leadingDigits = source.leadingDigits();
    return {
      country,
      callingCode: source.callingCode(),
      internationalPrefix: new RegExp(`^(?:${internationalPrefix})`),
      nationalNumber: new RegExp(`^(?:${source.nationalNumberPattern()})$`),
      nationalPrefix: nationalPrefix ? new RegExp(`^(?:${nationalPrefix})`) : null,
      hasPrefixTransformRule: Boolean(source.nationalPrefixTransformRule()),
      leadingDigits: leadingDigits ? new RegExp(`^(?:${leadingDigits})`) : null,
      possibleLengths: source.possibleLengths(),
      types: source.hasTypes() ? compileTypes(source) : null,
    };
  } catch {
    return null;
  }
}

function compileTypes(source: NumberingPlanInternals): CompiledType[] {
  const types: CompiledType[] = [];
  for (const name of NUMBER_TYPES) {
    const type = source.type(name);
    const pattern = type?.pattern();
    if (type && pattern) types.push({ pattern: new RegExp(`^(?:${pattern})$`), lengths: type.possibleLengths() });
  }
  return types;
}

function indexCallingCodes(): Map<string, readonly string[] | null> {
  const index = new Map<string, readonly string[] | null>();
  try {
    for (const callingCode of Object.keys(metadataJson.country_calling_codes)) {
      index.set(callingCode, metadata.getCountryCodesForCallingCode(callingCode) ?? null);
    }
    for (const callingCode of Object.keys(metadataJson.nonGeographic ?? {})) {
      if (!index.has(callingCode)) index.set(callingCode, null);
    }
  } catch {
    index.clear();
  }
  return index;
}
