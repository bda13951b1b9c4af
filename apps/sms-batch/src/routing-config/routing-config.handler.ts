import { Controller, Inject } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { ApiErrorCode, type CommandMessage, type CommandReply } from '@seed/contracts';
import { CommandPipeline, EventStore } from '@seed/platform-event-store';
import type { CommandContext } from '@seed/platform-kafka';
import { LOGGER } from '@seed/platform-nest';
import {
  ROUTING_CONFIG_STREAM,
  type CarrierInput,
  type CarrierView,
  type GetRoutingTableQuery,
  type PutCarrierCommand,
  type PutRouteCommand,
  type RemoveCarrierCommand,
  type RemoveRouteCommand,
  type RouteView,
  type RoutingTableView,
} from '@seed/sms-batch-contracts';
import {
  carrierView,
  decideRoutingConfig,
  evolveRoutingConfig,
  parseCarrierUrl,
  routeView,
  routingTableView,
  RoutingConfigError,
  type CarrierSettings,
  type RoutingConfigCommand,
  type RoutingConfigState,
} from '@seed/sms-batch-domain';
import { CarrierPasswords, CarrierPasswordsUnavailable } from './carrier-passwords';
import { readRoutingConfig } from './read-routing-config';

const CONSUMER = 'routing-config';

/** What a removal answers: the id that is gone. */
export type RemovedCarrier = { carrierId: string };
export type RemovedRoute = { routeId: string };

/**
 * The admin API's carriers and routes. Each command runs in the command pipeline on the one
 * `routing-config` stream, so a redelivered command gets its first answer.
 * Passwords are sealed before the decider sees them; answers never carry them.
 */
