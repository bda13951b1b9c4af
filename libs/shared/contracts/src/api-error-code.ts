/** Error codes of the provider's published list (product-decisions.md). */
export const ApiErrorCode = {
  InvalidParameter: 1000,
  IllegalSubAccount: 1001,
  InvalidMsisdn: 1002,
  InvalidEncoding: 1003,
  InvalidText: 1004,
  InvalidSource: 1005,
  InvalidExpiry: 1006,
  InvalidTemplate: 1007,
  InvalidCountryCode: 1009,
  ParameterOutOfRange: 1010,
  InvalidScheduleTime: 1011,
  BulkLimitReached: 1100,
  Unauthorized: 1200,
  Forbidden: 1201,
  NotFound: 1300,
  ResendIntervalViolation: 1400,
  /** Over the sub-account's request rate (product-decisions "Rate limits"); with `Retry-After`. */
  TooManyRequests: 1600,
  InternalError: 2000,
} as const;

export type ApiErrorCode = (typeof ApiErrorCode)[keyof typeof ApiErrorCode];

/** The error body of every response with status >= 400. */
export interface ApiErrorBody {
  code: number;
  message: string;
  errorId: string;
  timestamp: string;
}
