/** SMPP 3.4 TLVs (optional parameters): looking one up, making one, reading an integer one. */

export interface Tlv {
  tag: number;
  value: Buffer;
}

export function findTlv(tlvs: readonly Tlv[], tag: number): Buffer | undefined {
  for (const tlv of tlvs) if (tlv.tag === tag) return tlv.value;
  return undefined;
}

export function cStringTlv(tag: number, value: string): Tlv {
  return { tag, value: Buffer.from(`${value}\0`, 'latin1') };
}

export function u8Tlv(tag: number, value: number): Tlv {
  return { tag, value: Buffer.of(value) };
}

/** Big-endian integer of a 1-, 2- or 4-octet TLV value; undefined for other lengths. */
export function tlvInteger(value: Buffer | undefined): number | undefined {
  if (value?.length === 1) return value.readUInt8(0);
  if (value?.length === 2) return value.readUInt16BE(0);
  if (value?.length === 4) return value.readUInt32BE(0);
  return undefined;
}
