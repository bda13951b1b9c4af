import 'reflect-metadata';
import { ApiError } from '../http/api-error';
import { validateBody } from '../http/validate-body';
import { carrierInput, knownId, putId, routeInput } from './routing-commands';
import { PutCarrierDto, PutRouteDto } from './routing.dto';

const refusal = (work: () => unknown): { status: number; code: number; message: string } => {
  try {
    work();
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { status: error.status, code: error.code, message: error.message };
  }
  throw new Error('accepted');
};

describe('PUT /admin/v1/carriers/{carrierId} body', () => {
  it('fills in the defaults of every omitted or null field', () => {
    expect(carrierInput(validateBody(PutCarrierDto, { url: 'smpp://seed:pw@smsc.example', maxPerSecond: null, source: null }))).toEqual({
      url: 'smpp://seed:pw@smsc.example',
      binds: 1,
      window: 100,
      maxPerSecond: null,
      systemType: null,
      source: { ton: null, npi: null },
      destination: { ton: null, npi: null },
      enabled: true,
      rerouteOnErrors: [],
    });
    expect(carrierInput(validateBody(PutCarrierDto, {}))).toMatchObject({ url: null });
  });

  it('passes given values on', () => {
    const body = {
      url: 'smpps://seed:pw@smsc.example:3550',
      binds: 64,
      window: 1000,
      maxPerSecond: 100_000,
      systemType: 'VMA',
      source: { ton: 5, npi: 0 },
      destination: { ton: 1, npi: 1 },
      enabled: false,
      rerouteOnErrors: ['0x0000000b'],
    };
    expect(carrierInput(validateBody(PutCarrierDto, body))).toEqual(body);
  });

  it.each<[string, unknown, string]>([
    ['binds 0', { binds: 0 }, 'binds must be an integer from 1 to 64'],
    ['binds "2"', { binds: '2' }, 'binds must be an integer from 1 to 64'],
    ['window 1001', { window: 1001 }, 'window must be an integer from 1 to 1000'],
    ['maxPerSecond 0', { maxPerSecond: 0 }, 'maxPerSecond must be an integer from 1 to 100000, or null'],
    ['a nested TON out of range', { source: { ton: 7 } }, 'source.ton must be an integer from 0 to 6, or null'],
    ['source not an object', { source: 'international' }, 'source must be an object {ton, npi}'],
    ['a systemType of 13 characters', { systemType: 'abcdefghijklm' }, 'systemType must be at most 12'],
    ['an error code 0x00000000', { rerouteOnErrors: ['0x00000000'] }, 'rerouteOnErrors must hold SMPP command_status values'],
    ['url a number', { url: 7 }, 'url must be a string'],
    ['enabled "no"', { enabled: 'no' }, 'enabled must be a boolean value'],
  ])('refuses %s with 400, code 1000', (_name, body, message) => {
    expect(refusal(() => validateBody(PutCarrierDto, body))).toEqual({ status: 400, code: 1000, message: expect.stringContaining(message) });
  });
});

describe('PUT /admin/v1/routes/{routeId} body', () => {
  it('fills in the defaults: position 0, failover, empty match lists, weight 1, no price', () => {
    expect(routeInput(validateBody(PutRouteDto, { carriers: [{ carrierId: 'a' }, { carrierId: 'b', weight: null }] }))).toEqual({
      position: 0,
      match: { prefixes: [], countries: [], accountIds: [], subAccountIds: [] },
      mode: 'failover',
      carriers: [
        { carrierId: 'a', weight: 1 },
        { carrierId: 'b', weight: 1 },
      ],
      price: null,
    });
  });

  it('passes given values on', () => {
    const body = {
      position: -5,
      match: { prefixes: ['44'], countries: ['gb'], accountIds: ['acme'], subAccountIds: ['acme_eu'] },
      mode: 'weighted',
      carriers: [{ carrierId: 'a', weight: 70 }, { carrierId: 'b', weight: 30 }],
      price: { amount: '0.0125', currency: 'EUR' },
    };
    expect(routeInput(validateBody(PutRouteDto, body))).toEqual(body);
  });

  it.each<[string, unknown, string]>([
    ['no carriers field', {}, 'carriers must be a non-empty array'],
    ['an empty carriers list', { carriers: [] }, 'carriers must name at least one carrier'],
    ['a carrier id with capitals', { carriers: [{ carrierId: 'A' }] }, 'carriers.0.carrierId must be a carrier id'],
    ['a carrier that is a string', { carriers: ['a'] }, 'carriers must hold objects {carrierId, weight}'],
    ['weight 0', { carriers: [{ carrierId: 'a', weight: 0 }] }, 'carriers.0.weight must be an integer from 1 to 1000000'],
    ['mode round-robin', { mode: 'round-robin', carriers: [{ carrierId: 'a' }] }, 'mode must be failover or weighted'],
    ['position 1.5', { position: 1.5, carriers: [{ carrierId: 'a' }] }, 'position must be an integer from -1000000 to 1000000'],
    ['a prefix with +', { match: { prefixes: ['+44'] }, carriers: [{ carrierId: 'a' }] }, 'match.prefixes must hold E.164 digit prefixes'],
    ['a country of three letters', { match: { countries: ['GBR'] }, carriers: [{ carrierId: 'a' }] }, 'match.countries must hold ISO 3166-1 alpha-2'],
    ['a price with a comma', { price: { amount: '0,01', currency: 'EUR' }, carriers: [{ carrierId: 'a' }] }, 'price.amount must be a decimal string'],
    ['a currency in lower case', { price: { amount: '0.01', currency: 'eur' }, carriers: [{ carrierId: 'a' }] }, 'price.currency must be an ISO 4217 code'],
  ])('refuses %s with 400, code 1000', (_name, body, message) => {
    expect(refusal(() => validateBody(PutRouteDto, body))).toEqual({ status: 400, code: 1000, message: expect.stringContaining(message) });
  });
});

describe('path ids', () => {
  it('a PUT of an id that could never be stored is a 400; a read or removal of one is a 404', () => {
    expect(putId('carrier-a', 'carrierId')).toBe('carrier-a');
    expect(refusal(() => putId('Carrier_A', 'carrierId'))).toMatchObject({ status: 400, code: 1000 });
    expect(refusal(() => knownId('a\u0000', 'route'))).toMatchObject({ status: 404, code: 1300 });
  });
});
