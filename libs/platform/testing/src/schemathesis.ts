import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

// The repository root, whether this runs from the sources (tests) or from dist/.
const ROOT = join(__dirname, __dirname.includes('/dist/libs/') ? '../../../../..' : '../../../..');
/** Installed, at the version whose flags and reports this file uses, by tools/scripts/ensure-schemathesis.sh. */
export const SCHEMATHESIS_BIN = join(ROOT, '.local/venv/bin/schemathesis');
/** The hooks of an invalid-only pass (`invalidOnly`), read by schemathesis from the sources. */
const INVALID_ONLY_HOOKS = join(ROOT, 'libs/platform/testing/src/schemathesis-invalid-only.py');

export type SchemathesisMode = 'positive' | 'negative' | 'all';
export type SchemathesisCheck =
  | 'not_a_server_error'
  | 'status_code_conformance'
  | 'content_type_conformance'
  | 'response_headers_conformance'
  | 'response_schema_conformance'
  | 'negative_data_rejection'
  | 'positive_data_acceptance'
  | 'missing_required_header'
  | 'unsupported_method'
  | 'allow_header_conformance'
  | 'use_after_free'
  | 'ensure_resource_availability'
  | 'ignored_auth'
  | 'all';
export type SchemathesisPhase = 'examples' | 'coverage' | 'fuzzing' | 'stateful';

export interface SchemathesisRun {
  /** The OpenAPI document (JSON or YAML file). */
  readonly schemaPath: string;
  /** Where the operations are served; the document's own `servers` are not used. */
  readonly baseUrl: string;
  /** Sent with every request, such as `{ Authorization: 'Bearer sk_...' }`. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Test cases per operation and phase (`--max-examples`). */
  readonly maxExamples: number;
  /** Valid inputs only, invalid ones only, or both. */
  readonly mode: SchemathesisMode;
  readonly checks: readonly SchemathesisCheck[];
  /** All but stateful by default, which needs links between operations in the document. */
  readonly phases?: readonly SchemathesisPhase[];
  /** The same seed generates the same test cases. */
  readonly seed?: number;
  /** Concurrent requests; 1 by default (the machine is shared with the stack under test). */
  readonly workers?: number;
  /** Per request; a slower answer is a failure. */
  readonly requestTimeoutSeconds?: number;
  /** `auto` waits as a 429's Retry-After asks; `100/s` sends at most that. */
  readonly rateLimit?: string;
  /** Keeps the JSON, JUnit and HAR reports there (a CI artifact); otherwise they are deleted. */
  readonly reportDir?: string;
  /** Kills the run after this long; 10 minutes by default. */
  readonly timeoutMs?: number;
  /** Bearer tokens by security scheme (`components.securitySchemes`), for a document with several. */
  readonly bearerTokens?: Readonly<Record<string, string>>;
  /** Path parameters sent with this value whatever was generated, such as the sub-account a key may use. */
  readonly pathParameters?: Readonly<Record<string, string>>;
  /** Checks not run for single operations, by operationId; say why where this is set. */
  readonly checksOff?: Readonly<Record<string, readonly SchemathesisCheck[]>>;
  /** Operations not tested at all, by operationId. */
  readonly excludeOperationIds?: readonly string[];
  /**
   * Only requests the document calls invalid are sent (schemathesis-invalid-only.py): the valid
   * cases that `--mode negative` still sends are dropped. Needs mode `negative`.
   */
  readonly invalidOnly?: boolean;
  /** false: generated strings never contain U+0000 (for an API that documents refusing it). */
  readonly allowNulBytes?: boolean;
  /** Every failure of an operation is reported, not only its first. */
  readonly continueOnFailure?: boolean;
}

/** One kind of failure as the JSON report lists it, such as ST101 "Server error" on `POST /names`. */
export interface SchemathesisFailure {
  readonly code: string;
  readonly title: string;
  readonly count: number;
  readonly operations: readonly string[];
}

