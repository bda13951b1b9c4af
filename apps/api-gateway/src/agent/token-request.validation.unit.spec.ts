import { ApiError } from '../http/api-error';
import { toE164 } from './phone-number';
import { toCreateAgentTokenData } from './token-request.validation';

const refusal = (body: unknown): { status: number; code: number } => {
  try {
    toCreateAgentTokenData(body, 'acme');
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, code: error.code };
    throw error;
  }
  throw new Error('expected a refusal');
};

describe('token request', () => {
  it('asks for no room when the body is absent or empty', () => {
    const noRoom = { accountId: 'acme', subAccountId: 'acme_hq', createRoom: false };
    expect(toCreateAgentTokenData(undefined, 'acme')).toEqual(noRoom);
    expect(toCreateAgentTokenData({}, 'acme')).toEqual(noRoom);
    expect(toCreateAgentTokenData({ create_room: false, call_reference: 'call-0001', phone_number: '+447911123456' }, 'acme')).toEqual(noRoom);
    expect(toCreateAgentTokenData({ create_room: null, unknown: 1 }, 'acme')).toEqual(noRoom);
  });

  it('asks for a room with the normalised phone number and the call_reference', () => {
    expect(toCreateAgentTokenData({ create_room: true, call_reference: 'Call_ref-2026', phone_number: '0044 7911 123-456' }, 'acme')).toEqual({
      accountId: 'acme',
      subAccountId: 'acme_hq',
      createRoom: true,
      callReference: 'Call_ref-2026',
      phoneNumber: '+447911123456',
    });
    expect(toCreateAgentTokenData({ create_room: true }, 'acme')).toEqual({ accountId: 'acme', subAccountId: 'acme_hq', createRoom: true });
  });

  it.each([
    ['create_room a string', { create_room: 'true' }, 1000],
    ['create_room a number', { create_room: 1 }, 1000],
    ['call_reference of 7', { create_room: true, call_reference: 'abcdefg' }, 1000],
    ['call_reference of 21', { create_room: true, call_reference: 'a'.repeat(21) }, 1000],
    ['call_reference with a space', { create_room: true, call_reference: 'call ref 01' }, 1000],
    ['call_reference with a dot', { call_reference: 'call.ref.01' }, 1000],
    ['call_reference a number', { call_reference: 12345678 }, 1000],
    ['phone_number not a number', { create_room: true, phone_number: 'not a number' }, 1002],
    ['phone_number too short', { create_room: true, phone_number: '+4412' }, 1002],
    ['phone_number unassigned', { create_room: true, phone_number: '+999123456789' }, 1002],
    ['phone_number national', { create_room: true, phone_number: '07911 123456' }, 1002],
    ['phone_number a number', { phone_number: 447911123456 }, 1002],
    ['an array', [], 1000],
    ['a string', 'hello', 1000],
  ])('refuses %s: 400', (_name, body, code) => {
    expect(refusal(body)).toEqual({ status: 400, code });
  });

  it('reads international numbers as SMS does', () => {
    expect(toE164('+4915123456789')).toBe('+4915123456789');
    expect(toE164('4915123456789')).toBe('+4915123456789');
    expect(toE164('+1 650 253 0000')).toBe('+16502530000');
  });
});
