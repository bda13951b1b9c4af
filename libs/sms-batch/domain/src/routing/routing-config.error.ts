/**
 * Why a routing-config command was refused; the handler maps the code to an answer in one place:
 * `invalid` 400 (nothing is written), `unknown` 404 (no such carrier or route), `conflict` 409
 * (the command is well formed but the table as it stands refuses it).
 */
export type RoutingConfigErrorCode = 'invalid' | 'unknown' | 'conflict';

export class RoutingConfigError extends Error {
  override readonly name = 'RoutingConfigError';

  constructor(
    readonly code: RoutingConfigErrorCode,
    message: string,
  ) {
    super(message);
  }
}
