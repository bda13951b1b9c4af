import { callbackUrlProblem, isAllowedHost, isIpLiteral, parseAllowedHosts, refusalOfAddress } from './target-policy';

describe('addresses a webhook may be sent to', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fe80::1%eth0', 'linkLocal'],
    ['fd00:ec2::254', 'uniqueLocal'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['::ffff:a00:1', 'private'],
    ['2002:7f00:1::', '6to4'],
    ['64:ff9b::a00:1', 'rfc6052'],
    ['2001::1', 'teredo'],
    ['ff02::1', 'multicast'],
    ['::7f00:1', 'ipv4Compatible'],
    ['::a9fe:a9fe', 'ipv4Compatible'],
  ])('refuses %s (%s)', (address, range) => {
    expect(refusalOfAddress(address)).toContain(range);
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8'])('allows the public address %s', (address) => {
    expect(refusalOfAddress(address)).toBeNull();
  });

  it('refuses what is not an address', () => {
    expect(refusalOfAddress('example.com')).toMatch(/not an IP address/);
  });

  it('tells literals from names', () => {
    expect(isIpLiteral('[::1]')).toBe(true);
    expect(isIpLiteral('10.0.0.1')).toBe(true);
    expect(isIpLiteral('hooks.example.com')).toBe(false);
  });
});

describe('WEBHOOK_ALLOWED_HOSTS', () => {
  const allowed = parseAllowedHosts(' 127.0.0.1, Hooks.Internal:8443,[::1]:9000 ,localhost');

  it('parses host[:port] entries, IPv6 in brackets', () => {
    expect(allowed).toEqual([
      { host: '127.0.0.1', port: null },
      { host: 'hooks.internal', port: 8443 },
      { host: '::1', port: 9000 },
      { host: 'localhost', port: null },
    ]);
    expect(parseAllowedHosts('')).toEqual([]);
  });

  it('matches host names case-insensitively and ports when given', () => {
    expect(isAllowedHost(allowed, '127.0.0.1', 1234)).toBe(true);
    expect(isAllowedHost(allowed, 'HOOKS.internal', 8443)).toBe(true);
    expect(isAllowedHost(allowed, 'hooks.internal', 443)).toBe(false);
    expect(isAllowedHost(allowed, '[::1]', 9000)).toBe(true);
    expect(isAllowedHost(allowed, '[0:0::1]', 9000)).toBe(true);
    expect(isAllowedHost(allowed, '[::1]', 9001)).toBe(false);
    expect(isAllowedHost(allowed, '127.0.0.2', 80)).toBe(false);
  });

  it.each(['a:b:c', 'host:0', 'host:99999', '[::1', 'host:'])('rejects the malformed entry %s', (entry) => {
    expect(() => parseAllowedHosts(entry)).toThrow();
  });
});

describe('callback URLs', () => {
  it('accepts absolute http and https URLs', () => {
    expect(callbackUrlProblem('https://hooks.example.com/dlr?x=1')).toBeNull();
    expect(callbackUrlProblem('http://10.0.0.1:8080/')).toBeNull();
  });
  it.each(['ftp://example.com/', 'javascript:alert(1)', '/relative', 'not a url', 'https://user:pw@example.com/', 'file:///etc/passwd'])(
    'refuses %s',
    (url) => {
      expect(callbackUrlProblem(url)).not.toBeNull();
    },
  );
});