@Controller()
export class RoutingConfigHandler {
  constructor(
    private readonly dataSource: DataSource,
    private readonly store: EventStore,
    private readonly pipeline: CommandPipeline,
    private readonly passwords: CarrierPasswords,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  @MessagePattern('PutCarrier')
  putCarrier(@Payload() command: PutCarrierCommand, @Ctx() context: CommandContext): Promise<CommandReply<CarrierView>> {
    const { carrierId, carrier } = command.data;
    return this.decide(
      command,
      context,
      (state) => ({ type: 'PutCarrier', carrierId, carrier: this.settingsOf(carrierId, carrier, state) }),
      (state) => carrierView(present(state.carriers.get(carrierId))),
    );
  }

  @MessagePattern('RemoveCarrier')
  removeCarrier(@Payload() command: RemoveCarrierCommand, @Ctx() context: CommandContext): Promise<CommandReply<RemovedCarrier>> {
    const { carrierId } = command.data;
    return this.decide(command, context, () => ({ type: 'RemoveCarrier', carrierId }), () => ({ carrierId }));
  }

  @MessagePattern('PutRoute')
  putRoute(@Payload() command: PutRouteCommand, @Ctx() context: CommandContext): Promise<CommandReply<RouteView>> {
    const { routeId, route } = command.data;
    return this.decide(command, context, () => ({ type: 'PutRoute', routeId, route }), (state) => routeView(present(state.routes.get(routeId))));
  }

  @MessagePattern('RemoveRoute')
  removeRoute(@Payload() command: RemoveRouteCommand, @Ctx() context: CommandContext): Promise<CommandReply<RemovedRoute>> {
    const { routeId } = command.data;
    return this.decide(command, context, () => ({ type: 'RemoveRoute', routeId }), () => ({ routeId }));
  }

  /** The whole table: carriers by id (without passwords), routes in the order they are tried. */
  @MessagePattern('GetRoutingTable')
  async getRoutingTable(@Payload() _query: GetRoutingTableQuery): Promise<CommandReply<RoutingTableView>> {
    const { state } = await readRoutingConfig(this.dataSource.manager, this.store);
    return { ok: true, result: routingTableView(state) };
  }

  /**
   * In the command pipeline: the stream read and folded, the command decided and appended at the
   * version read with the processed record (again when another writer came first). A refusal
   * writes nothing and is the answer.
   */
  private async decide<T>(
    command: CommandMessage<unknown>,
    context: CommandContext,
    commandOf: (state: RoutingConfigState) => RoutingConfigCommand,
    answer: (state: RoutingConfigState) => T,
  ): Promise<CommandReply<T>> {
    const now = new Date().toISOString();
    const metadata = { correlationId: context.correlationId, causationId: command.commandId, traceparent: context.traceparent, occurredAt: now };
    try {
      const result = await this.pipeline.run({ consumer: CONSUMER, commandId: command.commandId, metadata }, async (tx) => {
        const read = await readRoutingConfig(tx, this.store);
        const decided = commandOf(read.state);
        const events = decideRoutingConfig(decided, read.state, now);
        if (events.length > 0) this.logger.info({ command: decided.type, id: idOf(decided), version: read.version + events.length }, 'routing table changed');
        return { appends: [{ streamId: ROUTING_CONFIG_STREAM, expectedVersion: read.version, events }], result: answer(events.reduce(evolveRoutingConfig, read.state)) };
      });
      return { ok: true, result };
    } catch (error) {
      const refused = refusalOf(error);
      if (refused) return refused;
      throw error;
    }
  }

  /**
   * A PUT's carrier as the decider takes it: its URL parsed and its password sealed. The stored
   * sealed form is passed on when the password given is the stored one, so that a PUT of what is
   * stored compares equal (each sealing differs: a fresh IV) and appends nothing.
   */
  private settingsOf(carrierId: string, input: CarrierInput, state: RoutingConfigState): CarrierSettings {
    if (input === null || typeof input !== 'object') throw new RoutingConfigError('invalid', 'carrier must be an object');
    const { url: plainUrl, sealedUrl, ...limits } = input;
    // A password crosses Kafka only sealed (the gateway seals the whole URL): a plain URL that
    // carries one is refused before anything is stored, so no writer can make that the habit.
    if (!sealedUrl && plainUrl && parseCarrierUrl(plainUrl).password !== null) {
      throw new RoutingConfigError('invalid', 'a carrier password is taken only sealed (sealedUrl), never in a plain url');
    }
    const url = sealedUrl ? this.passwords.open(sealedUrl) : plainUrl;
    if (url === null || url === undefined) {
      // A replace without a URL keeps where, as whom and with what password the carrier binds.
      const stored = state.carriers.get(carrierId);
      if (!stored) throw new RoutingConfigError('invalid', 'url is required to create a carrier: smpp://system_id:password@host:port');
      return { ...limits, endpoint: { tls: stored.tls, host: stored.host, port: stored.port, systemId: stored.systemId }, sealedPassword: null };
    }
    const { password, ...endpoint } = parseCarrierUrl(url);
    return { ...limits, endpoint, sealedPassword: password === null ? null : this.sealedPassword(state, carrierId, password) };
  }

  private sealedPassword(state: RoutingConfigState, carrierId: string, password: string): string {
    const stored = state.carriers.get(carrierId)?.sealedPassword;
    if (stored !== undefined) {
      try {
        if (this.passwords.open(stored) === password) return stored;
      } catch (error) {
        // Sealed with a key since dropped from the keyring: seal the given password anew.
        if (error instanceof CarrierPasswordsUnavailable) throw error;
      }
    }
    return this.passwords.seal(password);
  }
}

/** A PUT that was decided leaves what it put in the table (appended now, or stored already). */
function present<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('a decided PUT left nothing in the routing table');
  return value;
}

function idOf(command: RoutingConfigCommand): string {
  return 'carrierId' in command ? command.carrierId : command.routeId;
}

/** The answer to a command refused before anything was written, or null for any other error. */
function refusalOf(error: unknown): CommandReply<never> | null {
  if (error instanceof RoutingConfigError) {
    const status = { invalid: 400, unknown: 404, conflict: 409 }[error.code];
    return { ok: false, failure: { status, code: error.code === 'unknown' ? ApiErrorCode.NotFound : ApiErrorCode.InvalidParameter, message: error.message } };
  }
  if (error instanceof CarrierPasswordsUnavailable) return { ok: false, failure: { status: 500, code: ApiErrorCode.InternalError, message: error.message } };
  return null;
}
