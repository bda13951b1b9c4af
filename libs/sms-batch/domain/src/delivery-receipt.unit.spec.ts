import { parseDeliveryReceipt } from './delivery-receipt';

const AT = '2030-01-15T10:00:05.000Z';
const RECEIPT = 0x04;
const STANDARD =
  'id:1A2B3C sub:001 dlvrd:001 submit date:3001151000 done date:3001151000 stat:DELIVRD err:000 text:Hello there';

describe('parseDeliveryReceipt', () => {
  it('reads the SMPP 3.4 Appendix B text', () => {
    expect(parseDeliveryReceipt({ esmClass: RECEIPT, shortMessage: STANDARD }, AT)).toEqual({
      carrierMessageId: '1A2B3C',
      stat: 'DELIVRD',
      err: '000',
      submitDate: '3001151000',
      doneDate: '3001151000',
      receivedAt: AT,
    });
  });

  it('is not a receipt when esm_class bit 0x04 is clear (a mobile-originated message)', () => {
    expect(parseDeliveryReceipt({ esmClass: 0x00, shortMessage: STANDARD }, AT)).toBeNull();
    expect(parseDeliveryReceipt({ esmClass: 0x40, shortMessage: STANDARD }, AT)).toBeNull();
  });

  it('accepts receipts with other esm_class bits set too', () => {
    expect(parseDeliveryReceipt({ esmClass: 0x44, shortMessage: STANDARD }, AT)?.stat).toBe('DELIVRD');
  });

  it('reads fields in any case, any order, with extra spaces', () => {
    const text = 'STAT : undeliv   Err:  034  Done Date:3001151005 ID:  0042  Submit_Date : 3001151000 ';
    expect(parseDeliveryReceipt({ esmClass: RECEIPT, shortMessage: text }, AT)).toEqual({
      carrierMessageId: '0042',
      stat: 'UNDELIV',
      err: '034',
      submitDate: '3001151000',
      doneDate: '3001151005',
      receivedAt: AT,
    });
  });

  it('fills missing fields: err 000, stat UNKNOWN, dates null', () => {
    expect(parseDeliveryReceipt({ esmClass: RECEIPT, shortMessage: 'id:77' }, AT)).toEqual({
      carrierMessageId: '77',
      stat: 'UNKNOWN',
      err: '000',
      submitDate: null,
      doneDate: null,
      receivedAt: AT,
    });
  });

  it('treats an empty field as missing', () => {
    const receipt = parseDeliveryReceipt({ esmClass: RECEIPT, shortMessage: 'id:9 stat: err: done date:' }, AT);
    expect(receipt).toMatchObject({ stat: 'UNKNOWN', err: '000', doneDate: null });
  });

  it('does not let words inside the trailing text override the real fields', () => {
    const text = 'id:5 stat:UNDELIV err:001 text:id:6 stat:DELIVRD err:000';
    expect(parseDeliveryReceipt({ esmClass: RECEIPT, shortMessage: text }, AT)).toMatchObject({
      carrierMessageId: '5',
      stat: 'UNDELIV',
      err: '001',
    });
  });

  it('does not mistake field names inside other words for fields', () => {
    expect(parseDeliveryReceipt({ esmClass: RECEIPT, shortMessage: 'userid:9 stat:DELIVRD' }, AT)).toBeNull();
    expect(parseDeliveryReceipt({ esmClass: RECEIPT, shortMessage: 'id:5 xstat:EXPIRED stat:DELIVRD' }, AT)?.stat).toBe('DELIVRD');
  });

  it('canonicalises long spellings of the stat values', () => {
    const statOf = (stat: string) => parseDeliveryReceipt({ esmClass: RECEIPT, shortMessage: `id:1 stat:${stat}` }, AT)?.stat;
    expect(statOf('Delivered')).toBe('DELIVRD');
    expect(statOf('UNDELIVERABLE')).toBe('UNDELIV');
    expect(statOf('rejected')).toBe('REJECTD');
    expect(statOf('accepted')).toBe('ACCEPTD');
    expect(statOf('expired')).toBe('EXPIRED');
  });

  describe('TLVs', () => {
    it('prefers receipted_message_id over the text id', () => {
      const receipt = parseDeliveryReceipt({ esmClass: RECEIPT, shortMessage: STANDARD, receiptedMessageId: '1715004\0' }, AT);
      expect(receipt?.carrierMessageId).toBe('1715004');
    });

    it('falls back to the text id when receipted_message_id is blank', () => {
      const receipt = parseDeliveryReceipt({ esmClass: RECEIPT, shortMessage: STANDARD, receiptedMessageId: '' }, AT);
      expect(receipt?.carrierMessageId).toBe('1A2B3C');
    });

    it.each([
      [1, 'ENROUTE'],
      [2, 'DELIVRD'],
      [3, 'EXPIRED'],
      [4, 'DELETED'],
      [5, 'UNDELIV'],
      [6, 'ACCEPTD'],
      [7, 'UNKNOWN'],
      [8, 'REJECTD'],
    ])('prefers message_state %i (%s) over stat:', (messageState, stat) => {
      const receipt = parseDeliveryReceipt({ esmClass: RECEIPT, shortMessage: 'id:1 stat:DELIVRD', messageState }, AT);
      expect(receipt?.stat).toBe(stat);
    });

    it('falls back to stat: when message_state is a value SMPP 3.4 does not define', () => {
      const receipt = parseDeliveryReceipt({ esmClass: RECEIPT, shortMessage: 'id:1 stat:EXPIRED', messageState: 0 }, AT);
      expect(receipt?.stat).toBe('EXPIRED');
    });

    it('reads a receipt from the TLVs alone when the text is empty', () => {
      expect(
        parseDeliveryReceipt({ esmClass: RECEIPT, shortMessage: '', receiptedMessageId: 'ab12', messageState: 5 }, AT),
      ).toEqual({ carrierMessageId: 'ab12', stat: 'UNDELIV', err: '000', submitDate: null, doneDate: null, receivedAt: AT });
    });
  });

  it('is null when no carrier id is given anywhere: nothing could match it', () => {
    expect(parseDeliveryReceipt({ esmClass: RECEIPT, shortMessage: 'stat:DELIVRD err:000', messageState: 2 }, AT)).toBeNull();
    expect(parseDeliveryReceipt({ esmClass: RECEIPT, shortMessage: 'garbage', receiptedMessageId: null }, AT)).toBeNull();
  });
});
