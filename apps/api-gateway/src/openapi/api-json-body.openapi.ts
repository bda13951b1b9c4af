import { applyDecorators } from '@nestjs/common';
import { ApiBody } from '@nestjs/swagger';
import { ApiErrorResponses, ErrorCases, badRequest, type ErrorCase } from './api-error.openapi';

/**
 * What json-body.middleware answers before any controller runs, for every request that has a
 * body: 413 over BODY_LIMIT, 415 when it is not JSON, 400 when it does not parse. `refusals` are
 * the operation's own 400s.
 */
export function ApiJsonBodyErrors(refusals?: { description: string; examples: ErrorCase['examples'] }): MethodDecorator & ClassDecorator {
  return ApiErrorResponses({
    400: refusals ? badRequest(refusals.description, refusals.examples) : { description: 'A body was sent and is not valid JSON (the operation takes none and ignores a valid one).', examples: { badJson: ErrorCases.badJson } },
    413: ErrorCases.tooLarge,
    415: ErrorCases.notJson,
  });
}

/** A JSON request body of `type` with named examples, and the answers to a bad one. */
export function ApiJsonBody(options: {
  type: new () => unknown;
  description?: string;
  required?: boolean;
  examples: Record<string, { summary: string; value: unknown }>;
  refusals: { description: string; examples: ErrorCase['examples'] };
}): MethodDecorator {
  return applyDecorators(
    ApiBody({
      type: options.type,
      required: options.required ?? true,
      ...(options.description ? { description: options.description } : {}),
      examples: options.examples,
    }),
    ApiJsonBodyErrors(options.refusals),
  );
}
