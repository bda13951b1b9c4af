import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { ApiErrorCode } from '@seed/contracts';
import { ApiError } from './api-error';

/** Attach to a class-validator decorator: `{ context: errorCode(ApiErrorCode.InvalidText) }`. */
export const errorCode = (code: number) => ({ code });

/**
 * Validates a parsed body against a DTO class. No implicit conversion: a wrong type is a 400,
 * never coerced. Unknown fields are ignored (clients may send newer fields). The first problem
 * found is reported with the error code its decorator carries (1000 when none).
 */
export function validateBody<T extends object>(dto: new () => T, body: unknown): T {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw ApiError.badRequest('request body must be a JSON object');
  }
  let instance: T;
  try {
    instance = plainToInstance(dto, body);
  } catch {
    // class-transformer calls a nested object's own `constructor` field, so {"constructor": "x"}
    // in a client's body throws a TypeError: bad input, not an internal error.
    throw ApiError.badRequest('request body has a field that cannot be read');
  }
  const errors = validateSync(instance, {
    stopAtFirstError: true,
    forbidUnknownValues: false,
    validationError: { target: false, value: false },
  });
  const first = firstProblem(errors, '');
  if (first) throw new ApiError(400, first.code, first.message);
  return instance;
}

function firstProblem(errors: ValidationError[], prefix: string): { code: number; message: string } | null {
  for (const error of errors) {
    const path = prefix ? `${prefix}.${error.property}` : error.property;
    const constraint = Object.keys(error.constraints ?? {})[0];
    if (constraint) {
      const context = error.contexts?.[constraint] as { code?: number } | undefined;
      const message = (error.constraints?.[constraint] ?? 'is invalid').replace(error.property, path);
      return { code: context?.code ?? ApiErrorCode.InvalidParameter, message };
    }
    const nested = firstProblem(error.children ?? [], path);
    if (nested) return nested;
  }
  return null;
}
