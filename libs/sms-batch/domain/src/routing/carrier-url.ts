import { RoutingConfigError } from './routing-config.error';

/*
 * A carrier is configured by one URL, as `SMPP_URL` configures the single carrier of before:
 * `smpp://system_id:password@host:port`, or `smpps://` for SMPP over TLS. The password is split off
 * here so that the handler can seal it before anything is decided or stored.
 */

/** Where and as whom to bind: everything of a carrier URL but its password. */
export interface CarrierEndpoint {
  tls: boolean;
  host: string;
  port: number;
  systemId: string;
}

export interface ParsedCarrierUrl extends CarrierEndpoint {
  /** null when the URL carries none (a replace keeps the stored one). */
  password: string | null;
}

/** The IANA port of SMPP; carriers that offer TLS state their port, there is no common one. */
export const DEFAULT_SMPP_PORT = 2775;
/** SMPP 3.4 (5.2.1, 5.2.2): system_id is a C-Octet String of at most 16 octets, password of at most 9, both with their NUL. */
const MAX_SYSTEM_ID = 15;
const MAX_PASSWORD = 8;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const SHAPE = 'smpp://system_id:password@host:port or smpps://system_id:password@host:port';

export function parseCarrierUrl(url: unknown): ParsedCarrierUrl {
  if (typeof url !== 'string' || url.length === 0) throw invalid(`url is required: ${SHAPE}`);
  if (url.length > 512) throw invalid('url must be at most 512 characters');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid(`url must be ${SHAPE}`);
  }
  if (parsed.protocol !== 'smpp:' && parsed.protocol !== 'smpps:') throw invalid(`url must start with smpp:// or smpps://, as in ${SHAPE}`);
  // Host names compare without case; an IPv6 address is kept without its brackets, as sockets take it.
  const host = parsed.hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (host === '') throw invalid(`url must name a host: ${SHAPE}`);
  if ((parsed.pathname !== '' && parsed.pathname !== '/') || parsed.search !== '' || parsed.hash !== '') {
    throw invalid(`url must have no path, query or fragment: ${SHAPE}`);
  }
  const systemId = decoded(parsed.username, 'system_id');
  if (systemId === '') throw invalid(`url must carry a system_id: ${SHAPE}`);
  if (systemId.length > MAX_SYSTEM_ID || !PRINTABLE_ASCII.test(systemId)) throw invalid(`the system_id must be 1-${MAX_SYSTEM_ID} printable ASCII characters (SMPP 3.4)`);
  const password = decoded(parsed.password, 'password');
  if (password.length > MAX_PASSWORD || !PRINTABLE_ASCII.test(password)) throw invalid(`the password must be at most ${MAX_PASSWORD} printable ASCII characters (SMPP 3.4)`);
  return {
    tls: parsed.protocol === 'smpps:',
    host,
    // `URL` has already refused ports above 65535; port 0 cannot be connected to.
    port: parsed.port === '' ? DEFAULT_SMPP_PORT : positivePort(Number(parsed.port)),
    systemId,
    password: password === '' ? null : password,
  };
}

/** The URL as the API shows it and logs may print it: everything but the password. */
export function carrierUrlWithoutPassword(endpoint: CarrierEndpoint): string {
  const host = endpoint.host.includes(':') ? `[${endpoint.host}]` : endpoint.host;
  return `${endpoint.tls ? 'smpps' : 'smpp'}://${encodeURIComponent(endpoint.systemId)}@${host}:${endpoint.port}`;
}

function decoded(part: string, name: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw invalid(`the ${name} of the url is not valid percent-encoding`);
  }
}

function positivePort(port: number): number {
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw invalid('the port must be from 1 to 65535');
  return port;
}

const invalid = (message: string) => new RoutingConfigError('invalid', message);
