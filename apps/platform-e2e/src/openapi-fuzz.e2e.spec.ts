import { join } from 'node:path';
import { eventually, runSchemathesis, type RunningStack, type SchemathesisCheck, type SchemathesisResult, type SchemathesisRun } from '@seed/platform-testing';
import { createToken } from './support/agent';
import { sendBatch, type Account } from './support/http';
import { messageInState } from './support/sms-read';
import { StackWrites, type WriteSnapshot } from './support/stack-writes';
import { useStack } from './support/stack';

type Listener = 'messaging' | 'agent' | 'admin';
const LISTENERS: readonly Listener[] = ['messaging', 'agent', 'admin'];

const ROOT = join(__dirname, '../../..');
/** The committed documents, which the stack serves unchanged (openapi-documents.e2e.spec.ts). */
const documentOf = (listener: Listener): string => join(ROOT, 'docs/openapi', `${listener}.json`);
/** Each pass's JSON, JUnit and HAR reports, kept for a look after a failure (.local is not committed). */
const reportDir = (name: string): string => join(ROOT, '.local/fuzz-reports', name);

/**
 * The budget: test cases per operation and phase. With it the file runs in about two minutes on
 * a busy two-core machine (stack start included); the seed makes each run send the same cases.
 */
const MAX_EXAMPLES = 40;
const SEED = 20_261_125;

/**
 * Every check schemathesis 4 has but `object_level_authorization`, which needs a second account's
 * credentials per operation (the e2e tests of 403 cover other accounts).
 */
const CHECKS: readonly SchemathesisCheck[] = [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_headers_conformance',
  'response_schema_conformance',
  'negative_data_rejection',
  'positive_data_acceptance',
  'missing_required_header',
  'unsupported_method',
  'allow_header_conformance',
  'use_after_free',
  'ensure_resource_availability',
  'ignored_auth',
];

/**
 * Where "a schema-valid request is accepted" cannot hold, because what decides is not in the
 * request's shape: the clock, the numbering plan, or state kept by the platform. Each of those
 * refusals is documented (400 with its code) and tested on its own in the e2e tests of bad input.
 */
const SEMANTIC_RULES: Record<Listener, Record<string, readonly SchemathesisCheck[]>> = {
  messaging: {
    // `scheduled` more than 7 days after now: 400, code 1011.
    sendSmsBatch: ['positive_data_acceptance'],
    sendSmsCompactBatch: ['positive_data_acceptance'],
    sendMessageBatch: ['positive_data_acceptance'],
    // The one message is refused as sms-batch rejects it: a number outside the numbering plan, an expiry already past.
    sendMessage: ['positive_data_acceptance'],
    // `destination` must be a number of the numbering plan (libphonenumber), which no pattern says.
    startVerification: ['positive_data_acceptance'],
    // `code` must have the verification's own `codeLength`.
    checkVerification: ['positive_data_acceptance'],
  },
  // `phone_number` must be a number of the numbering plan.
  agent: { createAgentToken: ['positive_data_acceptance'] },
  admin: {
    // A URL's parts are checked past its pattern (a host, a system_id of 1-15 characters, a password
    // for a new carrier); a route's countries must have a numbering plan and name each carrier once.
    putCarrier: ['positive_data_acceptance'],
    putRoute: ['positive_data_acceptance'],
    // An MSISDN or number must be one of the numbering plan; a number's sub-account must be its account's.
    putOptOut: ['positive_data_acceptance'],
    getOptOut: ['positive_data_acceptance'],
    removeOptOut: ['positive_data_acceptance'],
    putNumber: ['positive_data_acceptance'],
  },
};

/** Removes every route, then every carrier, through the admin API (a route must go before its carriers). */
async function clearRoutingTable(stack: RunningStack): Promise<void> {
  const call = (method: string, path: string) => fetch(`${stack.adminUrl}/admin/v1${path}`, { method, headers: { authorization: `Bearer ${stack.adminToken}` } });
  for (const kind of ['routes', 'carriers'] as const) {
    const listed = (await (await call('GET', `/${kind}`)).json()) as Record<typeof kind, { routeId?: string; carrierId?: string }[]>;
    for (const item of listed[kind]) {
      const res = await call('DELETE', `/${kind}/${item.routeId ?? item.carrierId}`);
      if (res.status !== 204) throw new Error(`DELETE /${kind}: ${res.status} ${await res.text()}`);
    }
  }
}

/**
 * The three documents fuzzed against a running stack with schemathesis: invalid requests only
 * first (each refused, none writing anything), then valid and invalid ones (no 5xx, every
 * response as the document says), then the platform is shown to still send.
 */
