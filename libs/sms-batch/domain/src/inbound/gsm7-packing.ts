/** A CR that 23.038 6.1.2.3.1 has senders put in seven spare bits, so they never read as '@'. */
const CR_PADDING = 0x0d;

/**
 * Unpacks GSM-7 septets packed into octets (3GPP TS 23.038 6.1.2.1.1, least significant bit
 * first), for carriers that send them so. After a user data header the septets start on a septet
 * boundary (23.040 9.2.3.24), which is what the fill bits are: pass the header's octet count. A
 * last septet that can only be padding (a CR filling exactly seven spare bits) is dropped.
 */
export function unpackGsm7Septets(octets: Uint8Array, headerOctets = 0): Uint8Array {
  const fillBits = (7 - ((headerOctets * 8) % 7)) % 7;
  const bits = octets.length * 8 - fillBits;
  if (bits <= 0) return new Uint8Array(0);
  const septets = new Uint8Array(Math.floor(bits / 7));
  for (let i = 0; i < septets.length; i++) {
    const position = fillBits + i * 7;
    const index = position >> 3;
    const shift = position & 7;
    const pair = (octets[index] ?? 0) | ((octets[index + 1] ?? 0) << 8);
    septets[i] = (pair >> shift) & 0x7f;
  }
  const paddedWithCr = bits % 7 === 0 && septets[septets.length - 1] === CR_PADDING;
  return paddedWithCr ? septets.subarray(0, septets.length - 1) : septets;
}
