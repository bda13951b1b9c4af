import { testLogger } from '@seed/platform-testing';
import { OptedOutRecipients } from './opted-out-recipients';

/** The opt-outs read model as the list reads it: rows changed since a position, or a failure. */
function readModel() {
  const rows: { sub_account_id: string; msisdn: string; opted_out: boolean; position: string }[] = [];
  let failing = false;
  const db = {
    query: async (_sql: string, [since]: [string]) => {
      if (failing) throw new Error('connect ECONNREFUSED');
      return rows.filter((r) => BigInt(r.position) > BigInt(since));
    },
  };
  return { db, rows, fail: (value: boolean) => (failing = value) };
}

describe('OptedOutRecipients', () => {
  it('answers from its last read while that is fresh, and "unknown" once no read has succeeded for staleAfterMs (fails closed)', async () => {
    const model = readModel();
    model.rows.push({ sub_account_id: 'acme_hq', msisdn: '447700900123', opted_out: true, position: '1' });
    let now = 0;
    const list = new OptedOutRecipients(model.db, 'sms_batch', testLogger(), 1000, 10_000, () => now);
    expect(list.has('acme_hq', '447700900124')).toBe('unknown'); // never read
    await list.refresh();
    expect(list.has('acme_hq', '447700900123')).toBe(true);
    expect(list.has('acme_hq', '447700900124')).toBe(false);

    model.fail(true);
    now = 9_000;
    await expect(list.refresh()).rejects.toThrow('ECONNREFUSED');
    expect(list.has('acme_hq', '447700900124')).toBe(false);
    now = 10_001;
    await expect(list.refresh()).rejects.toThrow('ECONNREFUSED');
    expect(list.has('acme_hq', '447700900124')).toBe('unknown');
    expect(list.has('acme_hq', '447700900123')).toBe('unknown');

    model.fail(false);
    model.rows.push({ sub_account_id: 'acme_hq', msisdn: '447700900124', opted_out: true, position: '2' });
    await list.refresh();
    expect(list.has('acme_hq', '447700900124')).toBe(true);
  });
});
