import type { IHeaders, KafkaMessage } from 'kafkajs';

/** A value that is JSON text already: the producer sends it as it is. */
export class EncodedJson {
  constructor(readonly text: string) {}
}

/** A record to produce: the value is JSON-encoded by the producer (unless it is `EncodedJson`). */
export interface OutgoingRecord {
  key: string;
  value: unknown;
  headers: Record<string, string>;
}

/** A consumed record with its headers decoded to strings. */
export interface IncomingRecord {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  value: Buffer | null;
  headers: Record<string, string>;
}

export function toIncomingRecord(topic: string, partition: number, message: KafkaMessage): IncomingRecord {
  return {
    topic,
    partition,
    offset: message.offset,
    key: message.key ? message.key.toString() : null,
    value: message.value,
    headers: decodeHeaders(message.headers),
  };
}

function decodeHeaders(headers: IHeaders | undefined): Record<string, string> {
  const decoded: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) decoded[name] = first.toString();
  }
  return decoded;
}
