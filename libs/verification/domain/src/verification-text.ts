import {
  BRAND_PLACEHOLDER,
  CODE_PLACEHOLDER,
  DEFAULT_BRANDED_TEMPLATE,
  DEFAULT_TEMPLATE,
  VerificationLimits,
  type VerificationOptions,
} from '@seed/verification-contracts';

/** The options of one verification with the defaults of product-decisions.md applied. */
export interface VerificationSettings {
  brand: string | null;
  /** Sender id of its SMS: the brand when it is a valid alphanumeric sender id, else the default. */
  source: string | null;
  template: string;
  codeLength: number;
  codeValidity: number;
  resendingInterval: number;
}

/** Alphanumeric sender ids are at most 11 characters of letters, digits and spaces (see sms-batch). */
const ALPHANUMERIC_SENDER = /^(?=.*[A-Za-z])[A-Za-z0-9 ]{1,11}$/;

export function settingsOf(options: VerificationOptions): VerificationSettings {
  const brand = options.brand !== undefined && options.brand !== '' ? options.brand : null;
  return {
    brand,
    source: brand !== null && ALPHANUMERIC_SENDER.test(brand) ? brand : null,
    template: options.template ?? (brand !== null ? DEFAULT_BRANDED_TEMPLATE : DEFAULT_TEMPLATE),
    codeLength: options.codeLength ?? VerificationLimits.codeLength.default,
    codeValidity: options.codeValidity ?? VerificationLimits.codeValidity.default,
    resendingInterval: options.resendingInterval ?? VerificationLimits.resendingInterval.default,
  };
}

/** The SMS text: every `{code}` and `{brand}` of the template replaced. */
export function renderText(settings: Pick<VerificationSettings, 'template' | 'brand'>, code: string): string {
  return settings.template.split(CODE_PLACEHOLDER).map((part) => part.split(BRAND_PLACEHOLDER).join(settings.brand ?? '')).join(code);
}

/** The text as events, read models and logs may show it: the code masked, one `*` per digit. */
export function redactedText(settings: Pick<VerificationSettings, 'template' | 'brand' | 'codeLength'>): string {
  return renderText(settings, '*'.repeat(settings.codeLength));
}

/** A code of `length` digits from a uniform random integer below 10^length (leading zeros kept). */
export function formatCode(value: number, length: number): string {
  if (!Number.isInteger(value) || value < 0 || value >= 10 ** length) throw new RangeError(`a ${length}-digit code cannot be ${value}`);
  return String(value).padStart(length, '0');
}
