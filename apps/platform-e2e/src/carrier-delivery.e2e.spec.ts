import { eventually, type RunningStack } from '@seed/platform-testing';
import type { SmsBatchDb } from './support/database';
import { sendBatch, ukMobile, type Account, type BatchResponse } from './support/http';
import { consumeUntil } from './support/kafka';
import { smsc, type SmscMessage } from './support/smsc';
import { getBatch, messageInState, stateChanges, type MessageView } from './support/sms-read';
import { useStack } from './support/stack';

/** GSM 03.38 default alphabet and extension table (the latter counts double and goes out escaped). */
const GSM_TEXT = 'Price: 5€ [was 7€] {promo} ~^|\\ @£$¥ èéùìò ÄÖÑÜ§ ¿¡ _!';
/** 3 parts: 153 septets per part with the concatenation header; extension characters sit near the splits. */
const LONG_TEXT = `${'Long GSM message, part after part. '.repeat(4)}€${'x'.repeat(150)}{}${'Tail of the long message. '.repeat(5)}[end]`;
const UNICODE_TEXT = 'Привет 👋 ваш код готов — ✓';

const PLAIN = { destination: ukMobile(1001), source: 'SeedAlerts' };
const LONG = { destination: ukMobile(1002), source: '+447700900123' };
const UNICODE = { destination: ukMobile(1003), source: '12345' };

