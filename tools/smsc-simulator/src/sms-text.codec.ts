import { DataCoding } from './smpp.constants';

/**
 * Message bytes to text by data_coding. GSM 03.38 arrives unpacked over SMPP (one septet per
 * octet); UCS-2 is big endian, and code units are kept as they are so that a surrogate pair split
 * over two parts joins up again when the parts are concatenated.
 */

const ESCAPE = 0x1b;

// GSM 03.38 default alphabet, indexed by septet (0x1B, the escape, shows as a space on its own).
const GSM_DEFAULT =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\u00a0ÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';

// Extension table reached through 0x1B: septet -> character.
const GSM_EXTENSION: ReadonlyMap<number, string> = new Map([
  [0x0a, '\f'],
  [0x14, '^'],
  [0x28, '{'],
  [0x29, '}'],
  [0x2f, '\\'],
  [0x3c, '['],
  [0x3d, '~'],
  [0x3e, ']'],
  [0x40, '|'],
  [0x65, '€'],
]);

const gsmDecodeTable: readonly string[] = Array.from(GSM_DEFAULT);
const gsmEncodeDefault = new Map<string, number>(gsmDecodeTable.map((char, septet) => [char, septet]));
const gsmEncodeExtension = new Map<string, number>([...GSM_EXTENSION].map(([septet, char]) => [char, septet]));
gsmEncodeDefault.delete('\u00a0');

export function decodeGsm7(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i++) {
    const septet = (bytes[i] as number) & 0x7f;
    if (septet === ESCAPE && i + 1 < bytes.length) {
      const next = (bytes[++i] as number) & 0x7f;
      // An unknown extension code shows the default-table character (3GPP TS 23.038, 6.2.1.1).
      text += GSM_EXTENSION.get(next) ?? gsmDecodeTable[next];
    } else if (septet === ESCAPE) {
      text += ' ';
    } else {
      text += gsmDecodeTable[septet];
    }
  }
  return text;
}

/** One septet per octet; characters outside the alphabet become '?'. */
export function encodeGsm7(text: string): Buffer {
  const septets: number[] = [];
  for (const char of text) {
    const septet = gsmEncodeDefault.get(char);
    if (septet !== undefined) {
      septets.push(septet);
      continue;
    }
    const extension = gsmEncodeExtension.get(char);
    if (extension !== undefined) septets.push(ESCAPE, extension);
    else septets.push(0x3f);
  }
  return Buffer.from(septets);
}

export function decodeUcs2(bytes: Uint8Array): string {
  const even = bytes.length & ~1;
  const swapped = Buffer.allocUnsafe(even);
  for (let i = 0; i < even; i += 2) {
    swapped[i] = bytes[i + 1] as number;
    swapped[i + 1] = bytes[i] as number;
  }
  return swapped.toString('utf16le');
}

export function encodeUcs2(text: string): Buffer {
  return Buffer.from(text, 'utf16le').swap16();
}

/**
 * Text of a message body. 0 is this SMSC's default alphabet, GSM 03.38; binary codings (2, 4 and
 * the 8-bit message classes) come back as hex; the other ISO 8859 variants are shown as Latin-1.
 */
export function decodeText(dataCoding: number, bytes: Uint8Array): string {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  switch (dataCoding) {
    case DataCoding.gsm7:
      return decodeGsm7(bytes);
    case DataCoding.ascii:
      return buffer.toString('ascii');
    case DataCoding.latin1:
      return buffer.toString('latin1');
    case DataCoding.ucs2:
      return decodeUcs2(bytes);
    case DataCoding.octetUnspecified:
    case DataCoding.binary:
      return buffer.toString('hex');
  }
  // Data coding / message class group (1111xxxx): bit 2 chooses 8-bit data over GSM 7-bit.
  if ((dataCoding & 0xf0) === 0xf0) return dataCoding & 0x04 ? buffer.toString('hex') : decodeGsm7(bytes);
  return buffer.toString('latin1');
}
