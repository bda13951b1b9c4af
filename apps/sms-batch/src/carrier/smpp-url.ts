/** `smpp://system_id:password@host:port`, or `smpps://` for SMPP over TLS (product decisions: one URL configures a carrier). */
export interface SmppEndpoint {
  tls: boolean;
  host: string;
  port: number;
  systemId: string;
  password: string;
}

export function parseSmppUrl(url: string): SmppEndpoint {
  const parsed = new URL(url);
  if (parsed.protocol !== 'smpp:' && parsed.protocol !== 'smpps:') throw new Error('a carrier URL must start with smpp:// or smpps://');
  const systemId = decodeURIComponent(parsed.username);
  if (!systemId) throw new Error('a carrier URL must carry a system_id: smpp://system_id:password@host:port');
  return {
    tls: parsed.protocol === 'smpps:',
    host: parsed.hostname,
    port: parsed.port ? Number(parsed.port) : 2775,
    systemId,
    password: decodeURIComponent(parsed.password),
  };
}

/** The URL of an endpoint, password included: what a session connects with. */
export function smppUrlOf(endpoint: SmppEndpoint): string {
  const scheme = endpoint.tls ? 'smpps' : 'smpp';
  return `${scheme}://${encodeURIComponent(endpoint.systemId)}:${encodeURIComponent(endpoint.password)}@${endpoint.host}:${endpoint.port}`;
}

/** The URL without its password, for logs. */
export function redactSmppUrl(url: string): string {
  const { tls, host, port, systemId } = parseSmppUrl(url);
  return `${tls ? 'smpps' : 'smpp'}://${systemId}@${host}:${port}`;
}
