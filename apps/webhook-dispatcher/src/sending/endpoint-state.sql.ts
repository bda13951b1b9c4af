/**
 * SQL functions over the shared state of an endpoint (`delivery_endpoints`: its breaker and its
 * sending slots), used by the claim and by the recording of outcomes. Each mirrors a pure rule of
 * `@seed/webhook-dispatcher-domain` (named beside it; `endpoint-state.int.spec.ts` checks them
 * against each other): the rules have to run inside the statements that lock the endpoint row, so
 * that replicas changing one endpoint at once each start from the other's result.
 *
 * `slot_grants` is `{"<holder>": {"n": <slots>, "want": <slots asked for>, "until": <timestamptz>}}`:
 * the slots each replica (holder) may have in flight to the endpoint and what it asks for (which
 * tells the others to share), until its grant runs out (renewed by its claims; the grant of a
 * replica that died counts no more once it ran out). Created by migration
 * 007-shared-endpoint-state; a change to one of them needs a migration of its own.
 */
export const endpointStateFunctions = (s: string): string[] => [
  // sendingCap: the concurrency when closed, none while open, one probe when half-open.
  `CREATE OR REPLACE FUNCTION ${s}.sending_cap(open_until timestamptz, concurrency int) RETURNS int
     LANGUAGE sql STABLE AS $$
       SELECT CASE WHEN open_until IS NULL THEN concurrency WHEN open_until > now() THEN 0 ELSE 1 END $$`,
  // A holder's live grant (0 once it ran out), and what it asked for.
  `CREATE OR REPLACE FUNCTION ${s}.slots_of(grants jsonb, holder text) RETURNS int
     LANGUAGE sql STABLE AS $$
       SELECT CASE WHEN (grants -> holder ->> 'until')::timestamptz > now() THEN (grants -> holder ->> 'n')::int ELSE 0 END $$`,
  `CREATE OR REPLACE FUNCTION ${s}.want_of(grants jsonb, holder text) RETURNS int
     LANGUAGE sql STABLE AS $$
       SELECT CASE WHEN (grants -> holder ->> 'until')::timestamptz > now() THEN (grants -> holder ->> 'want')::int ELSE 0 END $$`,
  // The other holders' live slots, and how many of them want slots.
  `CREATE OR REPLACE FUNCTION ${s}.slots_of_others(grants jsonb, holder text) RETURNS int
     LANGUAGE sql STABLE AS $$
       SELECT COALESCE(sum((g.value ->> 'n')::int), 0)::int FROM jsonb_each(grants) g
        WHERE g.key <> holder AND (g.value ->> 'until')::timestamptz > now() $$`,
  `CREATE OR REPLACE FUNCTION ${s}.others_wanting(grants jsonb, holder text) RETURNS int
     LANGUAGE sql STABLE AS $$
       SELECT count(*)::int FROM jsonb_each(grants) g
        WHERE g.key <> holder AND (g.value ->> 'until')::timestamptz > now() AND (g.value ->> 'want')::int > 0 $$`,
  // slotsToGrant({ want, keep, cap: sendingCap, heldByOthers, othersWanting }).
  `CREATE OR REPLACE FUNCTION ${s}.slots_to_grant(grants jsonb, holder text, open_until timestamptz, concurrency int, want int, keep int) RETURNS int
     LANGUAGE sql STABLE AS $$
       SELECT greatest(0, least(x.cap - ${s}.slots_of_others(grants, holder),
                                greatest(keep, least(want, ceil(x.cap::numeric / greatest(1, ${s}.others_wanting(grants, holder) + CASE WHEN want > 0 THEN 1 ELSE 0 END))::int))))
         FROM (SELECT ${s}.sending_cap(open_until, concurrency) AS cap) x $$`,
  // The grants with the holder's set to `slots` and `want` for a lease from now (removed when both
  // are 0); grants of others that ran out are dropped on the way.
  `CREATE OR REPLACE FUNCTION ${s}.with_slots(grants jsonb, holder text, slots int, want int, lease_ms double precision) RETURNS jsonb
     LANGUAGE sql STABLE AS $$
       SELECT COALESCE((SELECT jsonb_object_agg(g.key, g.value) FROM jsonb_each(grants) g
                         WHERE g.key <> holder AND (g.value ->> 'until')::timestamptz > now()), '{}'::jsonb)
           || CASE WHEN slots > 0 OR want > 0
                   THEN jsonb_build_object(holder, jsonb_build_object('n', slots, 'want', want, 'until', now() + make_interval(secs => lease_ms / 1000)))
                   ELSE '{}'::jsonb END $$`,
  // afterOutcomes(state, run, now, policy).
  `CREATE OR REPLACE FUNCTION ${s}.breaker_after(failures int, open_until timestamptz, reset boolean, run_failures int, threshold int, cooldown_ms double precision,
                                                 OUT new_failures int, OUT new_open_until timestamptz)
     LANGUAGE sql STABLE AS $$
       SELECT x.f,
              CASE WHEN reset OR open_until IS NULL THEN CASE WHEN x.f >= threshold THEN now() + x.cooldown END
                   WHEN open_until <= now() AND run_failures > 0 THEN now() + x.cooldown
                   ELSE open_until END
         FROM (SELECT CASE WHEN reset OR open_until IS NULL THEN (CASE WHEN reset THEN 0 ELSE failures END) + run_failures ELSE failures END AS f,
                      make_interval(secs => cooldown_ms / 1000) AS cooldown) x $$`,
];