describe('the OpenAPI documents, fuzzed against the running stack', () => {
  const ctx = useStack();
  let stack: RunningStack;
  let account: Account;
  /** The admin API is fuzzed on an account of its own: it may revoke keys, set limits, rotate secrets. */
  let adminAccount: Account;
  let agentToken: string;
  let writes: StackWrites;
  const sent: Record<string, number> = {};

  beforeAll(async () => {
    ({ stack } = ctx);
    account = await stack.createAccount();
    adminAccount = await stack.createAccount();
    agentToken = (await createToken(stack, account.apiKey)).auth_token;
    writes = new StackWrites(stack);
  });
  afterAll(async () => {
    await writes?.close();
    console.info(`schemathesis requests sent: ${JSON.stringify(sent)}`);
  });

  /** One schemathesis run against a listener, with the credentials and fixed path parameters it needs. */
  function fuzz(listener: Listener, pass: string, run: Pick<SchemathesisRun, 'mode' | 'phases'> & Partial<SchemathesisRun>): Promise<SchemathesisResult> {
    const baseUrl = { messaging: stack.messagingUrl, agent: stack.agentUrl, admin: stack.adminUrl }[listener];
    const access: Record<Listener, Pick<SchemathesisRun, 'bearerTokens' | 'pathParameters'>> = {
      // Any other sub-account answers 403 before anything else is looked at.
      messaging: { bearerTokens: { apiKey: account.apiKey }, pathParameters: { subAccountId: account.subAccountId } },
      agent: { bearerTokens: { apiKey: account.apiKey, agentToken } },
      admin: { bearerTokens: { adminToken: stack.adminToken }, pathParameters: { accountId: adminAccount.accountId } },
    };
    return runSchemathesis({
      schemaPath: documentOf(listener),
      baseUrl,
      ...access[listener],
      maxExamples: MAX_EXAMPLES,
      seed: SEED,
      checks: CHECKS,
      checksOff: SEMANTIC_RULES[listener],
      // Refused with 400, code 1000, anywhere in a body, as the documents' description says.
      allowNulBytes: false,
      continueOnFailure: true,
      requestTimeoutSeconds: 20,
      reportDir: reportDir(`${listener}-${pass}`),
      timeoutMs: 180_000,
      ...run,
    });
  }

  function expectClean(result: SchemathesisResult): void {
    expect({ exitCode: result.exitCode, failures: result.failures, errors: result.errors, failuresText: result.failuresText }).toEqual({
      exitCode: 0,
      failures: [],
      errors: 0,
      failuresText: '',
    });
  }

  /** Two equal snapshots a second apart: what the set-up wrote (events, relays) has landed. */
  const settled = (): Promise<WriteSnapshot> =>
    eventually(async () => {
      const first = await writes.snapshot();
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const second = await writes.snapshot();
      return JSON.stringify(first) === JSON.stringify(second) ? second : undefined;
    }, 30_000);

  it('invalid requests only: each refused with a documented 4xx, and nothing written anywhere', async () => {
    const before = await settled();
    for (const listener of LISTENERS) {
      // Examples and stateful links are valid requests; coverage and fuzzing generate the invalid ones.
      const result = await fuzz(listener, 'invalid', { mode: 'negative', invalidOnly: true, phases: ['coverage', 'fuzzing'] });
      sent[`${listener} invalid`] = result.requests;
      expectClean(result);
      expect(result.requests).toBeGreaterThan(100);
      const accepted = Object.entries(result.statuses).filter(([status]) => Number(status) < 400 || Number(status) >= 500);
      expect({ listener, accepted }).toEqual({ listener, accepted: [] });
    }
    expect(await writes.snapshot()).toEqual(before);
  }, 600_000);

  it.each(LISTENERS)('%s listener, valid and invalid requests: no 5xx, every response as documented', async (listener) => {
    const result = await fuzz(listener, 'all', { mode: 'all', phases: ['examples', 'coverage', 'fuzzing', 'stateful'] });
    sent[`${listener} all`] = result.requests;
    expectClean(result);
    expect(result.operationsTested).toBeGreaterThan(0);
    expect(result.statuses['200'] ?? 0).toBeGreaterThan(0);
  }, 600_000);

  // A request can be answered well and still leave behind what stops a service: an event its read
  // models cannot store (the year 10000 was one). After the fuzzing, a batch still goes through.
  it('the platform still sends and follows messages afterwards', async () => {
    // The fuzzing may have left carriers that never bind and routes to them: back to SMPP_URL's carrier alone.
    await clearRoutingTable(stack);
    const batch = await sendBatch(stack, account, { messages: [{ destination: '+447911123456', text: 'after the fuzzing' }], includeMessagesInResponse: true });
    const umid = batch.messages?.[0]?.umid as string;
    await messageInState(stack, account, umid, 'delivered', 90_000);
  }, 120_000);
});
