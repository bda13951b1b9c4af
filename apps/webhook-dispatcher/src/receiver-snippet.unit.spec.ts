import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { signatureHeader } from '@seed/webhook-dispatcher-domain';

/**
 * The receiver's verification docs/webhooks.md shows customers, run as written: it must accept what the
 * dispatcher signs and refuse (not throw on) anything forged, since receivers copy it verbatim.
 */
type Verify = (secret: string, header: unknown, rawBody: string) => boolean;

function readmeVerify(): Verify {
  const guide = readFileSync(join(__dirname, '../../../docs/webhooks.md'), 'utf8');
  const snippet = /A receiver in Node:\s*```js\n([\s\S]*?)```/.exec(guide)?.[1];
  if (!snippet) throw new Error('docs/webhooks.md has no receiver snippet');
  return runInNewContext(`${snippet}\nverify`, { require, Buffer, Date }) as Verify;
}

describe('the receiver snippet of docs/webhooks.md', () => {
  const verify = readmeVerify();
  const body = '{"namespace":"SMS","eventType":"outbound_message_status_changed"}';
  const now = () => Math.floor(Date.now() / 1000);

  it('accepts a request the dispatcher signed, with the current or the previous secret', () => {
    const header = signatureHeader(['whsec_new', 'whsec_old'], now(), body);
    expect(verify('whsec_new', header, body)).toBe(true);
    expect(verify('whsec_old', header, body)).toBe(true);
  });

  it('refuses another secret, another body and an old timestamp', () => {
    expect(verify('whsec_other', signatureHeader(['whsec_new'], now(), body), body)).toBe(false);
    expect(verify('whsec_new', signatureHeader(['whsec_new'], now(), body), `${body} `)).toBe(false);
    expect(verify('whsec_new', signatureHeader(['whsec_new'], now() - 3600, body), body)).toBe(false);
  });

  it.each([
    ['a v1 of 64 characters that are not hex', () => `t=${now()},v1=${'z'.repeat(64)}`],
    ['a v1 of odd hex', () => `t=${now()},v1=${'a'.repeat(63)}g`],
    ['no header', () => undefined],
    ['an empty header', () => ''],
  ])('refuses %s without throwing', (_, header) => {
    expect(() => verify('whsec_new', header(), body)).not.toThrow();
    expect(verify('whsec_new', header(), body)).toBe(false);
  });
});
