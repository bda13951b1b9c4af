import type { DataSource } from 'typeorm';
import { ServiceSchema } from '@seed/platform-nest';
import { dropSchema, eventually, openTestDataSource, testLogger, uniqueName } from '@seed/platform-testing';
import { migrateSmsBatchSchema, startSimulator, type RunningSimulator } from '../sms-batch.test-helpers';
import type { ActiveCarrier, RoutingConfig } from './active-carrier';
import { BindSlotsRepository } from './bind-slots.repository';
import { CarrierPinsRepository } from './carrier-pins.repository';
import { SenderReplicasRepository } from './sender-replicas.repository';
import { CarrierFleet, type FleetSettings } from './carrier-fleet';

/*
 * Several replicas' fleets against one real simulator and one real schema: a carrier's binds are a
 * budget over all of them, spread, re-spread when one stops or joins, never exceeded.
 */

const schema = uniqueName('it_fleet');
let ds: DataSource;
let sim: RunningSimulator;
const fleets: CarrierFleet[] = [];

beforeAll(async () => {
  ds = await openTestDataSource(6);
  await migrateSmsBatchSchema(ds, schema);
  sim = await startSimulator();
});

afterEach(async () => {
  await Promise.all(fleets.splice(0).map((fleet) => fleet.stop()));
  await ds.query(`DELETE FROM "${schema}".carrier_bind_slots`);
  await ds.query(`DELETE FROM "${schema}".sender_replicas`);
});

afterAll(async () => {
  sim.process.kill('SIGTERM');
  await dropSchema(ds, schema);
  await ds.destroy();
});

function carrier(binds: number, extra: Partial<ActiveCarrier> = {}): ActiveCarrier {
  return {
    carrierId: 'a',
    url: `smpp://seed:secret@127.0.0.1:${sim.smppPort}`,
    binds,
    window: 10,
    maxPerSecond: null,
    systemType: null,
    source: { ton: null, npi: null },
    destination: { ton: null, npi: null },
    enabled: true,
    rerouteOnErrors: new Set(),
    ...extra,
  };
}

/** The table every fleet reads; tests change it as an operator would through the admin API. */
let table: RoutingConfig = { carriers: [], routes: [] };

async function startFleet(replicaId: string, settings: Partial<FleetSettings> = {}): Promise<CarrierFleet> {
  const fleet = new CarrierFleet(
    { load: () => Promise.resolve(table) },
    { slots: new BindSlotsRepository(ds, new ServiceSchema(schema)), replicas: new SenderReplicasRepository(ds, new ServiceSchema(schema)), pins: new CarrierPinsRepository(ds, new ServiceSchema(schema)) },
    { replicaId, tickMs: 200, leaseMs: 1500, avoidMs: 1000, enquireLinkMs: 30_000, responseTimeoutMs: 2000, reconnectMaxMs: 500, ...settings },
    testLogger(),
    () => Promise.resolve(),
  );
  fleets.push(fleet);
  await fleet.start();
  return fleet;
}

const bound = async (): Promise<number> => {
  const stats = (await (await fetch(`http://127.0.0.1:${sim.httpPort}/stats`)).json()) as { boundSessions: number };
  return stats.boundSessions;
};

