import { ValidateBy, type ValidationOptions } from 'class-validator';

/** The least an operator secret must carry: a guess per nanosecond for a billion years does not find it. */
export const MIN_TOKEN_BITS = 128;

/**
 * Values the repository shows as examples (k8s/secret.example.yaml, docker/example.env, docs): a
 * token that contains one of them was copied, not generated.
 */
const PLACEHOLDERS = ['change-me', 'changeme', 'replace-with', 'placeholder', 'example', 'secret', 'password', 'admin-token'];

/**
 * Why `token` is not strong enough to guard the admin API, or null when it is. Its entropy is
 * estimated as length × log2(the alphabet of the character classes it uses): hex digits 16, base64url
 * 64, printable ASCII 95, so at least 32 hex or 22 base64url characters. Obvious patterns are refused
 * whatever their length: a repeated unit, few distinct characters, or mostly runs (`aaaa`, `abcd`).
 */
export function tokenWeakness(token: string): string | null {
  if (token === '') return 'is not set';
  const lower = token.toLowerCase();
  const placeholder = PLACEHOLDERS.find((p) => lower.includes(p));
  if (placeholder) return `looks like a documented placeholder (contains "${placeholder}")`;
  const bits = estimatedBits(token);
  if (bits < MIN_TOKEN_BITS) return `has about ${Math.floor(bits)} bits of entropy, fewer than ${MIN_TOKEN_BITS} (at least 32 hex or 22 base64url random characters)`;
  if (/^(.+?)\1+$/s.test(token)) return 'is one string repeated';
  const distinct = new Set(token).size;
  if (distinct < Math.min(8, Math.ceil(token.length / 4))) return `uses only ${distinct} distinct characters`;
  let runs = 0;
  for (let i = 1; i < token.length; i++) if (Math.abs(token.charCodeAt(i) - token.charCodeAt(i - 1)) <= 1) runs++;
  if (runs > (token.length - 1) / 2) return 'is mostly repeated or consecutive characters';
  return null;
}

/** length × log2(alphabet), the alphabet being the smallest usual one that holds every character. */
export function estimatedBits(token: string): number {
  return token.length * Math.log2(alphabetSize(token));
}

function alphabetSize(token: string): number {
  if (/^[0-9a-f]+$/.test(token) || /^[0-9A-F]+$/.test(token)) return 16;
  let size = 0;
  if (/[a-z]/.test(token)) size += 26;
  if (/[A-Z]/.test(token)) size += 26;
  if (/[0-9]/.test(token)) size += 10;
  if (/[-_]/.test(token)) size += 2;
  if (/[^a-zA-Z0-9_-]/.test(token)) size += 31; // the rest of printable ASCII
  return Math.max(size, 2);
}

/** Config validation: refuses a token `tokenWeakness` finds fault with (optional: '' allowed). */
export function IsStrongToken(options: { optional?: boolean } = {}, validation?: ValidationOptions): PropertyDecorator {
  let problem = '';
  return ValidateBy(
    {
      name: 'isStrongToken',
      validator: {
        validate(value: unknown): boolean {
          if (typeof value !== 'string') return false;
          if (value === '' && options.optional) return true;
          problem = tokenWeakness(value) ?? '';
          return problem === '';
        },
        defaultMessage: (args) => `${args?.property} ${problem || 'must be a string'}; make one with: openssl rand -hex 24`,
      },
    },
    validation,
  );
}
