// `npm run admin -- <command>`: the account dashboard of the contract, the carriers and routes, opt-outs and numbers, over the admin API.
// ADMIN_URL (default http://127.0.0.1:3002) and ADMIN_TOKEN (default: .local/admin-token, written by npm start).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NUMBER_USAGE, numberRequest } from './number-requests';
import { OPT_OUT_USAGE, optOutRequest } from './opt-out-requests';
import { ROUTING_USAGE, routingRequest, UsageError } from './routing-requests';

const USAGE = `usage: npm run admin -- <command>
  create-account <accountId>                  account, its <accountId>_hq sub-account and a first API key
  show-account <accountId>                    the account's sub-accounts
  create-sub-account <accountId> <subAccountId>
  create-api-key <accountId>                  another API key (shown once)
  revoke-api-key <accountId> <apiKeyId>       stops working at once
${ROUTING_USAGE}
${OPT_OUT_USAGE}
${NUMBER_USAGE}`;

const root = join(__dirname, '../../..');
const adminUrl = process.env['ADMIN_URL'] ?? `http://127.0.0.1:${process.env['ADMIN_API_PORT'] ?? 3002}`;

function adminToken(): string {
  const fromEnv = process.env['ADMIN_TOKEN'];
  if (fromEnv) return fromEnv;
  const file = join(root, '.local/admin-token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  throw new Error('ADMIN_TOKEN is not set and .local/admin-token does not exist (npm start writes it)');
}

async function call(method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${adminUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${adminToken()}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  const parsed: unknown = text ? JSON.parse(text) : { status: res.status };
  if (!res.ok) throw new Error(`${res.status}: ${text}`);
  return parsed;
}

async function main(argv: string[]): Promise<unknown> {
  const [command, a, b] = argv;
  let request;
  try {
    request = routingRequest(command, argv.slice(1)) ?? optOutRequest(command, argv.slice(1)) ?? numberRequest(command, argv.slice(1));
  } catch (error) {
    if (error instanceof UsageError) throw new Error(`${error.message}\n${USAGE}`);
    throw error;
  }
  if (request) return call(request.method, request.path, request.body);
  switch (command) {
    case 'create-account':
      if (a) return call('POST', '/admin/v1/accounts', { accountId: a });
      break;
    case 'show-account':
      if (a) return call('GET', `/admin/v1/accounts/${encodeURIComponent(a)}`);
      break;
    case 'create-sub-account':
      if (a && b) return call('POST', `/admin/v1/accounts/${encodeURIComponent(a)}/sub-accounts`, { subAccountId: b });
      break;
    case 'create-api-key':
      if (a) return call('POST', `/admin/v1/accounts/${encodeURIComponent(a)}/api-keys`);
      break;
    case 'revoke-api-key':
      if (a && b) return call('DELETE', `/admin/v1/accounts/${encodeURIComponent(a)}/api-keys/${encodeURIComponent(b)}`);
      break;
  }
  throw new Error(USAGE);
}

main(process.argv.slice(2)).then(
  (result) => console.log(JSON.stringify(result, null, 2)),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
