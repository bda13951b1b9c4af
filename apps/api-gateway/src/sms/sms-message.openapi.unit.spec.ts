import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkItem, checkTemplate } from './sms-properties.rules';

type Schemas = Record<string, { properties: Record<string, { pattern?: string }> }>;
const schemas = (JSON.parse(readFileSync(join(__dirname, '../../../../docs/openapi/messaging.json'), 'utf8')) as { components: { schemas: Schemas } }).components.schemas;

/**
 * The documents' date-times and the gateway's check of them agree. Found by fuzzing the
 * document: with `format: date-time` alone (only an annotation in OpenAPI 3.1) "" was a valid
 * `scheduled`, and the check refused RFC 3339 date-times of the years 0001-0099.
 */
describe('date-time properties of the messaging document', () => {
  const properties = ['SmsTemplate', 'SmsMessage', 'CompactTemplate', 'SingleMessageRequest'].flatMap((schema) =>
    ['scheduled', 'expiry'].map((field) => ({ schema, field, pattern: schemas[schema]?.properties[field]?.pattern })),
  );

  it('every one has a pattern', () => {
    expect(properties.filter((p) => p.pattern === undefined)).toEqual([]);
  });

  it.each([
    '2030-01-15T10:00:00Z',
    '2030-01-15T10:00:00.123456+05:30',
    '0018-06-06T11:15:53.91Z',
    '0001-01-01T00:00:00Z',
    '9999-12-31T23:59:59.999Z',
    '1861-04-27T22:59:50-07:27',
  ])('what the pattern allows, the check accepts: %s', (value) => {
    for (const { pattern } of properties) expect(new RegExp(pattern as string).test(value)).toBe(true);
    // In the past, so as a schedule it means now; within 7 days either way.
    expect(() => checkItem({ expiry: value }, 0)).not.toThrow();
    expect(() => checkTemplate({ expiry: value })).not.toThrow();
  });

  it.each(['', '0000-01-01T00:00:00Z', '2030-01-15', '2030-01-15T10:00:00', '2030-01-15 10:00:00Z', 'soon'])('the pattern refuses %j', (value) => {
    for (const { pattern } of properties) expect(new RegExp(pattern as string).test(value)).toBe(false);
  });
});
