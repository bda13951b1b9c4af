import { createHmac } from 'node:crypto';
import { decideAccountWebhook, evolveAccountWebhook, initialAccountWebhookState, signingSecretsAt, type AccountWebhookEvent } from './account-webhook.decider';
import { signatureHeader, verifySignature } from './signature';

describe('webhook signature', () => {
  const body = '{"namespace":"SMS"}';

  it('is HMAC-SHA256 over "<t>.<body>", one v1 per secret', () => {
    const header = signatureHeader(['new-secret', 'old-secret'], 1_900_000_000, body);
    const expected = (s: string) => createHmac('sha256', s).update(`1900000000.${body}`).digest('hex');
    expect(header).toBe(`t=1900000000,v1=${expected('new-secret')},v1=${expected('old-secret')}`);
  });

  it('verifies with either secret, within the tolerance, and not for another body', () => {
    const header = signatureHeader(['new-secret', 'old-secret'], 1000, body);
    expect(verifySignature(header, body, 'old-secret', 1010)).toBe(true);
    expect(verifySignature(header, body, 'new-secret', 1010)).toBe(true);
    expect(verifySignature(header, body, 'other', 1010)).toBe(false);
    expect(verifySignature(header, `${body} `, 'new-secret', 1010)).toBe(false);
    expect(verifySignature(header, body, 'new-secret', 2000)).toBe(false);
    expect(verifySignature('v1=zz', body, 'new-secret', 1000)).toBe(false);
  });
});

describe('account webhook decider', () => {
  const T0 = '2030-01-15T10:00:00.000Z';
  const fold = (events: AccountWebhookEvent[]) => events.reduce(evolveAccountWebhook, initialAccountWebhookState());

  it('setting the URL issues the first secret; setting it again keeps the secret', () => {
    const first = decideAccountWebhook({ type: 'SetWebhook', accountId: 'acme', dlrCallbackUrl: 'https://a/', newSealedSecret: 's1', at: T0 }, fold([]));
    expect(first.map((e) => e.type)).toEqual(['AccountWebhookSet', 'SigningSecretIssued']);
    const again = decideAccountWebhook({ type: 'SetWebhook', accountId: 'acme', dlrCallbackUrl: 'https://b/', newSealedSecret: 's2', at: T0 }, fold(first));
    expect(again).toEqual([{ type: 'AccountWebhookSet', schemaVersion: 1, data: { accountId: 'acme', dlrCallbackUrl: 'https://b/', setAt: T0 } }]);
    expect(decideAccountWebhook({ type: 'SetWebhook', accountId: 'acme', dlrCallbackUrl: 'https://a/', newSealedSecret: 's2', at: T0 }, fold(first))).toEqual([]);
  });

  it('a rotation keeps the previous secret signing during the overlap', () => {
    const first = decideAccountWebhook({ type: 'EnsureSecret', accountId: 'acme', newSealedSecret: 's1', at: T0 }, fold([]));
    const rotated = decideAccountWebhook({ type: 'RotateSecret', accountId: 'acme', newSealedSecret: 's2', overlapMs: 3600_000, at: T0 }, fold(first));
    expect(rotated[0]).toMatchObject({ data: { sealedSecret: 's2', reason: 'rotation', previousValidUntil: '2030-01-15T11:00:00.000Z' } });
    const state = fold([...first, ...rotated]);
    expect(signingSecretsAt(state, Date.parse(T0) + 1000)).toEqual(['s2', 's1']);
    expect(signingSecretsAt(state, Date.parse(T0) + 3600_000)).toEqual(['s2']);
    expect(decideAccountWebhook({ type: 'EnsureSecret', accountId: 'acme', newSealedSecret: 's3', at: T0 }, state)).toEqual([]);
  });

  it('a first rotation has nothing to overlap', () => {
    const rotated = decideAccountWebhook({ type: 'RotateSecret', accountId: 'acme', newSealedSecret: 's1', overlapMs: 1000, at: T0 }, fold([]));
    expect(rotated[0]).toMatchObject({ data: { previousValidUntil: null } });
    expect(signingSecretsAt(fold(rotated), Date.parse(T0))).toEqual(['s1']);
  });

  it('a second rotation within the overlap keeps the first replaced secret signing until its own end', () => {
    const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();
    const rotate = (secret: string, ms: number, state: ReturnType<typeof fold>) =>
      decideAccountWebhook({ type: 'RotateSecret', accountId: 'acme', newSealedSecret: secret, overlapMs: 3600_000, at: at(ms) }, state);
    const first = decideAccountWebhook({ type: 'EnsureSecret', accountId: 'acme', newSealedSecret: 's1', at: T0 }, fold([]));
    const second = rotate('s2', 0, fold(first));
    const third = rotate('s3', 600_000, fold([...first, ...second])); // 10 min later: s1 still has 50 min
    const state = fold([...first, ...second, ...third]);
    expect(signingSecretsAt(state, Date.parse(at(600_001)))).toEqual(['s3', 's2', 's1']);
    expect(signingSecretsAt(state, Date.parse(at(3600_000)))).toEqual(['s3', 's2']); // s1's overlap ended
    expect(signingSecretsAt(state, Date.parse(at(4200_000)))).toEqual(['s3']);
    // Secrets whose overlap ended are forgotten at the next rotation.
    expect(fold([...first, ...second, ...third, ...rotate('s4', 4200_000, state)]).previousSecrets.map((p) => p.sealedSecret)).toEqual(['s3']);
  });
});
