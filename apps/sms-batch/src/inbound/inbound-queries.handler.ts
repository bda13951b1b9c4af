import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { DataSource } from 'typeorm';
import type { CommandReply } from '@seed/contracts';
import { quoteSchema } from '@seed/platform-event-store';
import { ServiceSchema } from '@seed/platform-nest';
import type { InboundMessageView, InboundPage, ListInboundQuery } from '@seed/sms-batch-contracts';

interface Row {
  umid: string;
  source: string;
  destination: string;
  body: string;
  encoding: InboundMessageView['encoding'];
  sms_count: number;
  incomplete: boolean;
  received_at: Date;
  global_position: string;
}

/**
 * A sub-account's inbound messages, newest first. The cursor is the log position of the last one
 * shown, so a page never repeats or skips one that arrives meanwhile.
 */
@Controller()
export class InboundQueriesHandler {
  constructor(
    private readonly dataSource: DataSource,
    private readonly schema: ServiceSchema,
  ) {}

  @MessagePattern('ListInbound')
  async listInbound(@Payload() query: ListInboundQuery): Promise<CommandReply<InboundPage>> {
    const { subAccountId, since, before, limit } = query.data;
    const rows = (await this.dataSource.query(
      `SELECT umid, source, destination, body, encoding, sms_count, incomplete, received_at, global_position::text AS global_position
         FROM ${quoteSchema(this.schema.name)}.inbound_messages
        WHERE sub_account_id = $1 AND ($2::timestamptz IS NULL OR received_at >= $2) AND ($3::bigint IS NULL OR global_position < $3)
        ORDER BY global_position DESC LIMIT $4`,
      [subAccountId, since, before, limit + 1],
    )) as Row[];
    const page = rows.slice(0, limit);
    const messages = page.map((r): InboundMessageView => ({
      umid: r.umid,
      subAccountId,
      source: r.source,
      destination: r.destination,
      body: r.body,
      encoding: r.encoding,
      smsCount: r.sms_count,
      incomplete: r.incomplete,
      receivedAt: r.received_at.toISOString(),
    }));
    return { ok: true, result: { messages, next: rows.length > limit ? (page[page.length - 1]?.global_position ?? null) : null } };
  }
}
