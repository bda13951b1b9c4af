import { ApiErrorCode } from '@seed/contracts';
import { ApiError } from '../http/api-error';
import { MAX_MESSAGES, toSubmitBatchData } from './batch-request.validation';
import { checkItem, checkTemplate } from './sms-properties.rules';

const NOW = new Date('2030-01-15T10:00:00.000Z');
const DAY_MS = 24 * 3600_000;
const at = (msFromNow: number): string => new Date(NOW.getTime() + msFromNow).toISOString();
const item = { destination: '+447911123456', text: 'Hello' };

const submit = (body: unknown) => toSubmitBatchData(body, 'acme', 'acme_hq', NOW);
const withItem = (fields: Record<string, unknown>) => ({ messages: [{ ...item, ...fields }] });
const withTemplate = (template: unknown) => ({ template, messages: [item] });

/** The 400 a whole request is refused with, or a failure when it is accepted. */
function refusal(body: unknown): { status: number; code: number; message: string } {
  try {
    submit(body);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { status: error.status, code: error.code, message: error.message };
  }
  throw new Error('expected the request to be refused');
}

describe('toSubmitBatchData: requests refused as a whole (400)', () => {
  describe('1100: more than 10,000 messages', () => {
    it('refuses 10,001 messages, before looking at any of them', () => {
      expect(MAX_MESSAGES).toBe(10_000);
      const messages = Array.from({ length: 10_001 }, () => ({ destination: 42 }));
      expect(refusal({ messages })).toMatchObject({ status: 400, code: ApiErrorCode.BulkLimitReached });
    });

    it('accepts exactly 10,000 messages', () => {
      const messages = Array.from({ length: 10_000 }, (_, i) => ({ destination: `+4479110${String(i).padStart(5, '0')}` }));
      expect(submit({ template: { text: 'Hi' }, messages }).messages).toHaveLength(10_000);
    });
  });

  describe('1000: the request is not a batch', () => {
    it.each([
      ['missing', {}],
      ['empty', { messages: [] }],
      ['null', { messages: null }],
      ['an object', { messages: { 0: item } }],
      ['a string', { messages: 'hello' }],
    ])('refuses messages %s', (_, body) => {
      expect(refusal(body)).toMatchObject({ status: 400, code: ApiErrorCode.InvalidParameter });
      expect(refusal(body).message).toMatch(/messages/);
    });

    it.each([
      ['null', null],
      ['an array', [item]],
      ['a string', 'messages'],
      ['a number', 7],
    ])('refuses a body that is %s', (_, body) => {
      expect(refusal(body)).toMatchObject({ status: 400, code: ApiErrorCode.InvalidParameter });
    });

    it.each([
      ['null', null],
      ['a string', 'x'],
      ['an array', [item]],
    ])('refuses a message that is %s, naming its index', (_, bad) => {
      expect(refusal({ messages: [item, bad] })).toMatchObject({ code: ApiErrorCode.InvalidParameter, message: expect.stringMatching(/messages\.1/) });
    });
  });

  describe('clientBatchId', () => {
    it('refuses more than 50 characters with 1000', () => {
      expect(refusal({ clientBatchId: 'b'.repeat(51), messages: [item] })).toMatchObject({
        status: 400,
        code: ApiErrorCode.InvalidParameter,
        message: expect.stringMatching(/clientBatchId/),
      });
    });

    it('refuses a value that is not a string with 1000', () => {
      expect(refusal({ clientBatchId: 42, messages: [item] })).toMatchObject({ code: ApiErrorCode.InvalidParameter });
    });

    it('accepts 50 characters and passes them on', () => {
      expect(submit({ clientBatchId: 'b'.repeat(50), messages: [item] }).clientBatchId).toBe('b'.repeat(50));
    });

    it('leaves it out when absent or null', () => {
      expect(submit({ messages: [item] })).not.toHaveProperty('clientBatchId');
      expect(submit({ clientBatchId: null, messages: [item] })).not.toHaveProperty('clientBatchId');
    });
  });

  describe('clientMessageId', () => {
    it('refuses more than 50 characters with 1000, naming the message', () => {
      expect(refusal(withItem({ clientMessageId: 'm'.repeat(51) }))).toMatchObject({
        code: ApiErrorCode.InvalidParameter,
        message: expect.stringMatching(/messages\.0\.clientMessageId/),
      });
    });

    it('refuses a value that is not a string with 1000', () => {
      expect(refusal(withItem({ clientMessageId: 7 }))).toMatchObject({ code: ApiErrorCode.InvalidParameter });
    });

    it('accepts 50 characters', () => {
      expect(submit(withItem({ clientMessageId: 'm'.repeat(50) })).messages[0]?.clientMessageId).toBe('m'.repeat(50));
    });
  });

  describe('includeMessagesInResponse', () => {
    it.each([['a string', 'true'], ['a number', 1], ['an object', {}]])('refuses %s with 1000', (_, value) => {
      expect(refusal({ includeMessagesInResponse: value, messages: [item] })).toMatchObject({ code: ApiErrorCode.InvalidParameter });
    });

    it('is false unless it is true', () => {
      expect(submit({ messages: [item] }).includeMessagesInResponse).toBe(false);
      expect(submit({ includeMessagesInResponse: false, messages: [item] }).includeMessagesInResponse).toBe(false);
      expect(submit({ includeMessagesInResponse: true, messages: [item] }).includeMessagesInResponse).toBe(true);
    });
  });

  describe('1007: template', () => {
    it.each([['a string', 'Hello'], ['a number', 1], ['an array', [{ text: 'Hello' }]], ['a boolean', true]])(
      'refuses a template that is %s',
      (_, template) => {
        expect(refusal(withTemplate(template))).toMatchObject({ status: 400, code: ApiErrorCode.InvalidTemplate });
      },
    );

    it('treats a null template as none', () => {
      expect(submit(withTemplate(null))).not.toHaveProperty('template');
    });

    it('checks the template fields with the same codes as the items', () => {
      expect(refusal(withTemplate({ text: 5 }))).toMatchObject({ code: ApiErrorCode.InvalidText, message: expect.stringMatching(/^template\.text/) });
      expect(refusal(withTemplate({ encoding: 'UTF8' }))).toMatchObject({ code: ApiErrorCode.InvalidEncoding });
    });
  });

  describe('type and format of the message properties (template or item)', () => {
    it.each<[string, Record<string, unknown>, number]>([
      ['1003: an unknown encoding', { encoding: 'UTF8' }, ApiErrorCode.InvalidEncoding],
      ['1003: an encoding in lower case', { encoding: 'gsm7' }, ApiErrorCode.InvalidEncoding],
      ['1003: an encoding that is not a string', { encoding: 7 }, ApiErrorCode.InvalidEncoding],
      ['1004: a text that is a number', { text: 42 }, ApiErrorCode.InvalidText],
      ['1004: a text that is an object', { text: { en: 'Hi' } }, ApiErrorCode.InvalidText],
      ['1005: a source that is a number', { source: 447911000000 }, ApiErrorCode.InvalidSource],
      ['1006: an expiry that is not a date', { expiry: 'tomorrow' }, ApiErrorCode.InvalidExpiry],
      ['1006: an expiry that is a number', { expiry: 1894701600000 }, ApiErrorCode.InvalidExpiry],
      ['1006: an expiry on a day that does not exist', { expiry: '2030-02-30T10:00:00Z' }, ApiErrorCode.InvalidExpiry],
      ['1011: a schedule that is not a date', { scheduled: 'soon' }, ApiErrorCode.InvalidScheduleTime],
      ['1011: a schedule with a space instead of T', { scheduled: '2030-01-15 12:00:00Z' }, ApiErrorCode.InvalidScheduleTime],
      ['1011: a schedule as an ISO week date', { scheduled: '2030-W03-2' }, ApiErrorCode.InvalidScheduleTime],
      ['1011: a schedule that is a boolean', { scheduled: true }, ApiErrorCode.InvalidScheduleTime],
      ['1011: a schedule with a time but no zone', { scheduled: '2030-01-16T10:00:00' }, ApiErrorCode.InvalidScheduleTime],
      ['1006: an expiry with a time but no zone', { expiry: '2030-01-16T10:00' }, ApiErrorCode.InvalidExpiry],
      ['1000: a callback URL that is not http(s)', { dlrCallbackUrl: 'ftp://hooks.example.com/dlr' }, ApiErrorCode.InvalidParameter],
      ['1000: a callback URL that is not a URL', { dlrCallbackUrl: 'hooks' }, ApiErrorCode.InvalidParameter],
      ['1000: a callback URL with credentials', { dlrCallbackUrl: 'https://user:pw@hooks.example.com/dlr' }, ApiErrorCode.InvalidParameter],
      ['1000: a callback URL over 2048 characters', { dlrCallbackUrl: `https://hooks.example.com/${'a'.repeat(2050)}` }, ApiErrorCode.InvalidParameter],
    ])('%s', (_, fields, code) => {
      expect(refusal(withItem(fields))).toMatchObject({ status: 400, code });
      expect(refusal(withTemplate(fields))).toMatchObject({ status: 400, code });
    });

    it('names the field and the message in the error', () => {
      expect(refusal({ messages: [item, item, { ...item, source: 1 }] }).message).toMatch(/^messages\.2\.source /);
    });

    it('checks each callback URL, whatever the URLs checked before it (the last verdict is kept)', () => {
      const good = 'https://hooks.example.com/dlr';
      const bad = 'https://user:pw@hooks.example.com/dlr';
      const url = (dlrCallbackUrl: string) => ({ ...item, dlrCallbackUrl });
      expect(refusal({ messages: [url(good), url(good), url(bad)] }).message).toMatch(/^messages\.2\.dlrCallbackUrl /);
      expect(refusal({ messages: [url(bad)] }).message).toMatch(/^messages\.0\.dlrCallbackUrl /);
      expect(refusal({ messages: [url(good), url(bad), url(good)] }).message).toMatch(/^messages\.1\.dlrCallbackUrl /);
      expect(submit({ messages: [url(good), url(good)] }).messages.map((m) => m.dlrCallbackUrl)).toEqual([good, good]);
    });
  });

  // Found by fuzzing the API document: RFC 3339 date-times of the years 0001-0099 were refused,
  // and one past 9999 in UTC was accepted and then stopped sms-batch's read models.
  describe('date-times within the years 0001 to 9999 in UTC, whatever the offset', () => {
    it.each([
      ['a year below 100', '0018-06-06T11:15:53.91Z'],
      ['the first instant', '0001-01-01T00:00:00Z'],
      ['the last instant', '9999-12-31T23:59:59.999Z'],
      ['the last day at a negative offset still in 9999', '9999-12-31T09:59:59-14:00'],
      ['29 February of a leap year below 100', '0004-02-29T12:00:00Z'],
    ])('accepts %s (%s)', (_, value) => {
      expect(() => submit(withItem({ expiry: value }))).not.toThrow();
      expect(() => submit(withTemplate({ text: 'Hi', expiry: value }))).not.toThrow();
    });

    it('accepts a schedule of the year 18 (in the past: now)', () => {
      expect(() => submit(withItem({ scheduled: '0018-06-06T11:15:53.91Z' }))).not.toThrow();
    });

    it.each([
      ['the year 0', '0000-06-06T00:00:00Z'],
      ['the year 1 at a positive offset (the year 0 in UTC)', '0001-01-01T00:30:00+01:00'],
      ['the year 9999 at a negative offset (the year 10000 in UTC)', '9999-12-31T23:59:59-14:00'],
      ['29 February of a year below 100 that is not a leap year', '0018-02-29T12:00:00Z'],
    ])('refuses %s (%s)', (_, value) => {
      expect(refusal(withItem({ expiry: value }))).toMatchObject({ status: 400, code: ApiErrorCode.InvalidExpiry, message: expect.stringMatching(/0001 to 9999/) });
      expect(refusal(withTemplate({ scheduled: value }))).toMatchObject({ status: 400, code: ApiErrorCode.InvalidScheduleTime });
    });
  });

  describe('1011: a schedule more than 7 days ahead', () => {
    it('refuses one in an item and one in the template', () => {
      const tooLate = at(7 * DAY_MS + 1);
      expect(refusal(withItem({ scheduled: tooLate }))).toMatchObject({ code: ApiErrorCode.InvalidScheduleTime, message: expect.stringMatching(/7 days/) });
      expect(refusal(withTemplate({ text: 'Hi', scheduled: tooLate }))).toMatchObject({ code: ApiErrorCode.InvalidScheduleTime });
    });

    it('judges the instant, not the wall-clock digits, of a schedule with an offset', () => {
      // 7 days + 1 h on the wall clock at +02:00 is 7 days - 1 h in UTC: within the limit.
      expect(() => submit(withItem({ scheduled: '2030-01-22T11:00:00+02:00' }))).not.toThrow();
      expect(refusal(withItem({ scheduled: '2030-01-22T09:00:00-02:00' }))).toMatchObject({ code: ApiErrorCode.InvalidScheduleTime });
    });

    it('accepts exactly 7 days ahead, and a schedule in the past (which means now)', () => {
      expect(submit(withItem({ scheduled: at(7 * DAY_MS) })).messages[0]?.scheduled).toBe(at(7 * DAY_MS));
      expect(submit(withItem({ scheduled: at(-DAY_MS) })).messages[0]?.scheduled).toBe(at(-DAY_MS));
    });
  });

  describe('1009: country', () => {
    it.each([
      ['lower case', 'gb'],
      ['three letters', 'GBR'],
      ['unknown to the numbering plans', 'XX'],
      ['a calling code', '44'],
      ['a number', 44],
      ['empty', ''],
    ])('refuses a country that is %s', (_, country) => {
      expect(refusal(withItem({ country }))).toMatchObject({ status: 400, code: ApiErrorCode.InvalidCountryCode });
    });

    it('accepts a supported ISO 3166 code and passes it on', () => {
      expect(submit(withItem({ destination: '07911 123456', country: 'GB' })).messages[0]).toMatchObject({
        destination: '07911 123456',
        country: 'GB',
      });
    });
  });

  describe('1002: destination', () => {
    it.each([['a number', 447911123456], ['an array', ['+447911123456']], ['an object', { number: '+447911123456' }]])(
      'refuses a destination that is %s',
      (_, destination) => {
        expect(refusal(withItem({ destination }))).toMatchObject({ status: 400, code: ApiErrorCode.InvalidMsisdn });
      },
    );

    it('leaves a missing or malformed destination to sms-batch, which rejects that message alone', () => {
      const data = submit({ template: { text: 'Hi' }, messages: [{ clientMessageId: 'no-destination' }, { destination: 'not a number' }] });
      expect(data.messages.map((m) => m.destination)).toEqual(['', 'not a number']);
    });
  });
});

