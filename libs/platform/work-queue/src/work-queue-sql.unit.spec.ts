import { PLAN_EACH_CALL } from '@seed/platform-event-store';
import { claimStatement, leaseSet } from './claim.sql';
import { claimEnded, fencedBy, heldParams, heldRows, heldUnder, notHeldUnder, releaseStatement } from './fence.sql';
import { dueDepthSql } from './queue-depth.sql';
import type { WorkQueueTable } from './work-queue-table';

const queue = (marks: 'lease-end' | 'claim-time'): WorkQueueTable => ({
  schema: '"svc"',
  table: 'jobs',
  id: { column: 'job_id', type: 'uuid' },
  due: 'run_at',
  leaseUntil: { column: 'lease_until', marks },
  token: { column: 'lease_token', sequence: 'job_lease_tokens' },
});
const oneLine = (sql: string) => sql.replace(/\s+/g, ' ').trim();

describe('work queue statements', () => {
  it('a claim moves the due time by the lease, marks the lease and draws a token, planned on each call', () => {
    const sql = claimStatement(queue('lease-end'), {
      alias: 'q',
      dueRows: 'SELECT job_id FROM "svc".jobs WHERE run_at <= now() ORDER BY run_at LIMIT $1 FOR UPDATE SKIP LOCKED',
      leaseMsParam: '$2',
      alsoSet: 'attempts = q.attempts + 1',
      returning: 'q.job_id, q.lease_token',
    });
    expect(sql.startsWith(PLAN_EACH_CALL)).toBe(true);
    expect(oneLine(sql)).toBe(
      oneLine(`${PLAN_EACH_CALL} UPDATE "svc".jobs q
        SET run_at = now() + make_interval(secs => $2::double precision / 1000), lease_until = now() + make_interval(secs => $2::double precision / 1000),
            lease_token = nextval('"svc".job_lease_tokens'), attempts = q.attempts + 1
        WHERE q.job_id IN (SELECT job_id FROM "svc".jobs WHERE run_at <= now() ORDER BY run_at LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING q.job_id, q.lease_token`),
    );
  });

  it('a queue whose lease column holds the claim time gets now() there', () => {
    expect(leaseSet(queue('claim-time'), '$2')).toContain('lease_until = now(),');
  });

  it('fenced writes name the row by key and token', () => {
    const q = queue('lease-end');
    expect(heldUnder(q, '$1', '$2')).toBe('job_id = $1 AND lease_token = $2');
    expect(heldUnder(q, '$1', '$2', 'j')).toBe('j.job_id = $1 AND j.lease_token = $2');
    expect(notHeldUnder(q, 'j', 't.token::bigint')).toBe('j.lease_token IS DISTINCT FROM t.token::bigint');
    expect(claimEnded(q, 'j', 't.token::bigint')).toBe('(j.lease_until IS NULL OR j.lease_token IS DISTINCT FROM t.token::bigint)');
    expect(heldRows(q, 'h', [{ name: 'due_at', type: 'timestamptz' }])).toBe('unnest($1::uuid[], $2::bigint[], $3::timestamptz[]) AS h(id, lease_token, due_at)');
    expect(fencedBy(q, 'j')).toBe('j.job_id = h.id AND j.lease_token = h.lease_token');
    expect(oneLine(releaseStatement(q, { alias: 'j', set: 'run_at = now()', where: "j.state = 'pending'" }))).toBe(
      oneLine(`UPDATE "svc".jobs j SET lease_until = NULL, run_at = now()
        FROM unnest($1::uuid[], $2::bigint[]) AS h(id, lease_token)
        WHERE j.job_id = h.id AND j.lease_token = h.lease_token AND j.state = 'pending'`),
    );
  });

  it('a hand-back without a claim (empty token) matches no row', () => {
    expect(heldParams([{ id: 'a', leaseToken: '7' }, { id: 'b', leaseToken: '' }])).toEqual([['a', 'b'], ['7', null]]);
  });

  it('depth reads only rows due now', () => {
    expect(oneLine(dueDepthSql(queue('lease-end'), 'kind = 1'))).toBe(
      'SELECT count(*)::float8 AS due, coalesce(extract(epoch FROM now() - min(run_at)), 0)::float8 AS oldest FROM "svc".jobs WHERE kind = 1 AND run_at <= now()',
    );
  });
});
