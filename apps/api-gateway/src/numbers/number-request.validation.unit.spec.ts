import 'reflect-metadata';
import { ApiError } from '../http/api-error';
import { knownNumber, listFilter, numberInput, putNumber } from './number-request.validation';

const refusal = (work: () => unknown): { status: number; code: number; message: string } => {
  try {
    work();
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { status: error.status, code: error.code, message: error.message };
  }
  throw new Error('accepted');
};

const ACME = { accountId: 'acme', subAccountId: 'acme_hq' };

describe('the number of a numbers path', () => {
  it.each(['+447700900123', '447700900123'])('reads %s as the stored form 447700900123', (given) => {
    expect(putNumber(given)).toBe('447700900123');
    expect(knownNumber(given)).toBe('447700900123');
  });

  it('keeps numbers of reserved ranges a stricter check refuses (07700 900xxx), and reads other calling codes', () => {
    expect(putNumber('+447700900000')).toBe('447700900000');
    expect(putNumber('+4915112345678')).toBe('4915112345678');
    expect(putNumber('12025550123')).toBe('12025550123');
  });

  it('drops a national prefix written after the calling code', () => {
    expect(putNumber('+4407700900123')).toBe('447700900123');
  });

  it.each(['123', '60777', '12345678'])('keeps the short code %s as written', (given) => {
    expect(putNumber(given)).toBe(given);
  });

  it('reads a short number with + as international: a short code never has one', () => {
    expect(putNumber('+6834002')).toBe('6834002');
    expect(refusal(() => putNumber('+60777'))).toMatchObject({ status: 400, code: 1000 });
  });

  it.each<[string, string]>([
    ['two digits', '12'],
    ['nine digits no calling code makes possible', '123456789'],
    ['too few digits for the calling code', '+4477'],
    ['too many digits for the calling code', '+4477009001234'],
    ['16 digits', '+4477009001234567'],
    ['separators', '+44 7700 900123'],
    ['letters', '+44770090012a'],
    ['00 in front', '00447700900123'],
    ['an unknown calling code', '+999123456789'],
    ['a NUL byte', '4477\u000000900123'],
  ])('refuses %s with 400, code 1000, on a PUT and answers 404 on a read or removal', (_name, given) => {
    expect(refusal(() => putNumber(given))).toEqual({ status: 400, code: 1000, message: `number ${JSON.stringify(given)} must be a long number in international form (+447700900123 or 447700900123) or a short code of 3-8 digits` });
    expect(refusal(() => knownNumber(given))).toMatchObject({ status: 404, code: 1300 });
  });
});

describe('PUT /admin/v1/numbers/{number} body', () => {
  it('stores omitted and null optional fields as null', () => {
    expect(numberInput(ACME)).toEqual({ ...ACME, inboundWebhookUrl: null, helpText: null, carriers: null });
    expect(numberInput({ ...ACME, inboundWebhookUrl: null, helpText: null, carriers: null })).toEqual({ ...ACME, inboundWebhookUrl: null, helpText: null, carriers: null });
  });

  it('passes given values on', () => {
    const body = { ...ACME, inboundWebhookUrl: 'https://hooks.acme.example/inbound?n=1', helpText: 'Acme: reply STOP to opt out', carriers: ['carrier-a', 'carrier-b'] };
    expect(numberInput({ ...body, unknownField: 1 })).toEqual(body);
    expect(numberInput({ ...ACME, inboundWebhookUrl: 'http://10.0.0.7:8080/in' }).inboundWebhookUrl).toBe('http://10.0.0.7:8080/in');
  });

  it('takes a URL of 2048 characters and a help text of 459, counting an emoji once', () => {
    const url = `https://hooks.acme.example/${'a'.repeat(2048 - 'https://hooks.acme.example/'.length)}`;
    expect(numberInput({ ...ACME, inboundWebhookUrl: url }).inboundWebhookUrl).toBe(url);
    expect(numberInput({ ...ACME, helpText: 'x'.repeat(459) }).helpText).toHaveLength(459);
    const emoji = `${'x'.repeat(458)}\u{1F600}`;
    expect(numberInput({ ...ACME, helpText: emoji }).helpText).toBe(emoji);
  });

  it.each<[string, unknown, string]>([
    ['no accountId', { subAccountId: 'acme_hq' }, 'accountId is required: a string'],
    ['an accountId that is a number', { accountId: 7, subAccountId: 'acme_hq' }, 'accountId is required: a string'],
    ['a subAccountId with a space', { accountId: 'acme', subAccountId: 'acme hq' }, 'subAccountId must be 2-63 characters'],
    ['a URL that is not absolute', { ...ACME, inboundWebhookUrl: '/inbound' }, 'inboundWebhookUrl must be an absolute URL'],
    ['an ftp URL', { ...ACME, inboundWebhookUrl: 'ftp://hooks.acme.example/in' }, 'inboundWebhookUrl must be an http or https URL'],
    ['a URL with credentials', { ...ACME, inboundWebhookUrl: 'https://u:p@hooks.acme.example/in' }, 'inboundWebhookUrl must not carry credentials'],
    ['a URL of 2049 characters', { ...ACME, inboundWebhookUrl: `https://h.example/${'a'.repeat(2049 - 'https://h.example/'.length)}` }, 'inboundWebhookUrl must be at most 2048 characters'],
    ['a URL that is not a string', { ...ACME, inboundWebhookUrl: ['https://h.example'] }, 'inboundWebhookUrl must be a string'],
    ['an empty help text', { ...ACME, helpText: '' }, 'helpText must be 1-459 characters'],
    ['a help text of spaces', { ...ACME, helpText: ' \n ' }, 'helpText must be 1-459 characters, not only spaces'],
    ['a help text of 460 characters', { ...ACME, helpText: 'x'.repeat(460) }, 'helpText must be 1-459 characters'],
    ['carriers that are not a list', { ...ACME, carriers: 'carrier-a' }, 'carriers must be a list of carrier ids, or null'],
    ['an empty carrier list', { ...ACME, carriers: [] }, 'carriers must hold at least one carrier id, or be null'],
    ['a carrier id with capitals', { ...ACME, carriers: ['Carrier-A'] }, 'carriers must hold carrier ids'],
    ['a help text that is not a string', { ...ACME, helpText: 42 }, 'helpText must be 1-459 characters'],
    ['a body that is not an object', [ACME], 'request body must be a JSON object'],
  ])('refuses %s with 400, code 1000', (_name, body, message) => {
    expect(refusal(() => numberInput(body))).toEqual({ status: 400, code: 1000, message: expect.stringContaining(message) });
  });
});

describe('GET /admin/v1/numbers query', () => {
  it('lists every number without a filter, or one sub-account', () => {
    expect(listFilter({})).toBeNull();
    expect(listFilter(undefined)).toBeNull();
    expect(listFilter({ subAccountId: 'acme_hq', other: 'x' })).toBe('acme_hq');
  });

  it.each<[string, unknown]>([
    ['given twice', { subAccountId: ['a_hq', 'b_hq'] }],
    ['empty', { subAccountId: '' }],
    ['with a NUL byte', { subAccountId: 'acme\u0000' }],
  ])('refuses a subAccountId %s with 400, code 1000', (_name, query) => {
    expect(refusal(() => listFilter(query))).toMatchObject({ status: 400, code: 1000, message: expect.stringContaining('subAccountId must be a sub-account id') });
  });
});
