import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { servesPath, type ListenerName } from '../http/http-listeners';
import { canonicalDocument } from './canonical-document';
import { SecuritySchemes } from './security-schemes';
import { withJsonSchemaNulls } from './json-schema-nulls';
import { withoutUnusedComponents } from './unused-components';

export const LISTENERS: readonly ListenerName[] = ['messaging', 'agent', 'admin'];

export type ListenerDocuments = Record<ListenerName, OpenAPIObject>;

/** The platform's version (package.json); the unit test keeps the two equal. */
export const API_DOCUMENT_VERSION = '0.1.0';

const COMMON_DESCRIPTION =
  'Every response carries `X-Correlation-Id` (the caller\'s, when it sent an acceptable one, else a new one). ' +
  'Every status >= 400 has the body `{"code", "message", "errorId", "timestamp"}`. ' +
  'Request bodies are JSON (`Content-Type: application/json`); unknown fields are ignored and `null` counts as an absent optional field. ' +
  // PostgreSQL text cannot hold U+0000 and no SMS carries it (json-body.middleware.ts): a schema
  // per string cannot say so for the unknown fields, hence here.
  'No string anywhere in a body, unknown fields included, may contain U+0000 or an unpaired surrogate escape (`\\uD800`-`\\uDFFF`): 400, code 1000. ' +
  'A path the listener has, asked with a method it does not have: 405 with `Allow` listing the methods it has.';

const INFO: Record<ListenerName, { title: string; description: string }> = {
  messaging: {
    title: 'Seed Messaging: messaging API',
    description: `Batch SMS (\`/sms/v1\`), the current API generation's messages (\`/api/v1/subaccounts\`) and mobile verification (\`/verify/v2\`). ${COMMON_DESCRIPTION}`,
  },
  agent: {
    title: 'Seed Messaging: agent API',
    description: `Agent tokens with guest rooms (\`/api/v1/tokens\`), agent login (\`/api/v1/sessions\`) and the guest page (\`/guest/{token}\`). ${COMMON_DESCRIPTION}`,
  },
  admin: {
    title: 'Seed Messaging: admin API',
    description: `Accounts, sub-accounts, API keys, rate limits, webhook settings, carriers and routes, opt-outs, numbers: the operator's dashboard, behind \`ADMIN_TOKEN\`. ${COMMON_DESCRIPTION}`,
  },
};

/** Tags of the operations (`@ApiTags`), in the order readers meet them. */
const TAGS: Record<string, string> = {
  SMS: 'Batch SMS and reads of messages and batches (the legacy paths of the contract).',
  Messages: "The provider's current API generation: the same decisions and reads as the SMS paths.",
  Verify: 'Mobile verification: one-time codes sent by SMS and checked.',
  'Agent tokens': 'Tokens that log agents in to the agent console, optionally with a guest room.',
  'Guest page': 'The page a guest link opens.',
  Accounts: 'Accounts, sub-accounts, API keys and request rate limits.',
  Webhooks: "Delivery-status webhooks: an account's default callback URL, signing secret and dead letters.",
  'Carriers and routes': 'The SMPP carriers messages are sent through, and the ordered routing table that picks one for each message. Applied by every sms-batch replica within 5 seconds.',
  'Opt-outs': "Recipients who asked a sub-account to stop messaging them: none of the sub-account's messages to them is sent.",
  Numbers: 'Long numbers and short codes: the sub-account that receives the inbound SMS sent to each, where they are posted, and the answer to HELP.',
};

/**
 * One OpenAPI 3.1 document per listener, generated from the controllers of `module` and their
 * decorators: each holds only the paths its listener serves (`servesPath`, the same table that
 * answers 404 for the others) and the schemas those paths use.
 */
export function buildListenerDocuments(app: INestApplication, module: object): ListenerDocuments {
  const builder = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Seed Messaging')
    .setVersion(API_DOCUMENT_VERSION)
    // addSecurity, not addBearerAuth: that one calls every bearer token a JWT, and only the agent's is.
    .addSecurity(SecuritySchemes.apiKey, { type: 'http', scheme: 'bearer', description: 'An API key of the account: `Authorization: Bearer <API_KEY>` (made with the admin API).' })
    .addSecurity(SecuritySchemes.agentToken, {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description: 'The `auth_token` of `POST /api/v1/tokens`: `Authorization: Bearer <auth_token>`.',
    })
    .addSecurity(SecuritySchemes.adminToken, { type: 'http', scheme: 'bearer', description: 'The operator secret `ADMIN_TOKEN`: `Authorization: Bearer <ADMIN_TOKEN>`.' });
  for (const [name, description] of Object.entries(TAGS)) builder.addTag(name, description);
  const whole = SwaggerModule.createDocument(app, builder.build(), { include: [module as new () => unknown] });
  return Object.fromEntries(LISTENERS.map((listener) => [listener, listenerDocument(whole, listener)])) as ListenerDocuments;
}

function listenerDocument(whole: OpenAPIObject, listener: ListenerName): OpenAPIObject {
  const copy = structuredClone(whole);
  const paths = Object.fromEntries(Object.entries(copy.paths).filter(([path]) => servesPath(listener, path)));
  const document: OpenAPIObject = { ...copy, info: { ...INFO[listener], version: API_DOCUMENT_VERSION }, paths, servers: [] };
  return canonicalDocument(withoutUnusedComponents(withJsonSchemaNulls(document)));
}

/** The form the documents are written and served in: two-space JSON with a final newline. */
export function serializeDocument(document: OpenAPIObject): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
