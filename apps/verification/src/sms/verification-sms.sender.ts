import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { CommandMessage, CommandReply } from '@seed/contracts';
import type { EventHandler, SqlExecutor, StoredEvent } from '@seed/platform-event-store';
import type { CommandBus } from '@seed/platform-kafka';
import { SpanKind, spansFor } from '@seed/platform-telemetry';
import {
  SMS_BATCH_SERVICE_COMMAND_TOPIC,
  type BatchResponse,
  type SubmitBatchData,
  type SubmitBatchesData,
  type SubmitBatchesItem,
  type SubmitBatchesResult,
} from '@seed/sms-batch-contracts';
import type { VerificationResentV1, VerificationStartedV1 } from '@seed/verification-contracts';
import { decideVerification, evolveVerification } from '@seed/verification-domain';
import type { VerificationAppend, VerificationStore } from '../verifications/verification-store';

/** sms-batch keeps the first answer per clientBatchId of a sub-account: a repeated send sends nothing new. */
export const smsClientBatchId = (uid: string, sendNumber: number): string => `verify-${uid}-${sendNumber}`;

type Outcome = { batchId: string; umid: string } | { description: string };

interface DueSend {
  event: StoredEvent;
  uid: string;
  sendNumber: number;
  started: VerificationStartedV1;
}

/** SMS per SubmitBatches command: a pass's SMS go in as few commands as this allows, concurrently. */
const SENDS_PER_COMMAND = 100;

/**
 * Follows the log and sends the SMS of every VerificationStarted and VerificationResent through
 * sms-batch (under the verification's own sub-account), then records its umid
 * (VerificationSmsQueued) or refusal (VerificationSmsRejected) in the transaction that advances
 * its checkpoint. A crash in between repeats the send with the same clientBatchId, which sms-batch
 * answers with the first batch: the number gets one SMS. The SMS of a batch of events go out in
 * one `SubmitBatches` command (each its own batch of one, up to 100 a command): one request, one
 * sms-batch transaction and one reply for a follower's pass, not one per SMS. The real text travels
 * sealed, sms-batch shows the redacted one.
 */
export class VerificationSmsSender implements EventHandler {
  readonly name = 'verification-sms';
  readonly types = ['VerificationStarted', 'VerificationResent'];

  constructor(
    private readonly verifications: VerificationStore,
    private readonly bus: CommandBus,
    private readonly logger: Logger,
  ) {}

  async handle(events: readonly StoredEvent[], db: SqlExecutor): Promise<void> {
    const due = await this.dueSends(events, db);
    const chunks = Array.from({ length: Math.ceil(due.length / SENDS_PER_COMMAND) }, (_, i) => due.slice(i * SENDS_PER_COMMAND, (i + 1) * SENDS_PER_COMMAND));
    const outcomes = (await Promise.all(chunks.map((chunk) => this.send(chunk)))).flat();
    await this.record(due, outcomes, db);
  }

  /**
   * Records each SMS's outcome on its verification in three statements: the streams' locks, their
   * events, one append (each event with its own request's correlation and trace). A verification
   * with two sends in the pass (a first SMS and a resend, after a stop) gets its second outcome in
   * a second append: one append cannot carry two expected versions of a stream.
   */
  private async record(due: readonly DueSend[], outcomes: readonly Outcome[], db: SqlExecutor): Promise<void> {
    const uids = [...new Set(due.map((send) => send.uid))];
    await this.verifications.lockAll(db, uids);
    const streams = await this.verifications.loadAll(db, uids);
    const occurredAt = new Date().toISOString();
    const rounds: VerificationAppend[][] = [];
    const seen = new Map<string, number>();
    for (const [i, send] of due.entries()) {
      const stream = streams.get(send.uid);
      if (!stream) throw new Error(`verification ${send.uid} was not loaded`);
      const events = decideVerification({ type: 'RecordSms', sendNumber: send.sendNumber, outcome: outcomes[i] as Outcome }, stream.state);
      const round = seen.get(send.uid) ?? 0;
      seen.set(send.uid, round + 1);
      (rounds[round] ??= []).push({
        uid: send.uid,
        expectedVersion: stream.version,
        events,
        metadata: { correlationId: send.event.correlationId, causationId: send.event.eventId, traceparent: send.event.traceparent, occurredAt },
      });
      streams.set(send.uid, { ...stream, state: events.reduce(evolveVerification, stream.state), version: stream.version + events.length });
    }
    for (const round of rounds) await this.verifications.appendAll(db, round);
  }

