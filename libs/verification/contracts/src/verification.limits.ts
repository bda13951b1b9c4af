/**
 * Ranges and defaults of the generation options (product-decisions.md): the gateway refuses values
 * outside them, the decider applies the defaults.
 */
export const VerificationLimits = {
  brandMaxLength: 30,
  templateMaxLength: 500,
  /**
   * The SMS text (template with brand and code filled in), in UTF-16 units: what fits sms-batch's
   * 10 parts in any encoding (10 x 67 UCS2 units; in GSM7 even 670 two-septet characters fit).
   */
  textMaxLength: 670,
  codeLength: { min: 4, max: 10, default: 6 },
  codeValidity: { min: 30, max: 7200, default: 300 },
  resendingInterval: { min: 10, max: 7200, default: 30 },
  /** The 5th wrong code fails the verification. */
  maxWrongAttempts: 5,
} as const;

export const CODE_PLACEHOLDER = '{code}';
export const BRAND_PLACEHOLDER = '{brand}';
export const DEFAULT_TEMPLATE = 'Your verification code is {code}';
export const DEFAULT_BRANDED_TEMPLATE = '{brand}: Your verification code is {code}';
