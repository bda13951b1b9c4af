import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

type Constructor<T> = new () => T;

/** Environment values are strings; the default's type says what the setting is. */
function coerce(raw: string, example: unknown): unknown {
  if (typeof example === 'number') return /^-?\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) : raw;
  if (typeof example === 'boolean') return raw === 'true' ? true : raw === 'false' ? false : raw;
  return raw;
}

/**
 * Reads the environment once, at boot, into a typed and validated object. Nothing else in the
 * platform reads `process.env`; a bad value stops the process with every problem listed at once.
 */
export function loadConfig<T extends object>(schema: Constructor<T>, env: NodeJS.ProcessEnv = process.env): T {
  const defaults = new schema() as Record<string, unknown>;
  const given = Object.fromEntries(
    Object.keys(defaults).flatMap((key) => {
      const raw = env[key];
      return raw === undefined || raw === '' ? [] : [[key, coerce(raw, defaults[key])]];
    }),
  );
  const config = plainToInstance(schema, { ...defaults, ...given });
  const errors = validateSync(config, { whitelist: false, forbidUnknownValues: true });
  if (errors.length > 0) {
    const problems = errors.map((e) => `${e.property}: ${Object.values(e.constraints ?? {}).join(', ')}`);
    throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  return config;
}
