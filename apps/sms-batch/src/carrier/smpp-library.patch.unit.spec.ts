// The `smpp` library's PDU and GSM 03.38 code as patched by patches/smpp+0.5.1.patch (applied on install).
import { gsmCoder } from 'smpp/lib/defs';
import { PassThrough } from 'node:stream';
import { PDU } from 'smpp/lib/pdu';

const ESC = 0x1b;

describe('smpp library (patched)', () => {
  it('builds its GSM tables once instead of on every PDU (the patch is applied)', () => {
    gsmCoder.decode(Buffer.from([0x41]), 0);
    // Unpatched, the coder tested its table with Object.keys on every call (docs/adr/0038-smpp-pdu-code-patched.md).
    expect(gsmCoder.GSM.tablesBuilt).toBe(true);
  });

  it('encodes and decodes GSM 03.38 as the standard defines it, escapes included', () => {
    const text = '@£$ A{€}\n[~]';
    const bytes = [0x00, 0x01, 0x02, 0x20, 0x41, ESC, 0x28, ESC, 0x65, ESC, 0x29, 0x0a, ESC, 0x3c, ESC, 0x3d, ESC, 0x3e];
    for (let i = 0; i < 3; i++) {
      // Again and again: the patched coder keeps its regular expressions between calls.
      expect([...gsmCoder.encode(text, 0)]).toEqual(bytes);
      expect(gsmCoder.decode(Buffer.from(bytes), 0)).toBe(text);
    }
    expect(gsmCoder.decode(Buffer.from('id:7 stat:DELIVRD err:000', 'latin1'), 0)).toBe('id:7 stat:DELIVRD err:000');
  });

  it('writes a submit_sm field by field, TLVs after the mandatory parameters, and reads it back', () => {
    const pdu = new PDU('submit_sm', {
      sequence_number: 9,
      source_addr: 'ACME',
      destination_addr: '447400123456',
      registered_delivery: 1,
      data_coding: 8,
      short_message: Buffer.from([0x00, 0x48]),
      user_message_reference: 513,
    });
    const bytes = pdu.toBuffer();
    const mandatory = Buffer.concat([
      Buffer.from([0, 0]), // service_type "", source_addr_ton 0
      Buffer.from([0]), // source_addr_npi
      Buffer.from('ACME\0'),
      Buffer.from([0, 0]), // dest_addr_ton, dest_addr_npi
      Buffer.from('447400123456\0'),
      Buffer.from([0, 0, 0]), // esm_class, protocol_id, priority_flag
      Buffer.from([0, 0]), // schedule_delivery_time "", validity_period ""
      Buffer.from([1, 0, 8, 0]), // registered_delivery, replace_if_present_flag, data_coding, sm_default_msg_id
      Buffer.from([2, 0x00, 0x48]), // sm_length, short_message
    ]);
    const tlv = Buffer.from([0x02, 0x04, 0x00, 0x02, 0x02, 0x01]); // user_message_reference = 513
    const header = Buffer.alloc(16);
    header.writeUInt32BE(16 + mandatory.length + tlv.length, 0);
    header.writeUInt32BE(0x00000004, 4); // submit_sm
    header.writeUInt32BE(9, 12);
    expect(bytes).toEqual(Buffer.concat([header, mandatory, tlv]));

    const read = new PDU(bytes);
    expect(read).toMatchObject({ command: 'submit_sm', sequence_number: 9, source_addr: 'ACME', destination_addr: '447400123456', user_message_reference: 513 });
    expect((read['short_message'] as { message: string }).message).toBe('H'); // data_coding 8: UCS-2
  });

  it('reads a delivery receipt as the carrier sent it', () => {
    const receipt = 'id:abc123 sub:001 dlvrd:001 submit date:2611250930 done date:2611250931 stat:DELIVRD err:000 text:{hello}';
    const sent = new PDU('deliver_sm', { sequence_number: 4, source_addr: '447400123456', destination_addr: 'ACME', esm_class: 4, short_message: receipt, receipted_message_id: 'abc123' });
    const read = new PDU(sent.toBuffer());
    expect(read).toMatchObject({ command: 'deliver_sm', esm_class: 4, receipted_message_id: 'abc123' });
    expect((read['short_message'] as { message: string }).message).toBe(receipt);
  });

  it('names the header of a PDU read whole whose body cannot be decoded, and refuses a length that frames none', () => {
    // A deliver_sm ending in sar_msg_ref_num (two octets) with one octet left: the library cannot read it.
    const cstring = (text: string) => Buffer.from(`${text}\u0000`, 'latin1');
    const body = Buffer.concat([
      cstring(''), // service_type
      Buffer.from([1, 1]),
      cstring('447700900123'),
      Buffer.from([1, 1]),
      cstring('447700100100'),
      Buffer.from([0, 0, 0]), // esm_class, protocol_id, priority_flag
      cstring(''),
      cstring(''),
      Buffer.from([0, 0, 0, 0]), // registered_delivery, replace_if_present_flag, data_coding, sm_default_msg_id
      Buffer.from([1, 0x41]), // sm_length, short_message
      Buffer.from([0x02, 0x0c, 0x00, 0x02, 0x41]), // sar_msg_ref_num, one of its two octets
    ]);
    const afterLength = Buffer.concat([Buffer.from([0, 0, 0, 0x05, 0, 0, 0, 0, 0, 0, 0, 77]), body]);
    const stream = new PassThrough();
    stream.write(afterLength);
    expect(() => PDU.fromStream(stream, 4 + afterLength.length)).toThrow(expect.objectContaining({ pduHeader: { command_id: 0x05, sequence_number: 77 } }));
    const short = new PassThrough();
    short.write(Buffer.from([0, 0, 0, 8]));
    expect(() => PDU.commandLength(short)).toThrow(/too small/);
  });
});
