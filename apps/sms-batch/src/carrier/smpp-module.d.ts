// The npm `smpp` library ships no types; this declares the part the carrier connection uses.
declare module 'smpp' {
  import type { EventEmitter } from 'node:events';

  export interface Pdu {
    command: string;
    command_status: number;
    sequence_number: number;
    [field: string]: unknown;
    isResponse(): boolean;
    response(options?: Record<string, unknown>): Pdu;
  }

  export interface Session extends EventEmitter {
    /** The TCP socket; absent before the connection is made. */
    socket: import('node:net').Socket | undefined;
    bind_transceiver(options: Record<string, unknown>, callback: (pdu: Pdu) => void): void;
    submit_sm(options: Record<string, unknown>, callback: (pdu: Pdu) => void): void;
    enquire_link(options?: Record<string, unknown>, callback?: (pdu: Pdu) => void): void;
    unbind(options?: Record<string, unknown>, callback?: (pdu: Pdu) => void): void;
    send(pdu: Pdu, responseCallback?: (pdu: Pdu) => void): boolean;
    close(callback?: () => void): void;
    destroy(callback?: () => void): void;
  }

  export const PDU: new (command: string, options?: Record<string, unknown>) => Pdu;

  export function connect(options: { url: string; auto_enquire_link_period?: number; connectTimeout?: number }, listener?: () => void): Session;
}

// The library's PDU and GSM coder modules, used directly by its patch's test and `npm run bench:smpp`.
declare module 'smpp/lib/pdu' {
  export interface LibPdu {
    [field: string]: unknown;
    toBuffer(): Buffer;
    response(options?: Record<string, unknown>): LibPdu;
  }
  export const PDU: (new (command: string | Buffer, options?: Record<string, unknown>) => LibPdu) & {
    fromStream(stream: import('node:stream').Readable, commandLength: number): LibPdu | false;
    commandLength(stream: import('node:stream').Readable): number | false;
  };
}

declare module 'smpp/lib/defs' {
  export const gsmCoder: {
    GSM: { tablesBuilt?: boolean };
    encode(text: string, encoding: number): Buffer;
    decode(bytes: Buffer, encoding: number): string;
  };
}
