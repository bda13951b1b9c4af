import { carrierUrlWithoutPassword, parseCarrierUrl } from './carrier-url';
import { RoutingConfigError } from './routing-config.error';

const refusal = (url: unknown): string => {
  try {
    parseCarrierUrl(url);
  } catch (error) {
    expect(error).toBeInstanceOf(RoutingConfigError);
    expect((error as RoutingConfigError).code).toBe('invalid');
    return (error as Error).message;
  }
  throw new Error(`${String(url)} was accepted`);
};

describe('parseCarrierUrl', () => {
  it('reads smpp:// with its parts, port 2775 when none is given', () => {
    expect(parseCarrierUrl('smpp://seed:secret@smsc.example')).toEqual({ tls: false, host: 'smsc.example', port: 2775, systemId: 'seed', password: 'secret' });
    expect(parseCarrierUrl('smpp://seed:secret@10.0.0.7:2776/')).toEqual({ tls: false, host: '10.0.0.7', port: 2776, systemId: 'seed', password: 'secret' });
  });

  it('reads smpps:// as TLS, with the same default port', () => {
    expect(parseCarrierUrl('smpps://seed:secret@SMSC.Example:3550')).toEqual({ tls: true, host: 'smsc.example', port: 3550, systemId: 'seed', password: 'secret' });
    expect(parseCarrierUrl('smpps://seed:secret@smsc.example').port).toBe(2775);
  });

  it('decodes percent-encoded credentials and keeps IPv6 hosts without brackets', () => {
    expect(parseCarrierUrl('smpp://se%40d:p%3Aw@[::1]:2775')).toEqual({ tls: false, host: '::1', port: 2775, systemId: 'se@d', password: 'p:w' });
  });

  it('gives a null password when the URL carries none (a replace keeps the stored one)', () => {
    expect(parseCarrierUrl('smpp://seed@smsc.example').password).toBeNull();
    expect(parseCarrierUrl('smpp://seed:@smsc.example').password).toBeNull();
  });

  it.each([
    [undefined, 'url is required'],
    ['', 'url is required'],
    ['http://seed:secret@smsc.example', 'must start with smpp:// or smpps://'],
    ['smpp:smsc.example', 'must name a host'],
    ['not a url', 'url must be smpp://'],
    ['smpp://:secret@smsc.example', 'must carry a system_id'],
    ['smpp://seed:secret@smsc.example:99999', 'url must be smpp://'],
    ['smpp://seed:secret@smsc.example:0', 'port must be from 1 to 65535'],
    ['smpp://seed:secret@smsc.example/path', 'no path, query or fragment'],
    ['smpp://seed:secret@smsc.example?x=1', 'no path, query or fragment'],
    ['smpp://sixteen-chars-id:secret@smsc.example', 'system_id must be 1-15'],
    ['smpp://seed:ninechars@smsc.example', 'password must be at most 8'],
    ['smpp://seed:%E0%A4%A@smsc.example', 'not valid percent-encoding'],
    [`smpp://seed:secret@${'a'.repeat(494)}`, 'at most 512 characters'],
  ])('refuses %s', (url, message) => {
    expect(refusal(url)).toContain(message);
  });
});

describe('carrierUrlWithoutPassword', () => {
  it('writes the URL back without its password', () => {
    expect(carrierUrlWithoutPassword({ tls: true, host: 'smsc.example', port: 3550, systemId: 'seed' })).toBe('smpps://seed@smsc.example:3550');
    expect(carrierUrlWithoutPassword({ tls: false, host: '::1', port: 2775, systemId: 'se@d' })).toBe('smpp://se%40d@[::1]:2775');
  });
});