export interface SchemathesisResult {
  /** 0: no failure; 1: failures or errors found; 2 and above: schemathesis could not run. */
  readonly exitCode: number;
  /** Test cases generated (and sent) over every operation and phase. */
  readonly testCases: number;
  /** HTTP requests recorded (checks such as unsupported_method or ignored_auth send extra ones). */
  readonly requests: number;
  /** Operations tested, of the selected ones. */
  readonly operationsTested: number;
  /** Responses by HTTP status, such as `{ "200": 40, "400": 310 }`, as the HAR report has them. */
  readonly statuses: Readonly<Record<string, number>>;
  readonly failures: readonly SchemathesisFailure[];
  /** Test cases that could not be sent or checked (network errors, an unusable schema). */
  readonly errors: number;
  /** The FAILURES and ERRORS sections of its output, with a curl line reproducing each failure; else the end of its output. */
  readonly failuresText: string;
  /** Everything it printed, for a test's failure message. */
  readonly output: string;
}

/** Runs `schemathesis run` against the API and reads its JSON and HAR reports. */
export async function runSchemathesis(run: SchemathesisRun): Promise<SchemathesisResult> {
  if (!existsSync(SCHEMATHESIS_BIN)) throw new Error(`${SCHEMATHESIS_BIN} is missing: run \`bash tools/scripts/ensure-schemathesis.sh\` (npm test does)`);
  // Its working folder is a new one: no schemathesis.toml of someone else's is picked up, and
  // nothing is left in the checkout.
  const work = mkdtempSync(join(tmpdir(), 'seed-schemathesis-'));
  const reports = run.reportDir ? resolve(run.reportDir) : join(work, 'reports');
  mkdirSync(reports, { recursive: true });
  try {
    const configPath = join(work, 'schemathesis.toml');
    writeFileSync(configPath, schemathesisConfig(run));
    const env = { SEED_FIXED_PATH_PARAMETERS: Object.keys(run.pathParameters ?? {}).join(',') };
    const { exitCode, output } = await spawnSchemathesis(schemathesisArgs(run, reports, configPath), work, run.timeoutMs ?? 600_000, env);
    const report = readJson<JsonReport>(join(reports, 'report.json'));
    const har = readJson<HarReport>(join(reports, 'requests.har'));
    return {
      exitCode,
      testCases: report?.test_cases?.generated ?? 0,
      requests: har?.log?.entries?.length ?? 0,
      operationsTested: report?.operations?.tested ?? 0,
      statuses: countStatuses(har),
      failures: (report?.failures ?? []).map(({ code, title, count, operations }) => ({ code, title, count, operations })),
      errors: report?.test_cases?.errored ?? 0,
      failuresText: failureSections(output) || (exitCode === 0 ? '' : output.split('\n').slice(-40).join('\n')),
      output,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The command line; exported so a test can show what was run. */
export function schemathesisArgs(run: SchemathesisRun, reportDir: string, configPath: string): string[] {
  if (run.invalidOnly && run.mode !== 'negative') throw new Error('invalidOnly needs mode negative');
  const args = ['--config-file', configPath, 'run', resolve(run.schemaPath), '--url', run.baseUrl];
  for (const [name, value] of Object.entries(run.headers ?? {})) args.push('-H', `${name}: ${value}`);
  // The checks are in the configuration file: named on the command line, they would override an
  // operation's own `enabled = false` there.
  args.push('--mode', run.mode, '--max-examples', String(run.maxExamples));
  args.push('--phases', (run.phases ?? ['examples', 'coverage', 'fuzzing']).join(','));
  args.push('--workers', String(run.workers ?? 1));
  if (run.seed !== undefined) args.push('--seed', String(run.seed));
  if (run.requestTimeoutSeconds !== undefined) args.push('--request-timeout', String(run.requestTimeoutSeconds));
  if (run.rateLimit !== undefined) args.push('--rate-limit', run.rateLimit);
  for (const id of run.excludeOperationIds ?? []) args.push('--exclude-operation-id', id);
  if (run.allowNulBytes === false) args.push('--generation-allow-x00', 'false');
  if (run.continueOnFailure) args.push('--continue-on-failure');
  args.push(
    '--report', 'json,junit,har',
    '--report-json-path', join(reportDir, 'report.json'),
    '--report-junit-path', join(reportDir, 'junit.xml'),
    '--report-har-path', join(reportDir, 'requests.har'),
    // Each run starts from nothing: examples found earlier are not replayed from a database.
    '--generation-database', 'none',
    '--no-color',
  );
  return args;
}

/**
 * schemathesis.toml: the checks (on, each, or all), tokens per security scheme, fixed path
 * parameters, checks off per operation, and the hooks of an invalid-only pass.
 */
export function schemathesisConfig(run: SchemathesisRun): string {
  const lines: string[] = [];
  if (run.invalidOnly) lines.push(`hooks = ${toml(INVALID_ONLY_HOOKS)}`);
  const all = run.checks.includes('all');
  lines.push('[checks]', `enabled = ${all}`, ...(all ? [] : run.checks.map((check) => `${check}.enabled = true`)));
  for (const [scheme, token] of Object.entries(run.bearerTokens ?? {})) lines.push(`[auth.openapi.${toml(scheme)}]`, `bearer = ${toml(token)}`);
  const parameters = Object.entries(run.pathParameters ?? {});
  if (parameters.length > 0) lines.push('[parameters]', ...parameters.map(([name, value]) => `${toml(`path.${name}`)} = ${toml(value)}`));
  for (const [operationId, checks] of Object.entries(run.checksOff ?? {})) {
    lines.push('[[operations]]', `include-operation-id = ${toml(operationId)}`, ...checks.map((check) => `checks.${check}.enabled = false`));
  }
  return `${lines.join('\n')}\n`;
}

/** A TOML basic string: JSON's escapes are TOML's for what these values hold. */
const toml = (value: string): string => JSON.stringify(value);

function countStatuses(har: HarReport | undefined): Record<string, number> {
  const statuses: Record<string, number> = {};
  for (const entry of har?.log?.entries ?? []) {
    const status = String(entry.response?.status ?? 0);
    statuses[status] = (statuses[status] ?? 0) + 1;
  }
  return statuses;
}

/** What this file reads of the JSON report (schemathesis 4.x). */
interface JsonReport {
  operations?: { tested?: number };
  test_cases?: { generated?: number; errored?: number };
  failures?: { code: string; title: string; count: number; operations: string[] }[];
}
interface HarReport {
  log?: { entries?: { response?: { status?: number } }[] };
}

function readJson<T>(path: string): T | undefined {
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as T) : undefined;
}

/** The `=== FAILURES ===` and `=== ERRORS ===` sections of its output, each up to the next heading. */
export function failureSections(output: string): string {
  const kept: string[] = [];
  let keep = false;
  for (const line of output.split('\n')) {
    const heading = /^=+ ([A-Z ]+?) =+$/.exec(line.trim());
    if (heading) keep = heading[1] === 'FAILURES' || heading[1] === 'ERRORS';
    if (keep) kept.push(line);
  }
  return kept.join('\n').trim();
}

function spawnSchemathesis(args: string[], cwd: string, timeoutMs: number, env: Record<string, string>): Promise<{ exitCode: number; output: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(SCHEMATHESIS_BIN, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env, NO_COLOR: '1', PYTHONUNBUFFERED: '1' } });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`schemathesis ran longer than ${timeoutMs} ms:\n${Buffer.concat(chunks).toString('utf8').slice(-4000)}`));
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      // Killed by a signal: 128 + its number, as a shell reports it.
      resolvePromise({ exitCode: code ?? 128 + (signal ? constants.signals[signal] : 0), output: Buffer.concat(chunks).toString('utf8') });
    });
  });
}
