import { ValidateBy, type ValidationOptions } from 'class-validator';
import { KeyringError, parseKeyring } from './keyring';

/** Config check: the setting is a keyring (`kid:base64key,...`), or empty when `optional`. */
export function IsKeyring(options: { optional?: boolean; minBytes?: number } = {}, validation?: ValidationOptions): PropertyDecorator {
  let problem = '';
  return ValidateBy(
    {
      name: 'isKeyring',
      validator: {
        validate(value: unknown): boolean {
          if (typeof value !== 'string') return false;
          if (value === '' && options.optional) return true;
          try {
            parseKeyring(value, options.minBytes);
            return true;
          } catch (error) {
            problem = error instanceof KeyringError ? error.message : 'invalid keyring';
            return false;
          }
        },
        defaultMessage: (args) =>
          `${args?.property} must be kid:base64key[,kid:base64key...] (${problem || 'required'}); make a key with: openssl rand -base64 32`,
      },
    },
    validation,
  );
}
