import { lookup as dnsLookup } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { refusalOfAddress } from '@seed/webhook-dispatcher-domain';

/** The target resolves to (or is) an address webhooks may not go to: no request is made. */
export class TargetRefusedError extends Error {
  override readonly name = 'TargetRefusedError';
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );

/**
 * A `lookup` for http(s).request: resolves the name itself, refuses it if ANY address is refused
 * (a name with one public and one private address could otherwise be steered to the private one),
 * and hands the socket only addresses it checked. The socket connects to what this returns, so
 * there is no gap between check and connect for DNS rebinding to use.
 */
export function guardedLookup(resolver: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    resolver(hostname)
      .then((addresses) => {
        if (addresses.length === 0) throw Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' });
        for (const a of addresses) {
          const refusal = refusalOfAddress(a.address);
          if (refusal) throw new TargetRefusedError(`${hostname} resolves to ${refusal}`);
        }
        const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
        const usable = wanted.length > 0 ? wanted : addresses;
        if (options.all) {
          (callback as unknown as (e: Error | null, a: ResolvedAddress[]) => void)(null, usable);
        } else {
          const first = usable[0] as ResolvedAddress;
          callback(null, first.address, first.family);
        }
      })
      .catch((error: NodeJS.ErrnoException) => callback(error, '', 0));
  };
}
