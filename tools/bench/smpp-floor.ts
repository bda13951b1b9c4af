// The SMPP part of `npm run bench:floors`: one transceiver bind to the bundled SMSC simulator (a
// process of its own, its CPU not counted, as in bench:e2e), `window` submit_sm in flight, each
// message's deliver_sm receipt answered; with the `smpp` library the platform's carrier connection
// uses, and nothing else (no routing, no storage, no events).
import { fork, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

/** The part of the `smpp` library used here (it ships no types; apps/sms-batch declares its own). */
interface Pdu {
  command_status: number;
  esm_class?: number;
  response(): Pdu;
}
interface Session {
  on(event: 'deliver_sm', listener: (pdu: Pdu) => void): void;
  on(event: 'error', listener: (error: Error) => void): void;
  bind_transceiver(options: Record<string, unknown>, callback: (pdu: Pdu) => void): void;
  submit_sm(options: Record<string, unknown>, callback: (pdu: Pdu) => void): void;
  send(pdu: Pdu): boolean;
  close(): void;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports -- untyped CommonJS library, typed above
const smpp = require('smpp') as { connect(options: { url: string }, listener?: () => void): Session };

export interface SmppFloor {
  /** Sends `count` messages and waits for all their receipts. */
  exchange(count: number): Promise<void>;
  stop(): void;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

async function startSimulator(smppPort: number): Promise<ChildProcess> {
  const main = join(__dirname, '../smsc-simulator/src/main.js');
  const child = fork(main, [], {
    env: { ...process.env, SMSC_HOST: '127.0.0.1', SMSC_HTTP_HOST: '127.0.0.1', SMSC_PORT: String(smppPort), SMSC_HTTP_PORT: String(await freePort()), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const deadline = Date.now() + 20_000;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const probe = createServer();
      probe.once('error', () => resolve(true)); // the simulator holds the port
      probe.listen(smppPort, '127.0.0.1', () => probe.close(() => resolve(false)));
    });
    if (open) return child;
    if (Date.now() > deadline || child.exitCode !== null) throw new Error('the SMSC simulator did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function startSmppFloor(window: number): Promise<SmppFloor> {
  const port = await freePort();
  const simulator = await startSimulator(port);
  const session = await new Promise<Session>((resolve, reject) => {
    const s = smpp.connect({ url: `smpp://127.0.0.1:${port}` }, () =>
      s.bind_transceiver({ system_id: 'seed', password: 'secret' }, (pdu) => (pdu.command_status === 0 ? resolve(s) : reject(new Error(`bind refused: ${pdu.command_status}`)))),
    );
    s.on('error', reject);
  });
  let receipts = 0;
  let onReceipt: (() => void) | null = null;
  session.on('deliver_sm', (pdu) => {
    session.send(pdu.response());
    receipts++;
    onReceipt?.();
  });
  return {
    async exchange(count) {
      const target = receipts + count;
      const allReceipts = new Promise<void>((resolve) => {
        onReceipt = () => {
          if (receipts >= target) resolve();
        };
      });
      let next = 0;
      const worker = async (): Promise<void> => {
        for (let i = next++; i < count; i = next++) {
          await new Promise<void>((resolve, reject) =>
            session.submit_sm(
              { source_addr: 'BENCH', destination_addr: `4477001${String(i % 100_000).padStart(5, '0')}`, registered_delivery: 1, short_message: `Hello customer ${i}, your parcel arrives today.` },
              (pdu) => (pdu.command_status === 0 ? resolve() : reject(new Error(`submit_sm refused: ${pdu.command_status}`))),
            ),
          );
        }
      };
      await Promise.all(Array.from({ length: window }, worker));
      await allReceipts;
      onReceipt = null;
    },
    stop() {
      session.close();
      simulator.kill();
    },
  };
}
