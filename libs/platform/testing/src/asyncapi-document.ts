import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Schema = { [key: string]: Json };

const ROOT = join(__dirname, '../../../..');

const FORMATS: Record<string, (value: string) => boolean> = {
  uuid: (v) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v),
  'date-time': (v) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(v) && !Number.isNaN(Date.parse(v)),
};

const typeOf = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value;

/**
 * docs/asyncapi.json as the specs that keep it in step with the deciders read it: the document,
 * `$ref` resolution, and a small JSON Schema checker (enough of draft-07 for the keywords the
 * document uses) that lists every way a value breaks a schema.
 */
export class AsyncApiDocument {
  readonly doc: Schema = JSON.parse(readFileSync(join(ROOT, 'docs/asyncapi.json'), 'utf8')) as Schema;
  readonly eventsMd: string = readFileSync(join(ROOT, 'docs/events.md'), 'utf8');

  /** As in draft-07, a $ref replaces its schema (sibling keywords are ignored). */
  deref = (schema: Schema): Schema => (typeof schema['$ref'] === 'string' ? this.resolve(schema['$ref']) : schema);

  resolve(ref: string): Schema {
    if (!ref.startsWith('#/')) throw new Error(`only local $refs are supported: ${ref}`);
    let node: Json = this.doc;
    for (const segment of ref.slice(2).split('/')) {
      const key = segment.replace(/~1/g, '/').replace(/~0/g, '~');
      if (node === null || typeof node !== 'object' || Array.isArray(node) || !(key in node)) throw new Error(`unresolved $ref ${ref}`);
      node = node[key] as Json;
    }
    return this.deref(node as Schema);
  }

  /** Every way `value` breaks `schema`, as `path: problem` lines; empty when it conforms. */
  problems = (schemaOrRef: Schema, value: unknown, path = '$'): string[] => {
    const schema = this.deref(schemaOrRef);
    const found: string[] = [];
    if (Array.isArray(schema['oneOf'])) {
      const branches = (schema['oneOf'] as Schema[]).map((branch) => this.problems(branch, value, path));
      const matching = branches.filter((b) => b.length === 0).length;
      if (matching !== 1) found.push(`${path}: matches ${matching} of the oneOf schemas${matching === 0 ? ` (${branches.flat().join('; ')})` : ''}`);
    }
    const actual = typeOf(value);
    if (schema['type'] !== undefined) {
      const allowed = ([] as Json[]).concat(schema['type']) as string[];
      const matches = allowed.includes(actual) || (actual === 'integer' && allowed.includes('number'));
      if (!matches) return [`${path}: is ${actual}, expected ${allowed.join(' or ')}`];
    }
    if ('const' in schema && value !== schema['const']) found.push(`${path}: is ${JSON.stringify(value)}, expected ${JSON.stringify(schema['const'])}`);
    if (Array.isArray(schema['enum']) && !schema['enum'].includes(value as Json)) found.push(`${path}: ${JSON.stringify(value)} is not in the enum`);
    if (typeof value === 'string') {
      if (typeof schema['minLength'] === 'number' && [...value].length < schema['minLength']) found.push(`${path}: shorter than ${schema['minLength']}`);
      if (typeof schema['maxLength'] === 'number' && [...value].length > schema['maxLength']) found.push(`${path}: longer than ${schema['maxLength']}`);
      if (typeof schema['pattern'] === 'string' && !new RegExp(schema['pattern'], 'u').test(value)) found.push(`${path}: does not match ${schema['pattern']}`);
      const format = typeof schema['format'] === 'string' ? FORMATS[schema['format']] : undefined;
      if (format && !format(value)) found.push(`${path}: not a ${String(schema['format'])}`);
    }
    if (typeof value === 'number') {
      if (typeof schema['minimum'] === 'number' && value < schema['minimum']) found.push(`${path}: below ${schema['minimum']}`);
      if (typeof schema['maximum'] === 'number' && value > schema['maximum']) found.push(`${path}: above ${schema['maximum']}`);
    }
    if (Array.isArray(value)) {
      if (typeof schema['minItems'] === 'number' && value.length < schema['minItems']) found.push(`${path}: fewer than ${schema['minItems']} items`);
      if (typeof schema['maxItems'] === 'number' && value.length > schema['maxItems']) found.push(`${path}: more than ${schema['maxItems']} items`);
      const items = schema['items'] as Schema | undefined;
      if (items) value.forEach((item, i) => found.push(...this.problems(items, item, `${path}[${i}]`)));
    }
    if (actual === 'object') {
      const object = value as Record<string, unknown>;
      const properties = (schema['properties'] ?? {}) as Record<string, Schema>;
      for (const name of (schema['required'] ?? []) as string[]) if (!(name in object)) found.push(`${path}.${name}: missing`);
      for (const [name, child] of Object.entries(object)) {
        const property = properties[name];
        if (property) found.push(...this.problems(property, child, `${path}.${name}`));
        else if (schema['additionalProperties'] === false) found.push(`${path}.${name}: not in the schema`);
      }
    }
    return found;
  };
}
