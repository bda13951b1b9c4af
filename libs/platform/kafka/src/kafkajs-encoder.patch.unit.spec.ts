// kafkajs's protocol encoder as patched by patches/kafkajs+2.2.4.patch (applied on install).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Encoder = require('kafkajs/src/protocol/encoder') as new () => { buf: Buffer; buffer: Buffer; writeVarInt(v: number): unknown; writeVarLong(v: number): unknown };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const encodeRecord = require('kafkajs/src/protocol/recordBatch/record/v0') as (record: {
  offsetDelta: number;
  timestampDelta: number;
  key: string | null;
  value: string | null;
  headers: Record<string, string>;
}) => { buffer: Buffer };

/** The Kafka protocol's varint: zigzag, then 7 bits a byte, least significant first. */
function varint(value: number): number[] {
  let n = BigInt.asUintN(64, (BigInt(value) << 1n) ^ (BigInt(value) >> 63n));
  const bytes: number[] = [];
  while (n >= 0x80n) {
    bytes.push(Number(n & 0x7fn) | 0x80);
    n >>= 7n;
  }
  return [...bytes, Number(n)];
}

const bytesOf = (text: string | null) => (text === null ? varint(-1) : [...varint(Buffer.byteLength(text)), ...Buffer.from(text)]);

/** Leaves stale bytes in Node's buffer pool, where the patched encoder takes its buffers from. */
function dirtyThePool(): void {
  for (let i = 0; i < 64; i++) Buffer.allocUnsafe(512).fill(0xaa);
}

describe('kafkajs encoder (patched)', () => {
  it('takes its buffers from the pool instead of a zero-filled allocation each (the patch is applied)', () => {
    // The unpatched encoder's Buffer.alloc(512) backs each buffer with an ArrayBuffer of its own:
    // ~20 of them a record, two thirds of the relay's encoding CPU.
    expect(new Encoder().buf.buffer.byteLength).toBe(Buffer.poolSize);
  });

  it('encodes varints and varlongs as the protocol defines them', () => {
    for (const value of [0, 1, -1, 63, -64, 64, 300, -300, 2 ** 20, 2 ** 31 - 1, -(2 ** 31)]) {
      dirtyThePool();
      const encoder = new Encoder();
      encoder.writeVarInt(value);
      expect([...encoder.buffer]).toEqual(varint(value));
    }
    for (const value of [0, 1, -1, 1_234_567, 2 ** 40, -(2 ** 40), Date.UTC(2026, 10, 26)]) {
      dirtyThePool();
      const encoder = new Encoder();
      encoder.writeVarLong(value);
      expect([...encoder.buffer]).toEqual(varint(value));
    }
  });

  it('encodes a record byte for byte, with no stale byte from the pool', () => {
    dirtyThePool();
    const value = JSON.stringify({ type: 'MessageDelivered', text: 'é€😀'.repeat(40) });
    const headers = { 'message-id': '0192f0a0-1111-7222-8333-444455556666', 'message-type': 'MessageDelivered', 'trace-parent': '' };
    const record = encodeRecord({ offsetDelta: 300, timestampDelta: 1_234_567, key: 'sms-message-1', value, headers });

    const body = [
      0, // attributes
      ...varint(1_234_567),
      ...varint(300),
      ...bytesOf('sms-message-1'),
      ...bytesOf(value),
      ...varint(3),
      ...Object.entries(headers).flatMap(([k, v]) => [...bytesOf(k), ...bytesOf(v)]),
    ];
    expect([...record.buffer]).toEqual([...varint(body.length), ...body]);

    const keyless = encodeRecord({ offsetDelta: 0, timestampDelta: 0, key: null, value: null, headers: {} });
    const keylessBody = [0, ...varint(0), ...varint(0), ...varint(-1), ...varint(-1), ...varint(0)];
    expect([...keyless.buffer]).toEqual([...varint(keylessBody.length), ...keylessBody]);
  });
});
