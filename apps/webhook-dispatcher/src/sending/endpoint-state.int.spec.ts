import type { DataSource } from 'typeorm';
import { eventStoreSchema, runMigrations } from '@seed/platform-event-store';
import { dropSchema, openTestDataSource, uniqueName } from '@seed/platform-testing';
import { afterOutcomes, sendingCap, slotsToGrant, type BreakerState, type OutcomeRun } from '@seed/webhook-dispatcher-domain';
import { webhookMigrations } from '../webhook.migrations';

/**
 * The SQL functions the claim and the recording of outcomes run under the endpoint row's lock
 * (endpoint-state.sql.ts) against the domain rules they mirror, over a grid of states. Each case
 * runs in one transaction, so that now() is one instant: times are compared relative to it.
 */
const schema = uniqueName('it_endpoint_state');
const s = `"${schema}"`;
let ds: DataSource;

beforeAll(async () => {
  ds = await openTestDataSource(2);
  await runMigrations(ds, schema, [...eventStoreSchema, ...webhookMigrations]);
});

afterAll(async () => {
  await dropSchema(ds, schema);
  await ds.destroy();
});

const policy = { failureThreshold: 3, cooldownMs: 1000 };
/** Breaker states relative to now (0): closed with some failures, open, half-open. */
const states: BreakerState[] = [
  { failures: 0, openUntil: null },
  { failures: 2, openUntil: null },
  { failures: 3, openUntil: 400 },
  { failures: 3, openUntil: -400 },
];
const runs: OutcomeRun[] = [0, 1, 3].flatMap((failures) => [false, true].map((reset) => ({ reset, failures })));

describe('endpoint state in SQL', () => {
  it('breaker_after is afterOutcomes, and sending_cap is sendingCap', async () => {
    for (const state of states) {
      for (const run of runs) {
        const [row] = await ds.query(
          `WITH st AS (SELECT CASE WHEN $2::float8 IS NULL THEN NULL ELSE now() + make_interval(secs => $2::float8 / 1000) END AS open_until)
           SELECT b.new_failures AS failures, (extract(epoch FROM b.new_open_until - now()) * 1000)::float8 AS open_in,
                  ${s}.sending_cap(st.open_until, 32) AS cap
             FROM st, ${s}.breaker_after($1, st.open_until, $3, $4, $5, $6) b`,
          [state.failures, state.openUntil, run.reset, run.failures, policy.failureThreshold, policy.cooldownMs],
        );
        const expected = afterOutcomes(state, run, 0, policy);
        expect({ state, run, failures: row.failures, openUntil: row.open_in === null ? null : Math.round(row.open_in) }).toEqual({ state, run, ...expected });
        expect({ state, cap: row.cap }).toEqual({ state, cap: sendingCap(state, 0, 32) });
      }
    }
  });

  it('slots_to_grant is slotsToGrant, counting only the other holders’ live grants', async () => {
    const others = [
      {},
      { b: { n: 2, want: 4 } },
      { b: { n: 4, want: 4 }, c: { n: 0, want: 4 } },
      { b: { n: 1, want: 4 }, gone: { n: 3, want: 4, expired: true } },
    ];
    for (const grants of others) {
      const live = Object.values(grants).filter((g) => !('expired' in g));
      for (const openUntil of [null, 400, -400]) {
        for (const [want, keep] of [[4, 0], [4, 3], [0, 0], [4, 1]] as const) {
          const [row] = await ds.query(
            `WITH g AS (SELECT COALESCE(jsonb_object_agg(k, jsonb_build_object('n', (v ->> 'n')::int, 'want', (v ->> 'want')::int,
                                 'until', now() + CASE WHEN v ? 'expired' THEN interval '-1 second' ELSE interval '1 minute' END)), '{}') AS grants
                          FROM jsonb_each($1::jsonb) AS e(k, v))
             SELECT ${s}.slots_to_grant(g.grants, 'a', CASE WHEN $2::float8 IS NULL THEN NULL ELSE now() + make_interval(secs => $2::float8 / 1000) END, 4, $3, $4) AS slots,
                    ${s}.slots_of(${s}.with_slots(g.grants, 'a', 2, 4, 60000), 'a') AS mine_after,
                    ${s}.slots_of_others(${s}.with_slots(g.grants, 'a', 2, 4, 60000), 'a') AS others_after
               FROM g`,
            [JSON.stringify(grants), openUntil, want, keep],
          );
          const cap = sendingCap({ failures: 0, openUntil }, 0, 4);
          const heldByOthers = live.reduce((sum, g) => sum + g.n, 0);
          const expected = slotsToGrant({ want, keep, cap, heldByOthers, othersWanting: live.filter((g) => g.want > 0).length });
          expect({ grants, openUntil, want, keep, slots: row.slots }).toEqual({ grants, openUntil, want, keep, slots: expected });
          expect([row.mine_after, row.others_after]).toEqual([2, heldByOthers]);
        }
      }
    }
  });
});
