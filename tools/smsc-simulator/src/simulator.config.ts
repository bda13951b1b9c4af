/**
 * The simulator's settings: read from the environment once at boot (the only place that reads
 * it), validated, and changeable at run time through `PUT /config` with the same validation.
 */
import { CommandStatus } from './smpp.constants';

export const FINAL_STATES = ['DELIVRD', 'EXPIRED', 'DELETED', 'UNDELIV', 'ACCEPTD', 'UNKNOWN', 'REJECTD'] as const;
export type FinalState = (typeof FINAL_STATES)[number];

export interface FinalStateWeight {
  state: FinalState;
  weight: number;
}

export interface SimulatorConfig {
  host: string;
  httpHost: string;
  smppPort: number;
  httpPort: number;
  /** PEM files: with both, the SMPP listener speaks TLS (`smpps://`); empty: plain TCP. */
  tlsCertFile: string;
  tlsKeyFile: string;
  systemId: string;
  password: string;
  receiptDelayMs: number;
  finalStates: FinalStateWeight[];
  messageIdFormat: 'hex' | 'decimal';
  /** null: a random start. */
  messageIdStart: number | null;
  throttlePerSecond: number;
  throttleAll: boolean;
  refuseBinds: boolean;
  temporaryErrorProbability: number;
  temporaryErrorStatus: number;
  window: number;
  dropProbability: number;
  rejectPrefixes: string[];
  submitDelayMs: number;
  /** false: a hung carrier that still delivers: every submit_sm is stored (and delivered) but never answered. */
  answerSubmits: boolean;
  receiptAckTimeoutMs: number;
  receiptRetries: number;
  inboundResponseTimeoutMs: number;
  maxMessages: number;
  logLevel: string;
}

export class SimulatorConfigError extends Error {
  override readonly name = 'SimulatorConfigError';
  constructor(readonly problems: string[]) {
    super(`invalid simulator configuration:\n  ${problems.join('\n  ')}`);
  }
}

type Parser<T> = (raw: unknown) => T;

interface Field<T> {
  env: string;
  parse: Parser<T>;
  /** False: the setting shapes a listener or a buffer, so it is fixed once started. */
  live: boolean;
}

type Fields = { [K in keyof SimulatorConfig]: Field<SimulatorConfig[K]> };

const integer = (min: number, max: number): Parser<number> => (raw) => {
  const value = typeof raw === 'string' && /^-?\d+$/.test(raw.trim()) ? Number(raw) : raw;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new Error(`must be an integer from ${min} to ${max}`);
  }
  return value;
};

const fraction: Parser<number> = (raw) => {
  const value = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
  if (typeof value !== 'number' || !(value >= 0 && value <= 1)) throw new Error('must be a number from 0 to 1');
  return value;
};

const flag: Parser<boolean> = (raw) => {
  if (typeof raw === 'boolean') return raw;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new Error('must be true or false');
};

/** A command_status as specifications and carriers write them: decimal, or hex like 0x00000008. */
const commandStatus: Parser<number> = (raw) => {
  const value = typeof raw === 'string' && /^\s*(0x[0-9a-f]+|\d+)\s*$/i.test(raw) ? Number(raw.trim()) : raw;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 0xffffffff) {
    throw new Error('must be a command_status from 1 to 0xFFFFFFFF (0 is success)');
  }
  return value;
};

const text = (maxLength: number, allowEmpty = false): Parser<string> => (raw) => {
  if (typeof raw !== 'string' || (!allowEmpty && raw === '') || raw.length > maxLength || raw.includes('\0')) {
    throw new Error(`must be a string of ${allowEmpty ? 0 : 1} to ${maxLength} characters`);
  }
  return raw;
};

const oneOf = <T extends string>(values: readonly T[]): Parser<T> => (raw) => {
  if (typeof raw !== 'string' || !values.includes(raw as T)) throw new Error(`must be one of ${values.join(', ')}`);
  return raw as T;
};