describe('toSubmitBatchData: what is passed on to sms-batch', () => {
  it('carries the account, sub-account and messages in request order', () => {
    const data = submit({ messages: [{ destination: '+447911000001' }, { destination: '+447911000002' }], template: { text: 'Hi' } });
    expect(data).toEqual({
      accountId: 'acme',
      subAccountId: 'acme_hq',
      includeMessagesInResponse: false,
      template: { text: 'Hi' },
      messages: [{ destination: '+447911000001' }, { destination: '+447911000002' }],
    });
  });

  it('passes every item override through as given, next to the template (sms-batch merges them)', () => {
    const data = submit({
      clientBatchId: 'order-42',
      includeMessagesInResponse: true,
      template: {
        text: 'Template text',
        source: 'ACME',
        encoding: 'AUTO',
        scheduled: '2030-01-15T11:00:00.000Z',
        expiry: '2030-01-16T10:00:00.000Z',
        dlrCallbackUrl: 'https://hooks.example.com/template',
      },
      messages: [
        {
          destination: '+447911123456',
          country: 'GB',
          clientMessageId: 'm-1',
          text: 'Own text',
          source: '447911000000',
          encoding: 'UCS2',
          scheduled: '2030-01-15T12:00:00.000Z',
          expiry: '2030-01-15T13:00:00.000Z',
          dlrCallbackUrl: 'http://localhost:8080/dlr',
        },
        { destination: '+447911123457' },
      ],
    });

    expect(data).toEqual({
      accountId: 'acme',
      subAccountId: 'acme_hq',
      clientBatchId: 'order-42',
      includeMessagesInResponse: true,
      template: {
        text: 'Template text',
        source: 'ACME',
        encoding: 'AUTO',
        scheduled: '2030-01-15T11:00:00.000Z',
        expiry: '2030-01-16T10:00:00.000Z',
        dlrCallbackUrl: 'https://hooks.example.com/template',
      },
      messages: [
        {
          destination: '+447911123456',
          country: 'GB',
          clientMessageId: 'm-1',
          text: 'Own text',
          source: '447911000000',
          encoding: 'UCS2',
          scheduled: '2030-01-15T12:00:00.000Z',
          expiry: '2030-01-15T13:00:00.000Z',
          dlrCallbackUrl: 'http://localhost:8080/dlr',
        },
        { destination: '+447911123457' },
      ],
    });
  });

  it('keeps empty strings, which are values (sms-batch decides what they mean)', () => {
    expect(submit(withItem({ text: '', source: '' })).messages[0]).toEqual({ destination: item.destination, text: '', source: '' });
  });

  it('ignores unknown fields at every level, whatever their type', () => {
    const data = submit({
      futureFlag: { nested: true },
      priority: 5,
      template: { text: 'Hi', validityPeriod: 'PT1H', tags: ['a'] },
      messages: [{ ...item, mediaUrl: 42, metadata: null, constructor: 'x' }],
    });
    expect(data).toEqual({
      accountId: 'acme',
      subAccountId: 'acme_hq',
      includeMessagesInResponse: false,
      template: { text: 'Hi' },
      messages: [item],
    });
  });

  it('treats null as absent for the optional fields', () => {
    const data = submit({
      template: { text: 'Hi', source: null, encoding: null, scheduled: null, expiry: null, dlrCallbackUrl: null },
      messages: [{ ...item, country: null, clientMessageId: null, text: null, source: null, encoding: null, expiry: null }],
    });
    expect(data.template).toEqual({ text: 'Hi' });
    expect(data.messages[0]).toEqual({ destination: item.destination });
  });

  it('normalises the instants of the template and the items to UTC with milliseconds', () => {
    const data = submit({
      template: { text: 'Hi', scheduled: '2030-01-15T12:30:00+02:00', expiry: '2030-01-16T00:00:00-05:00' },
      messages: [{ ...item, scheduled: '2030-01-15T10:00:00.5Z', expiry: '2030-01-15T23:59:59+00:00' }],
    });
    expect(data.template).toMatchObject({ scheduled: '2030-01-15T10:30:00.000Z', expiry: '2030-01-16T05:00:00.000Z' });
    expect(data.messages[0]).toMatchObject({ scheduled: '2030-01-15T10:00:00.500Z', expiry: '2030-01-15T23:59:59.000Z' });
  });

  it('passes an expiry in the past on: that message is rejected by sms-batch, not the request', () => {
    expect(submit(withItem({ expiry: at(-1000) })).messages[0]?.expiry).toBe(at(-1000));
  });

  it('does not change the body it was given', () => {
    const body = { template: { text: 'Hi', scheduled: '2030-01-15T12:30:00+02:00' }, messages: [{ ...item, unknown: 1 }] };
    const copy = JSON.parse(JSON.stringify(body)) as unknown;
    submit(body);
    expect(body).toEqual(copy);
  });
});

describe('sms-properties rules', () => {
  it('checkTemplate and checkItem accept the empty object', () => {
    expect(() => checkTemplate({})).not.toThrow();
    expect(() => checkItem({}, 0)).not.toThrow();
  });

  it('checkTemplate does not know the item-only fields, so it leaves them alone', () => {
    expect(() => checkTemplate({ destination: 42, country: 'gb', clientMessageId: 'm'.repeat(60) })).not.toThrow();
  });

  it('reports the first failing field of an item in rule order with its code', () => {
    expect(() => checkItem({ text: 1, destination: 2 }, 3)).toThrow(expect.objectContaining({ code: ApiErrorCode.InvalidText, status: 400 }));
  });
});
