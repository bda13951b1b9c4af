import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth } from '@nestjs/swagger';
import { ApiErrorResponses, ErrorCases, type ErrorCase, type ErrorStatus } from './api-error.openapi';
import { SecuritySchemes } from './security-schemes';

/**
 * The security and the answers every operation behind ApiKeyGuard has: 401 without a valid key,
 * 403 for a sub-account in the path that is not the key's, 429 over the sub-account's request
 * rate, 503 while a dependency is down.
 */
export function ApiKeyProtected(options: { subAccountInPath: boolean }): ClassDecorator {
  const cases: Partial<Record<ErrorStatus, ErrorCase>> = {
    401: ErrorCases.apiKey,
    ...(options.subAccountInPath ? { 403: ErrorCases.subAccount } : {}),
    429: ErrorCases.rateLimited,
    503: ErrorCases.unavailable,
  };
  return applyDecorators(ApiBearerAuth(SecuritySchemes.apiKey), ApiErrorResponses(cases));
}

/**
 * Behind AdminTokenGuard: 401 without the operator secret, 429 for an address past its failed
 * authentications, 503 while a dependency is down.
 */
export function AdminTokenProtected(): ClassDecorator {
  return applyDecorators(
    ApiBearerAuth(SecuritySchemes.adminToken),
    ApiErrorResponses({ 401: ErrorCases.adminToken, 429: ErrorCases.adminAuthLimited, 503: ErrorCases.unavailable }),
  );
}