/** `DELIVRD:90,UNDELIV:5`, or in JSON `{"DELIVRD": 90, "UNDELIV": 5}` or `[{"state": "DELIVRD", "weight": 90}]`. */
const finalStates: Parser<FinalStateWeight[]> = (raw) => {
  const entries: unknown[][] | null =
    typeof raw === 'string'
      ? raw.split(',').filter((s) => s.trim() !== '').map((pair) => pair.split(':').map((s) => s.trim()))
      : Array.isArray(raw)
        ? raw.map((item: unknown) => (item !== null && typeof item === 'object' ? [(item as FinalStateWeight).state, (item as FinalStateWeight).weight] : [item]))
        : raw !== null && typeof raw === 'object'
          ? Object.entries(raw)
          : null;
  if (!entries || entries.length === 0) throw new Error('must be a list like DELIVRD:90,UNDELIV:10');
  const weights = entries.map(([state, weight]) => {
    const value = typeof weight === 'string' ? Number(weight) : weight;
    if (!FINAL_STATES.includes(state as FinalState)) throw new Error(`unknown state ${String(state)} (use ${FINAL_STATES.join(', ')})`);
    if (typeof value !== 'number' || !(value >= 0)) throw new Error(`weight of ${String(state)} must be a number >= 0`);
    return { state: state as FinalState, weight: value };
  });
  if (weights.every((w) => w.weight === 0)) throw new Error('at least one weight must be above 0');
  return weights;
};

/** `447700,1555` or, in JSON, an array of strings. */
const prefixes: Parser<string[]> = (raw) => {
  const list = typeof raw === 'string' ? raw.split(',') : raw;
  if (!Array.isArray(list) || !list.every((p): p is string => typeof p === 'string')) {
    throw new Error('must be a comma-separated list (or a JSON array) of digit prefixes');
  }
  const cleaned = list.map((p) => p.trim().replace(/^\+/, '')).filter((p) => p !== '');
  if (!cleaned.every((p) => /^\d+$/.test(p))) throw new Error('prefixes must be digits (a leading + is ignored)');
  return cleaned;
};

