/**
 * A callback URL the dispatcher accepts as an account default: absolute http(s), with a host, no
 * credentials, at most 2048 characters. Returns what is wrong, or null. (Where it may be sent is
 * decided at each connection, against the address actually connected to.)
 */
export function callbackUrlProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'dlrCallbackUrl must be an absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'dlrCallbackUrl must be an http or https URL';
  if (!url.hostname) return 'dlrCallbackUrl must name a host';
  if (url.username || url.password) return 'dlrCallbackUrl must not carry credentials';
  if (value.length > 2048) return 'dlrCallbackUrl must be at most 2048 characters';
  return null;
}
