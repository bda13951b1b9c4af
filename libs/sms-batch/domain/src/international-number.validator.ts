import { Metadata } from 'libphonenumber-js/core';
import metadataJson from 'libphonenumber-js/metadata.max.json';

/*
 * Why this file exists: libphonenumber-js builds a new RegExp from the metadata on every pattern
 * test, so parse + isValid of one +44 number costs ~23 µs and a 10,000-message batch ~230 ms on a
 * 2-core machine. For the common input (an international number whose national part does not start
 * with a national prefix) this file repeats the library's decision with the same max metadata but
 * with each pattern compiled once. Everything else answers `undefined` and goes to the library.
 * international-number.validator.unit.spec.ts checks the two agree on numbers of every country.
 *
 * The decision it mirrors (libphonenumber-js 1.13, parse.js, getCountryByNationalNumber.js,
 * getNumberType.js, isValid.js): the calling code is the shortest known prefix of 1-3 digits; a
 * shared calling code picks the first of its countries whose leading digits match (countries with
 * leading digits) or whose number types match (others), else the main country; the number is
 * valid when that country's general pattern and one of its type patterns match, or only the
 * general pattern for a country without types.
 */

/** The runtime surface of the library's Metadata class that its type declarations leave out. */
interface NumberTypeInternals {
  pattern(): string;
  possibleLengths(): number[] | undefined;
}
interface NumberingPlanInternals {
  nationalNumberPattern(): string;
  nationalPrefixForParsing(): string | undefined;
  leadingDigits(): string | undefined;
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
  nationalNumber: RegExp;
  nationalPrefixForParsing: RegExp | null;
  leadingDigits: RegExp | null;
  /** null: the plan lists no number types, so only the general pattern decides validity. */
  types: CompiledType[] | null;
}

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
 * Whether `digits` (an international number without `+`) is valid as libphonenumber-js/max
 * decides it, or `undefined` where only the library can tell (national prefix present,
 * non-geographic code, unusual lengths, or a library whose internals have moved).
 */
export function isValidInternationalNumber(digits: string): boolean | undefined {
  for (let length = 1; length <= MAX_CALLING_CODE_DIGITS && length < digits.length; length++) {
    const countries = countriesByCallingCode.get(digits.slice(0, length));
    if (countries === undefined) continue;
    if (countries === null) return undefined;
    return validateNationalNumber(countries, digits.slice(length));
  }
  return undefined;
}

function validateNationalNumber(countries: readonly string[], national: string): boolean | undefined {
  if (national.length < MIN_NATIONAL_DIGITS || national.length > MAX_NATIONAL_DIGITS) return undefined;
  const mainCountry = countries[0];
  const main = mainCountry === undefined ? null : compiledPlan(mainCountry);
  if (main === null || main.nationalPrefixForParsing?.test(national)) return undefined;
  if (countries.length === 1) return isValidIn(main, national);
  for (const country of countries) {
    const plan = compiledPlan(country);
    if (plan === null) return undefined;
    const belongs = plan.leadingDigits ? plan.leadingDigits.test(national) : hasNumberType(plan, national);
    if (belongs) return isValidIn(plan, national);
  }
  return isValidIn(main, national);
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

function compiledPlan(country: string): CompiledPlan | null {
  let plan = compiledPlans.get(country);
  if (plan === undefined) {
    plan = compilePlan(country);
    compiledPlans.set(country, plan);
  }
  return plan;
}

function compilePlan(country: string): CompiledPlan | null {
  try {
    metadata.selectNumberingPlan(country);
    const source = metadata.numberingPlan;
    if (!source) return null;
    const prefix = source.nationalPrefixForParsing();
    const leading = source.leadingDigits();
    return {
      nationalNumber: new RegExp(`^(?:${source.nationalNumberPattern()})$`),
      nationalPrefixForParsing: prefix ? new RegExp(`^(?:${prefix})`) : null,
      leadingDigits: leading ? new RegExp(`^(?:${leading})`) : null,
      types: source.hasTypes() ? compileTypes(source) : null,
    };
  } catch {
    // The library's internals changed shape: let the library decide every number.
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