const fields: Fields = {
  host: { env: 'SMSC_HOST', parse: text(255), live: false },
  httpHost: { env: 'SMSC_HTTP_HOST', parse: text(255), live: false },
  smppPort: { env: 'SMSC_PORT', parse: integer(0, 65535), live: false },
  httpPort: { env: 'SMSC_HTTP_PORT', parse: integer(0, 65535), live: false },
  tlsCertFile: { env: 'SMSC_TLS_CERT_FILE', parse: text(4096, true), live: false },
  tlsKeyFile: { env: 'SMSC_TLS_KEY_FILE', parse: text(4096, true), live: false },
  // SMPP 3.4 caps system_id at 16 and password at 9 octets, terminator included.
  systemId: { env: 'SMSC_SYSTEM_ID', parse: text(15), live: true },
  password: { env: 'SMSC_PASSWORD', parse: text(8, true), live: true },
  receiptDelayMs: { env: 'SMSC_RECEIPT_DELAY_MS', parse: integer(0, 86_400_000), live: true },
  finalStates: { env: 'SMSC_FINAL_STATES', parse: finalStates, live: true },
  messageIdFormat: { env: 'SMSC_MESSAGE_ID_FORMAT', parse: oneOf(['hex', 'decimal'] as const), live: true },
  // Fixed: ids count up from it, so moving it while running could hand out an id twice.
  messageIdStart: { env: 'SMSC_MESSAGE_ID_START', parse: (raw) => (raw === null ? null : integer(0, 2 ** 48)(raw)), live: false },
  throttlePerSecond: { env: 'SMSC_THROTTLE_PER_SECOND', parse: integer(0, 10_000_000), live: true },
  throttleAll: { env: 'SMSC_THROTTLE_ALL', parse: flag, live: true },
  refuseBinds: { env: 'SMSC_REFUSE_BINDS', parse: flag, live: true },
  temporaryErrorProbability: { env: 'SMSC_TEMPORARY_ERROR_PROBABILITY', parse: fraction, live: true },
  temporaryErrorStatus: { env: 'SMSC_TEMPORARY_ERROR_STATUS', parse: commandStatus, live: true },
  window: { env: 'SMSC_WINDOW', parse: integer(1, 1_000_000), live: true },
  dropProbability: { env: 'SMSC_DROP_PROBABILITY', parse: fraction, live: true },
  rejectPrefixes: { env: 'SMSC_REJECT_PREFIXES', parse: prefixes, live: true },
  submitDelayMs: { env: 'SMSC_SUBMIT_DELAY_MS', parse: integer(0, 600_000), live: true },
  answerSubmits: { env: 'SMSC_ANSWER_SUBMITS', parse: flag, live: true },
  receiptAckTimeoutMs: { env: 'SMSC_RECEIPT_ACK_TIMEOUT_MS', parse: integer(100, 3_600_000), live: true },
  receiptRetries: { env: 'SMSC_RECEIPT_RETRIES', parse: integer(0, 1000), live: true },
  inboundResponseTimeoutMs: { env: 'SMSC_INBOUND_RESPONSE_TIMEOUT_MS', parse: integer(100, 3_600_000), live: true },
  maxMessages: { env: 'SMSC_MAX_MESSAGES', parse: integer(1, 10_000_000), live: false },
  logLevel: { env: 'LOG_LEVEL', parse: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']), live: false },
};

export function defaultSimulatorConfig(): SimulatorConfig {
  return {
    host: '0.0.0.0',
    // The inspection API changes how the carrier behaves and has no authentication: loopback
    // unless asked, even where the SMPP port is open to the network.
    httpHost: '127.0.0.1',
    smppPort: 2775,
    tlsCertFile: '',
    tlsKeyFile: '',
    httpPort: 2776,
    systemId: 'seed',
    password: 'secret',
    receiptDelayMs: 200,
    finalStates: [{ state: 'DELIVRD', weight: 100 }],
    messageIdFormat: 'hex',
    messageIdStart: null,
    throttlePerSecond: 0,
    throttleAll: false,
    refuseBinds: false,
    temporaryErrorProbability: 0,
    temporaryErrorStatus: CommandStatus.ESME_RSYSERR,
    window: 100,
    dropProbability: 0,
    rejectPrefixes: [],
    submitDelayMs: 0,
    answerSubmits: true,
    receiptAckTimeoutMs: 5000,
    receiptRetries: 3,
    inboundResponseTimeoutMs: 10_000,
    maxMessages: 100_000,
    logLevel: 'info',
  };
}

const keys = Object.keys(fields) as (keyof SimulatorConfig)[];

function validate(base: SimulatorConfig, given: Record<string, unknown>, describe: (key: keyof SimulatorConfig) => string): SimulatorConfig {
  const problems: string[] = [];
  const result: Record<string, unknown> = { ...base };
  for (const key of keys) {
    if (!(key in given)) continue;
    try {
      result[key] = fields[key].parse(given[key]);
    } catch (error) {
      problems.push(`${describe(key)}: ${(error as Error).message}`);
    }
  }
  if (problems.length > 0) throw new SimulatorConfigError(problems);
  return result as unknown as SimulatorConfig;
}

/** Boot-time settings: every unset (or empty) variable keeps its default. */
export function loadSimulatorConfig(env: NodeJS.ProcessEnv): SimulatorConfig {
  const given = Object.fromEntries(
    keys.flatMap((key) => {
      const raw = env[fields[key].env];
      return raw === undefined || raw === '' ? [] : [[key, raw]];
    }),
  );
  return validate(defaultSimulatorConfig(), given, (key) => fields[key].env);
}

/** A settings object for `startSimulator`: defaults for what it leaves out, same checks as the environment's. */
export function resolveSimulatorConfig(partial: Partial<SimulatorConfig>): SimulatorConfig {
  return validate(defaultSimulatorConfig(), partial, (key) => key);
}

/** `PUT /config`: a JSON subset of the settings that may change while running. */
export function applyConfigPatch(current: SimulatorConfig, patch: unknown): SimulatorConfig {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) {
    throw new SimulatorConfigError(['the body must be a JSON object']);
  }
  const problems = Object.keys(patch).flatMap((key) => {
    const field = fields[key as keyof SimulatorConfig] as Field<unknown> | undefined;
    if (!field) return [`${key}: unknown setting`];
    return field.live ? [] : [`${key}: fixed once the simulator has started`];
  });
  if (problems.length > 0) throw new SimulatorConfigError(problems);
  return validate(current, patch as Record<string, unknown>, (key) => key);
}

/** What `GET /config` shows: everything but the password. */
export function publicConfig(config: SimulatorConfig): SimulatorConfig {
  return { ...config, password: '[redacted]' };
}