/** Samples the simulator's bound sessions while `work` runs; returns the most seen at once. */
async function mostBoundWhile(work: () => Promise<void>): Promise<number> {
  let most = 0;
  let done = false;
  const sampling = (async () => {
    while (!done) {
      most = Math.max(most, await bound());
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  try {
    await work();
  } finally {
    done = true;
    await sampling;
  }
  return most;
}

const sessionsOf = (fleet: CarrierFleet) => fleet.boundPool('a')?.boundSessions() ?? 0;

describe('CarrierFleet', () => {
  it('spreads a carrier\'s binds over the live replicas and never opens more than it allows', async () => {
    table = { carriers: [carrier(3)], routes: [] };
    const most = await mostBoundWhile(async () => {
      const [one, two] = await Promise.all([startFleet('replica-1'), startFleet('replica-2')]);
      await eventually(async () => (sessionsOf(one) > 0 && sessionsOf(two) > 0 && (await bound()) === 3 ? true : undefined), 10_000, 50);
      expect([sessionsOf(one), sessionsOf(two)].sort()).toEqual([1, 2]);
    });
    expect(most).toBeLessThanOrEqual(3);
  });

  it('takes over the sessions of a replica that stops, and takes its share back when it joins again', async () => {
    table = { carriers: [carrier(2)], routes: [] };
    const one = await startFleet('replica-1');
    await eventually(async () => (sessionsOf(one) === 2 ? true : undefined), 10_000, 50);
    const most = await mostBoundWhile(async () => {
      const two = await startFleet('replica-2');
      // The newcomer's share comes from the first replica closing one session before it opens one.
      await eventually(async () => (sessionsOf(one) === 1 && sessionsOf(two) === 1 ? true : undefined), 10_000, 50);
      await two.stop();
      await eventually(async () => (sessionsOf(one) === 2 ? true : undefined), 10_000, 50);
    });
    expect(most).toBeLessThanOrEqual(2);
  });

  it("takes over a dead replica's slot only after its lease ran out, and the dead one closes its session first", async () => {
    table = { carriers: [carrier(1)], routes: [] };
    const one = await startFleet('replica-1');
    await eventually(async () => (sessionsOf(one) === 1 ? true : undefined), 10_000, 50);
    const two = await startFleet('replica-2');
    // The one session stays where it is: a replica joining moves nothing it does not need.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(sessionsOf(two)).toBe(0);
    // Replica 1 loses the database for a while: it cannot renew, so it must close its session before
    // its lease can lapse, and replica 2 then takes the slot over.
    const slots = (one as unknown as { tables: { slots: BindSlotsRepository } }).tables.slots;
    const renew = slots.renew.bind(slots);
    slots.renew = () => Promise.reject(new Error('database unreachable'));
    const most = await mostBoundWhile(async () => {
      await eventually(async () => (sessionsOf(one) === 0 && sessionsOf(two) === 1 ? true : undefined), 10_000, 50);
    });
    expect(most).toBeLessThanOrEqual(1);
    slots.renew = renew;
  });

  it('closes the sessions of a carrier that is disabled, and reports it unbound', async () => {
    table = { carriers: [carrier(1)], routes: [] };
    const one = await startFleet('replica-1');
    await eventually(async () => (one.availability.isBound('a') ? true : undefined), 10_000, 50);
    table = { carriers: [carrier(1, { enabled: false })], routes: [] };
    await eventually(async () => (!one.availability.isBound('a') && (await bound()) === 0 ? true : undefined), 10_000, 50);
    expect(one.anyBound()).toBe(false);
  });

  it('gives each replica its share of the cap: the sessions it holds over all', async () => {
    table = { carriers: [carrier(2, { maxPerSecond: 100 })], routes: [] };
    const [one, two] = await Promise.all([startFleet('replica-1'), startFleet('replica-2')]);
    await eventually(async () => (one.boundPool('a')?.limiter.rate() === 50 && two.boundPool('a')?.limiter.rate() === 50 ? true : undefined), 10_000, 50);
  });

  it('routes around a carrier that throttles, for a while', async () => {
    table = { carriers: [carrier(1)], routes: [] };
    const one = await startFleet('replica-1', { avoidMs: 300 });
    one.noteRefusal('a', 0x58);
    expect(one.availability.isThrottled('a')).toBe(true);
    one.noteRefusal('b', 0x0b); // a permanent refusal is no reason to avoid a carrier
    expect(one.availability.isThrottled('b')).toBe(false);
    await eventually(async () => (!one.availability.isThrottled('a') ? true : undefined), 5000, 50);
  });

  it('routes again the messages pinned to a carrier that cannot take them, but never one locked to its carrier', async () => {
    const q = `"${schema}".outbound_queue`;
    const row = (umid: string, carrierId: string, locked: boolean) =>
      ds.query(
        `INSERT INTO ${q} (umid, destination, text, encoding, next_attempt_at, carrier_id, carrier_locked) VALUES ($1, '447911000001', 'x', 'GSM7', now() + interval '1 hour', $2, $3)`,
        [umid, carrierId, locked],
      );
    await row('00000000-0000-4000-8000-000000000001', 'gone', false);
    await row('00000000-0000-4000-8000-000000000002', 'gone', true);
    await row('00000000-0000-4000-8000-000000000003', 'a', false);
    const repository = new CarrierPinsRepository(ds, new ServiceSchema(schema));
    expect(await repository.unpinExcept(['a'])).toBe(1);
    const rows = await ds.query(`SELECT umid, carrier_id, next_attempt_at <= now() AS due FROM ${q} ORDER BY umid`);
    expect(rows).toEqual([
      { umid: '00000000-0000-4000-8000-000000000001', carrier_id: null, due: true },
      { umid: '00000000-0000-4000-8000-000000000002', carrier_id: 'gone', due: false },
      { umid: '00000000-0000-4000-8000-000000000003', carrier_id: 'a', due: false },
    ]);
  });
});
