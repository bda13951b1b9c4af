import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * `X-Seed-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>]`: HMAC-SHA256 over `<t>.<body>` with each
 * secret that is valid now (the current one first; during a rotation's overlap the replaced ones
 * too), as Stripe does, so a receiver still holding the old secret keeps verifying.
 */
export function signatureHeader(secrets: readonly string[], unixSeconds: number, body: string): string {
  return [`t=${unixSeconds}`, ...secrets.map((secret) => `v1=${sign(secret, unixSeconds, body)}`)].join(',');
}

export function sign(secret: string, unixSeconds: number, body: string): string {
  return createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
}

/** What a receiver does: some v1 matches with its secret, and t is recent (replay window). */
export function verifySignature(header: string, body: string, secret: string, nowSeconds: number, toleranceSeconds = 300): boolean {
  const parts = header.split(',').map((p) => p.split('=', 2) as [string, string?]);
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > toleranceSeconds) return false;
  const expected = Buffer.from(sign(secret, t, body), 'hex');
  return parts
    .filter(([k, v]) => k === 'v1' && v !== undefined && /^[0-9a-f]{64}$/.test(v))
    .some(([, v]) => timingSafeEqual(Buffer.from(v as string, 'hex'), expected));
}