  /**
   * What to send for these events. A first SMS needs nothing but its event; a resend needs its
   * verification's first event, and is skipped when its outcome is recorded already (after a
   * crash). A first SMS sent again after a crash is answered by sms-batch from its clientBatchId.
   */
  private async dueSends(events: readonly StoredEvent[], db: SqlExecutor): Promise<DueSend[]> {
    const sends: DueSend[] = [];
    for (const event of events) {
      if (event.type === 'VerificationStarted') {
        const started = event.data as VerificationStartedV1;
        sends.push({ event, uid: started.uid, sendNumber: 1, started });
        continue;
      }
      const { uid, sendNumber } = event.data as VerificationResentV1;
      const { state } = await this.verifications.load(db, uid);
      if (state.status !== 'NEW' && !state.smsRecorded.includes(sendNumber)) sends.push({ event, uid, sendNumber, started: state.started });
    }
    return sends;
  }

  /** Sends the SMS of these sends in one command; the outcome of each, in order. */
  private async send(sends: readonly DueSend[]): Promise<Outcome[]> {
    const first = sends[0];
    if (!first) return [];
    // Each SMS's request, in its own trace (what a SubmitBatch of it would have been); its events in
    // sms-batch carry its own request's correlation and trace on.
    const spans = spansFor('SubmitBatch send', SpanKind.PRODUCER, sends.map((send) => send.event.traceparent ?? null), {
      'messaging.system': 'kafka',
      'messaging.destination.name': SMS_BATCH_SERVICE_COMMAND_TOPIC,
      'messaging.operation': 'send',
    });
    const batches = sends.map(({ uid, sendNumber, started, event }, i): SubmitBatchesItem => {
      const batch: SubmitBatchData = {
        accountId: started.accountId,
        subAccountId: started.subAccountId,
        clientBatchId: smsClientBatchId(uid, sendNumber),
        includeMessagesInResponse: true,
        messages: [
          {
            destination: started.msisdn,
            text: started.redactedText,
            sealedText: started.sealedText,
            ...(started.source !== null ? { source: started.source } : {}),
          },
        ],
      };
      return { batch, correlationId: event.correlationId, traceparent: spans.traceparents[i] ?? null };
    });
    const command: CommandMessage<SubmitBatchesData> = { commandId: randomUUID(), type: 'SubmitBatches', issuedAt: new Date().toISOString(), data: { batches } };
    // Keyed by the first SMS's sub-account, as a SubmitBatch of it would be: sms-batch decides
    // each batch on its own whichever partition the command is on. The command's own round trip
    // is in no request's trace; each SMS's is (the spans above).
    let reply: CommandReply<SubmitBatchesResult>;
    try {
      reply = await this.bus.request<SubmitBatchesResult>(SMS_BATCH_SERVICE_COMMAND_TOPIC, first.started.subAccountId, command, first.event.correlationId, null);
    } catch (error) {
      spans.end(error);
      throw error;
    }
    spans.end(reply.ok ? undefined : new Error(reply.failure.message));
    if (!reply.ok) {
      // Unavailable, or refused as a whole (no batch decided): throwing rolls back, and the same
      // events come again.
      throw new Error(`verification SMS not accepted (${sends.length} in one command): ${reply.failure.status} ${reply.failure.message}`);
    }
    return sends.map((send, i) => this.outcomeOf(send, reply.result.results[i]));
  }

  private outcomeOf(send: DueSend, reply: CommandReply<BatchResponse> | undefined): Outcome {
    if (!reply) throw new Error(`sms-batch answered without the verification SMS ${send.uid}/${send.sendNumber}`);
    if (!reply.ok) {
      // A refusal of the batch itself (4xx) comes back the same however often it is sent: record
      // it, so the SMS behind it are not held up. Unavailable (5xx): throwing rolls back, and the
      // same events come again.
      if (reply.failure.status >= 400 && reply.failure.status < 500) {
        this.logger.error({ uid: send.uid, sendNumber: send.sendNumber, failure: reply.failure }, 'verification SMS refused by sms-batch');
        return { description: reply.failure.message };
      }
      throw new Error(`verification SMS ${send.uid}/${send.sendNumber} not accepted: ${reply.failure.status} ${reply.failure.message}`);
    }
    const message = reply.result.messages?.[0];
    if (!message) throw new Error(`sms-batch answered the verification SMS ${send.uid}/${send.sendNumber} without its message`);
    if (message.status.code === 'REJECTED') {
      this.logger.warn({ uid: send.uid, sendNumber: send.sendNumber, description: message.status.description }, 'verification SMS rejected by sms-batch');
      return { description: message.status.description };
    }
    return { batchId: reply.result.batchId, umid: message.umid };
  }
}
