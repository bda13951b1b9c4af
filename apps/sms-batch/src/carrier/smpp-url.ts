/** `smpp://system_id:password@host:port` (product decision: one URL configures the carrier). */
export interface SmppEndpoint {
  host: string;
  port: number;
  systemId: string;
  password: string;
}

export function parseSmppUrl(url: string): SmppEndpoint {
  const parsed = new URL(url);
  if (parsed.protocol !== 'smpp:') throw new Error('SMPP_URL must start with smpp://');
  const systemId = decodeURIComponent(parsed.username);
  if (!systemId) throw new Error('SMPP_URL must carry a system_id: smpp://system_id:password@host:port');
  return {
    host: parsed.hostname,
    port: parsed.port ? Number(parsed.port) : 2775,
    systemId,
    password: decodeURIComponent(parsed.password),
  };
}

/** The URL without its password, for logs. */
export function redactSmppUrl(url: string): string {
  const { host, port, systemId } = parseSmppUrl(url);
  return `smpp://${systemId}@${host}:${port}`;
}
