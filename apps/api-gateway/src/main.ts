import './tracing';
import 'reflect-metadata';
import type { IncomingMessage } from 'node:http';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Request } from 'express';
import { loadConfig } from '@seed/platform-config';
import { createLogger, NestLoggerAdapter } from '@seed/platform-logging';
import { apiKeyFirst, apiKeyRoutes } from './accounts/api-key-first.middleware';
import { ApiKeyGuard } from './accounts/api-key.guard';
import { AdminTokenGuard, adminAuthentication } from './admin/admin-token.guard';
import { GatewayConfig } from './gateway.config';
import { GatewayModule } from './gateway.module';
import { ApiError } from './http/api-error';
import { correlation } from './http/correlation.middleware';
import { HttpListeners, listenerScope } from './http/http-listeners';
import { httpServerMetrics } from './http/http-server.metrics';
import { jsonBody } from './http/json-body.middleware';
import { methodNotAllowed } from './http/method-not-allowed.middleware';
import { apiDocs } from './openapi/api-docs.middleware';
import { buildListenerDocuments } from './openapi/openapi-documents';
import { clientAddressLimits } from './rate-limit/client-address-limits.middleware';

async function main(): Promise<void> {
  const config = loadConfig(GatewayConfig);
  const logger = createLogger('api-gateway', config.LOG_LEVEL);
  const listeners = new HttpListeners();
  const hosts = { messaging: config.HTTP_HOST, agent: config.HTTP_HOST, admin: config.ADMIN_HTTP_HOST };
  // /metrics while starting, behind the same token check (its own failure count until the app's takes over).
  const startingGuard = new AdminTokenGuard(config);
  const metricsWhileStarting = (req: IncomingMessage): ApiError | null => {
    try {
      startingGuard.authenticate(req as Request, 'metrics');
      return null;
    } catch (error) {
      if (error instanceof ApiError) return error;
      throw error;
    }
  };
  const ports = await listeners.open(
    hosts,
    { messaging: config.MESSAGING_API_PORT, agent: config.AGENT_API_PORT, admin: config.ADMIN_API_PORT },
    metricsWhileStarting,
  );
  logger.info({ ports, hosts }, 'api-gateway listening (starting)');
  // abortOnError false: a failed start reaches the catch below (one error, exit 1) instead of process.abort().
  const module = GatewayModule.register(config, logger);
  const app = await NestFactory.create<NestExpressApplication>(module, {
    logger: new NestLoggerAdapter(logger),
    bodyParser: false,
    abortOnError: false,
  });
  app.disable('x-powered-by');
  app.use(httpServerMetrics(ports));
  // Generated from the started module, as `npm run openapi` generates the committed copies.
  const documents = buildListenerDocuments(app, GatewayModule);
  const adminToken = app.get(AdminTokenGuard);
  app.use(
    listenerScope(logger),
    correlation,
    apiDocs({ documents, isAdminToken: (token, req) => adminToken.admits(req, token), logger }),
    // Before the body is read: a method the path does not have is refused whatever the body.
    methodNotAllowed(logger),
    // The admin API and /metrics: token checked, and failures limited per address, before any body.
    adminAuthentication(adminToken, logger),
    // A request without a valid API key reads no body (the guard's answer, then the connection closes).
    apiKeyFirst(app.get(ApiKeyGuard), apiKeyRoutes(module.controllers ?? []), logger),
    // The agent API's unauthenticated entry points, per client address, before any body either.
    clientAddressLimits(
      { loginPerMinute: config.AGENT_LOGIN_PER_MINUTE, loginBurst: config.AGENT_LOGIN_BURST, guestPagePerMinute: config.GUEST_PAGE_PER_MINUTE, guestPageBurst: config.GUEST_PAGE_BURST },
      logger,
    ),
    jsonBody(config.BODY_LIMIT, logger),
  );
  await app.init();
  listeners.serve(app.getHttpAdapter().getInstance());
  logger.info({ ports }, 'api-gateway ready');

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.info({ signal }, 'shutting down');
      void listeners
        .close()
        .then(() => app.close())
        .then(() => process.exit(0));
    });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