/** A batch sent through the stack, looked at where it ends: the SMSC simulator, the read API, the read model, the public topic. */
describe('carrier delivery over SMPP', () => {
  const ctx = useStack();
  let stack: RunningStack;
  let db: SmsBatchDb;
  let account: Account;
  let batch: BatchResponse;
  const umid = (i: number) => batch.messages?.[i]?.umid as string;
  const delivered: MessageView[] = [];
  const atSmsc: SmscMessage[] = [];

  beforeAll(async () => {
    ({ stack, db } = ctx);
    account = await stack.createAccount();
    batch = await sendBatch(stack, account, {
      includeMessagesInResponse: true,
      messages: [
        { ...PLAIN, destination: `+${PLAIN.destination}`, text: GSM_TEXT },
        { ...LONG, text: LONG_TEXT },
        { ...UNICODE, text: UNICODE_TEXT },
        { destination: 'not-a-number', text: 'never sent' },
      ],
    });
    expect(batch).toMatchObject({ acceptedCount: 3, rejectedCount: 1 });
    for (const [i, { destination }] of [PLAIN, LONG, UNICODE].entries()) {
      delivered.push(await messageInState(stack, account, umid(i), 'delivered'));
      atSmsc.push(await smsc(stack.smscUrl).only(destination));
    }
  });

  const common = { systemId: 'seed', destTon: 1, destNpi: 1, registeredDelivery: 1, complete: true };

  it('sends a GSM text as data_coding 0 with the exact text, extension characters included; alphanumeric source as TON 5 NPI 0', () => {
    expect(delivered[0]).toMatchObject({ encoding: 'GSM7', smsCount: 1 });
    expect(atSmsc[0]).toMatchObject({ ...common, ...PLAIN, sourceTon: 5, sourceNpi: 0, dataCoding: 0, esmClass: 0, parts: 1, text: GSM_TEXT });
  });

  it('splits a long GSM text into smsCount parts with a UDH that the carrier joins into the exact text; international source as TON 1 NPI 1', () => {
    expect(delivered[1]).toMatchObject({ encoding: 'GSM7', smsCount: 3 });
    expect(atSmsc[1]).toMatchObject({ ...common, destination: LONG.destination, source: '447700900123', sourceTon: 1, sourceNpi: 1 });
    expect(atSmsc[1]).toMatchObject({ dataCoding: 0, esmClass: 0x40, parts: 3, partsReceived: 3, text: LONG_TEXT });
    expect(atSmsc[1]?.messageIds).toHaveLength(3);
  });

  it('sends a Unicode text as data_coding 8 (UCS-2, emoji as a surrogate pair); short code source as TON 3 NPI 0', () => {
    expect(delivered[2]).toMatchObject({ encoding: 'UCS2', smsCount: 1 });
    expect(atSmsc[2]).toMatchObject({ ...common, ...UNICODE, sourceTon: 3, sourceNpi: 0, dataCoding: 8, esmClass: 0, parts: 1, text: UNICODE_TEXT });
  });

  it('shows each message delivered in the message read API, with history queued -> sent (the carrier ids) -> delivered', () => {
    for (const [i, view] of delivered.entries()) {
      expect(view).toMatchObject({ umid: umid(i), batchId: batch.batchId, subAccountId: account.subAccountId });
      expect(view.status).toMatchObject({ state: 'delivered', detail: 'SMS is delivered to the handset', errorCode: null, errorMessage: null });
      expect(stateChanges(view)).toEqual(['queued', 'sent', 'delivered']);
      // The routing decision (SMPP_URL's carrier `default`, by the catch-all) comes just before the hand-off.
      const routed = view.history.filter((h) => h.event === 'MessageRouted');
      expect(routed).toEqual([expect.objectContaining({ state: 'queued', carrierId: 'default', detail: 'routed to carrier default by the catch-all route, attempt 1' })]);
      const sent = view.history.find((h) => h.event === 'MessageSent');
      expect(sent?.carrierMessageIds).toEqual(atSmsc[i]?.messageIds);
      const times = view.history.map((h) => Date.parse(h.timestamp));
      expect(times).toEqual([...times].sort((a, b) => a - b));
    }
    // Receipts of the first two parts changed nothing visible; the last one delivered the message.
    expect(delivered[1]?.history.map((h) => h.event)).toEqual(['MessageQueued', 'MessageRouted', 'MessageSent', 'ReceiptRecorded', 'ReceiptRecorded', 'MessageDelivered']);
  });

  it('acknowledges every receipt to the carrier', async () => {
    for (const { destination } of [PLAIN, LONG, UNICODE]) {
      const [message] = await eventually(async () => {
        const found = await smsc(stack.smscUrl).messages(destination);
        return found[0]?.receipt?.acknowledged ? found : undefined;
      });
      expect(message?.receipt?.state).toBe('DELIVRD');
      expect(message?.receipts.every((r) => r.acknowledged && r.attempts === 1 && !r.abandoned)).toBe(true);
    }
  });

  // The batch counts and the messages table are read models: they follow the log shortly after the
  // message's stream (which the message read API reads) says delivered.
  it('counts the batch per state in the batch read API', async () => {
    const view = await eventually(async () => {
      const read = await getBatch(stack, account, batch.batchId);
      return read.states.delivered === 3 ? read : undefined;
    });
    expect(view).toMatchObject({ batchId: batch.batchId, subAccountId: account.subAccountId, acceptedCount: 3, rejectedCount: 1 });
    expect(view.states).toEqual({ queued: 0, rejected: 1, sent: 0, delivered: 3, undelivered: 0 });
  });

  it('projects the final states into the messages read model', async () => {
    const rows = await eventually(async () => {
      const read = await db.query<{ umid: string; state: string; detail: string; error_code: string | null }>(
        `SELECT umid, state, detail, error_code FROM ${db.table('messages')} WHERE batch_id = $1 ORDER BY message_index`,
        [batch.batchId],
      );
      return read.filter((r) => r.state === 'delivered').length === 3 ? read : undefined;
    });
    expect(rows.map((r) => [r.umid, r.state, r.error_code])).toEqual([
      [umid(0), 'delivered', null],
      [umid(1), 'delivered', null],
      [umid(2), 'delivered', null],
      [umid(3), 'rejected', null],
    ]);
  });

  it('publishes MessageSent and MessageDelivered for each message on the public topic, in stream order', async () => {
    const umids = [0, 1, 2].map(umid);
    const keys = new Set(umids.map((u) => `sms-message-${u}`));
    const records = await consumeUntil(
      `${stack.topicPrefix}sms-batch.events.v1`,
      (all) => all.filter((r) => keys.has(r.key ?? '') && r.value['type'] === 'MessageDelivered').length === 3,
    );
    for (const [i, u] of umids.entries()) {
      const stream = records.filter((r) => r.key === `sms-message-${u}`).map((r) => r.value);
      expect(stream.map((e) => e['streamPosition'])).toEqual(stream.map((_, n) => n + 1));
      const types = stream.map((e) => e['type']).filter((t) => t !== 'ReceiptRecorded');
      expect(types).toEqual(['MessageQueued', 'MessageRouted', 'MessageSent', 'MessageDelivered']);
      const sent = stream.find((e) => e['type'] === 'MessageSent')?.['data'];
      expect(sent).toMatchObject({ umid: u, batchId: batch.batchId, carrierMessageIds: atSmsc[i]?.messageIds, smsCount: delivered[i]?.smsCount });
      const done = stream.find((e) => e['type'] === 'MessageDelivered')?.['data'] as { receipts: { carrierMessageId: string; stat: string }[] };
      expect(done.receipts.map((r) => [r.carrierMessageId, r.stat])).toEqual(atSmsc[i]?.messageIds.map((id) => [id, 'DELIVRD']));
    }
  });
});
