import { IsBoolean, IsInt, IsString, Matches, Max, Min } from 'class-validator';
import { PlatformConfig } from '@seed/platform-config';
import { IsKeyring } from '@seed/platform-secrets';

export class SmsBatchConfig extends PlatformConfig {
  override HEALTH_PORT = 3110;

  /**
   * Runs the read models and the relay to the event topic on a worker thread, beside the thread
   * that sends and records receipts: two cores instead of one. false: one thread for everything.
   */
  @IsBoolean()
  FOLLOWER_THREAD = true;

  /**
   * A SubmitBatch from the gateway not committed within this of its issue (less 1 s for clock skew)
   * is not decided (503, nothing appended): the gateway has answered it 503 by then. Keep it at the
   * gateway's COMMAND_TIMEOUT_MS.
   */
  @IsInt() @Min(2000) @Max(300_000)
  SMS_BATCH_MAX_COMMAND_AGE_MS = 5_000;

  /**
   * The carrier `default`: `smpp://system_id:password@host:port` (or `smpps://` over TLS), with a
   * catch-all route to it while no route is configured. Empty: only carriers configured through
   * the admin API (none: messages stay queued).
   */
  @Matches(/^(smpps?:\/\/[^@/]+@[^/:]+(:\d+)?)?$/, { message: 'SMPP_URL must be smpp://system_id:password@host:port or smpps://...' })
  SMPP_URL = '';

  /** submit_sm awaiting their response at once, per session. */
  @IsInt() @Min(1) @Max(1000)
  SMPP_WINDOW = 100;

  /**
   * Sessions (binds) the `default` carrier allows in total, across every sms-batch replica: they
   * are spread over the live replicas (a replica with none routes its messages to the others).
   * Carriers configured through the admin API state their own `binds`.
   */
  @IsInt() @Min(1) @Max(64)
  SMPP_BINDS = 1;

  /**
   * An inbound part equal to one recorded this recently is the carrier sending it again after our
   * deliver_sm_resp was lost, and makes no second message. A recipient who sends the very same text
   * twice within it is heard once (a second STOP changes nothing anyway).
   */
  @IsInt() @Min(0) @Max(3_600_000)
  INBOUND_DUPLICATE_WINDOW_MS = 120_000;

  /** How long the parts of a concatenated inbound SMS wait for their siblings before they are delivered without them, marked incomplete. */
  @IsInt() @Min(1000) @Max(86_400_000)
  INBOUND_PART_MAX_WAIT_MS = 600_000;

  /** HELP answers a handset gets from one number in an hour at most; past it a HELP is recorded, not answered. */
  @IsInt() @Min(0) @Max(1000)
  INBOUND_HELP_REPLIES_PER_HOUR = 3;

  /** How often a replica renews its bind leases, re-reads the routing table and re-spreads the binds. */
  @IsInt() @Min(100) @Max(10_000)
  CARRIER_TICK_MS = 1000;

  /** A bind lease not renewed for this long is free for another replica (a dead replica's sessions move after it). */
  @IsInt() @Min(1000) @Max(120_000)
  CARRIER_LEASE_MS = 5000;

  /** How long a carrier that answered with throttling or temporary errors is routed around, when its route has another. */
  @IsInt() @Min(100) @Max(600_000)
  CARRIER_AVOID_MS = 5000;

  /** This replica's name in the bind leases; empty: host name and process id. */
  @IsString()
  REPLICA_ID = '';

  @IsInt() @Min(1000) @Max(600_000)
  SMPP_ENQUIRE_LINK_MS = 30_000;

  @IsInt() @Min(100) @Max(120_000)
  SMPP_RESPONSE_TIMEOUT_MS = 5_000;

  /**
   * How old this replica's copy of the opt-outs may get (its refresh failing) before it sends
   * nothing: past it, whether a recipient said STOP is not known, and the message waits.
   */
  @IsInt() @Min(2000) @Max(600_000)
  OPT_OUTS_STALE_AFTER_MS = 60_000;

  @IsInt() @Min(100) @Max(600_000)
  SMPP_RECONNECT_MAX_MS = 30_000;

  /**
   * Keys that open the sealed texts of the platform's own senders (OTP codes, guest links), the
   * same keyring verification and agent-token seal with. Empty: sealed messages are refused.
   */
  @IsKeyring({ optional: true })
  MESSAGE_SEALING_KEYS = '';

  /** Sender id of messages that give no `source`. */
  @IsString() @Matches(/^[A-Za-z0-9 ]{1,11}$|^\+?\d{1,16}$/)
  SMS_DEFAULT_SOURCE = 'Seed';

  /**
   * Messages a sender holds at most: claimed, on the wire, or sent with the result not committed yet.
   * Also the most a SIGKILL can make it send twice (they come back after SEND_LEASE_MS).
   */
  @IsInt() @Min(1) @Max(5000)
  SEND_CLAIM_SIZE = 500;

  /** How long a claim holds a message; a sender that dies gives its messages back after this. */
  @IsInt() @Min(1000) @Max(3_600_000)
  SEND_LEASE_MS = 60_000;

  @IsInt() @Min(10) @Max(10_000)
  SEND_IDLE_MS = 100;

  /**
   * How long a stopping sender waits for its submits on the wire and their records; then it stops
   * anyway and what it held is sent again after SEND_LEASE_MS. Keep it and SMPP_RESPONSE_TIMEOUT_MS
   * (the carrier sessions' own wait) together below the orchestrator's grace period.
   */
  @IsInt() @Min(100) @Max(600_000)
  SEND_STOP_GRACE_MS = 10_000;

  /** Backoff after a temporary refusal (throttling, queue full): doubles per attempt up to the max. */
  @IsInt() @Min(10) @Max(600_000)
  SEND_RETRY_BASE_MS = 1000;

  @IsInt() @Min(10) @Max(3_600_000)
  SEND_RETRY_MAX_MS = 60_000;

  /**
   * How long the relay to sms-batch.events.v1 waits after a partial batch before reading the log
   * again, so that its next Kafka request carries more events: a request costs far less an event
   * when larger. Adds up to this much to the time a status change takes to reach its webhook and the
   * topic's other consumers; 0 relays each commit as soon as it is seen
   * (docs/adr/0103-outbox-relay-lingers.md).
   */
  @IsInt() @Min(0) @Max(5000)
  OUTBOX_RELAY_LINGER_MS = 150;
}
