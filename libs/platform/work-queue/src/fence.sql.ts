import type { HeldRow } from './lease-token';
import { qualified, type WorkQueueTable } from './work-queue-table';

/** One row held under a claim: `<alias>.key = <idParam> AND <alias>.token = <tokenParam>`. */
export function heldUnder(q: WorkQueueTable, idParam: string, tokenParam: string, alias?: string): string {
  const a = alias ? `${alias}.` : '';
  return `${a}${q.id.column} = ${idParam} AND ${a}${q.token.column} = ${tokenParam}`;
}

/** The row carries another token than `tokenExpr` (or none): the claim it was given under is not its claim any more. */
export function notHeldUnder(q: WorkQueueTable, alias: string, tokenExpr: string): string {
  return `${alias}.${q.token.column} IS DISTINCT FROM ${tokenExpr}`;
}

/**
 * The claim given under `tokenExpr` is over: the row carries another token, or its holder ended
 * the claim (a hand-back or an outcome clears the lease column). For queues whose rows outlive
 * their claims; a queue that deletes a finished row needs only `notHeldUnder`.
 */
export function claimEnded(q: WorkQueueTable, alias: string, tokenExpr: string): string {
  return `(${alias}.${q.leaseUntil.column} IS NULL OR ${notHeldUnder(q, alias, tokenExpr)})`;
}

/** An extra column of the held rows' list (e.g. a due time per row), with its SQL type. */
export interface HeldColumn {
  name: string;
  type: string;
}

/**
 * Held rows as a relation: `unnest($1::<key>[], $2::bigint[], ...) AS h(id, lease_token, ...)`,
 * parameters from $1 on (`heldParams` gives the first two).
 */
export function heldRows(q: WorkQueueTable, alias = 'h', extra: readonly HeldColumn[] = []): string {
  const types = [`${q.id.type}[]`, 'bigint[]', ...extra.map((c) => `${c.type}[]`)];
  const names = ['id', 'lease_token', ...extra.map((c) => c.name)];
  return `unnest(${types.map((t, i) => `$${i + 1}::${t}`).join(', ')}) AS ${alias}(${names.join(', ')})`;
}

/** Joins a row of the table to its entry in `heldRows`: same key, same token. */
export function fencedBy(q: WorkQueueTable, rowAlias: string, heldAlias = 'h'): string {
  return `${rowAlias}.${q.id.column} = ${heldAlias}.id AND ${rowAlias}.${q.token.column} = ${heldAlias}.lease_token`;
}

/** The first two parameters of `heldRows`; a token that is empty text (no claim) matches no row. */
export function heldParams(held: readonly HeldRow[]): [string[], (string | null)[]] {
  return [held.map((h) => h.id), held.map((h) => (h.leaseToken === '' ? null : h.leaseToken))];
}

export interface ReleaseStatement {
  alias: string;
  /** The rest of the SET list (the lease column is set NULL here): when the row is due again, and what else changes. */
  set: string;
  /** Columns of the held rows' list after key and token, as parameters $3 on. */
  extra?: readonly HeldColumn[];
  /** More conditions on the row (e.g. it is still pending). */
  where?: string;
}

/**
 * Hands rows back to the queue, only those still held under the given claims: one claimed anew by
 * another holder stays with it. Parameters: `heldParams`, then one array per extra column, then
 * what `set` and `where` use.
 */
export function releaseStatement(q: WorkQueueTable, r: ReleaseStatement): string {
  return `UPDATE ${qualified(q)} ${r.alias}
          SET ${q.leaseUntil.column} = NULL, ${r.set}
         FROM ${heldRows(q, 'h', r.extra)}
        WHERE ${fencedBy(q, r.alias)}${r.where ? ` AND ${r.where}` : ''}`;
}
