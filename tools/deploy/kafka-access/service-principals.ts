import { AGENT_TOKEN_COMMAND_TOPIC, AGENT_TOKEN_EVENT_TOPIC } from '@seed/agent-token-contracts';
import { platformServices, type PlatformServiceName } from '@seed/platform-testing';
import { SMS_BATCH_COMMAND_TOPIC, SMS_BATCH_EVENT_TOPIC, SMS_BATCH_SERVICE_COMMAND_TOPIC } from '@seed/sms-batch-contracts';
import { VERIFICATION_COMMAND_TOPIC, VERIFICATION_EVENT_TOPIC } from '@seed/verification-contracts';
import { WEBHOOK_DISPATCHER_COMMAND_TOPIC } from '@seed/webhook-dispatcher-contracts';

export type AclOperation = 'Read' | 'Write' | 'Describe' | 'Create';

/** One allowance, as Strimzi's KafkaUser `acls` and Kafka's ACL API both express it. */
export interface AclRule {
  resource: 'topic' | 'group';
  patternType: 'literal' | 'prefix';
  name: string;
  operations: AclOperation[];
}

/** A Kafka user (`User:<name>`) and everything it is allowed; nothing else is. */
export interface KafkaPrincipal {
  name: string;
  /** The service that runs as it, or `null` for a reader outside the platform. */
  service: string | null;
  acls: AclRule[];
}

export interface PrincipalOptions {
  /** KAFKA_TOPIC_PREFIX of the installation: every topic and group name starts with it. */
  topicPrefix?: string;
  /** Prepended to each service name to make its user name (default `seed-`). */
  userPrefix?: string;
  /**
   * Whether the services may create their topics at start. A self-run cluster needs it; with
   * Strimzi the KafkaTopics of k8s/components/operators make them and the services only find them.
   */
  createTopics?: boolean;
}

/** What one service reads, writes and joins; names before KAFKA_TOPIC_PREFIX. */
interface ServiceTopics {
  reads: string[];
  writes: string[];
  /** Topics it only creates (at start) and describes. */
  declares?: string[];
  /** Consumer groups it joins; a name ending in `.` is a prefix (one group per replica). */
  groups: string[];
}

const dlq = (topic: string) => `${topic}.dlq`;
const replies = (service: string) => `${service}.replies.v1`;

/**
 * Who may do what. Derived from the code: each service's ServiceDefinition `topics`, its command
 * server (reads its command topics, dead-letters to `<topic>.dlq`, replies to the requester's
 * `*.replies.v1`, which KafkaCommandServer checks), its command bus (writes other services' command
 * topics, reads its own reply topic in a group per replica) and its outbox relay (its event topic).
 * The e2e test `least-privilege.e2e.spec.ts` runs the whole stack under exactly these rights.
 * The services themselves are those of tools/stack/processes.json: one entry each, by name.
 */
const SERVICE_TOPICS: Record<PlatformServiceName, ServiceTopics> = {
  'api-gateway': {
    reads: [replies('api-gateway')],
    writes: [SMS_BATCH_COMMAND_TOPIC, VERIFICATION_COMMAND_TOPIC, AGENT_TOKEN_COMMAND_TOPIC, WEBHOOK_DISPATCHER_COMMAND_TOPIC],
    groups: [`${replies('api-gateway')}.`],
  },
  'sms-batch': {
    reads: [SMS_BATCH_COMMAND_TOPIC, SMS_BATCH_SERVICE_COMMAND_TOPIC],
    writes: [dlq(SMS_BATCH_COMMAND_TOPIC), SMS_BATCH_EVENT_TOPIC, replies('api-gateway'), replies('verification'), replies('agent-token')],
    groups: ['sms-batch'],
  },
  verification: {
    reads: [VERIFICATION_COMMAND_TOPIC, replies('verification')],
    writes: [dlq(VERIFICATION_COMMAND_TOPIC), VERIFICATION_EVENT_TOPIC, SMS_BATCH_SERVICE_COMMAND_TOPIC, replies('api-gateway')],
    groups: ['verification', `${replies('verification')}.`],
  },
  'agent-token': {
    reads: [AGENT_TOKEN_COMMAND_TOPIC, replies('agent-token')],
    writes: [dlq(AGENT_TOKEN_COMMAND_TOPIC), AGENT_TOKEN_EVENT_TOPIC, SMS_BATCH_SERVICE_COMMAND_TOPIC, replies('api-gateway')],
    groups: ['agent-token', `${replies('agent-token')}.`],
  },
  'webhook-dispatcher': {
    reads: [SMS_BATCH_EVENT_TOPIC, WEBHOOK_DISPATCHER_COMMAND_TOPIC],
    writes: [dlq(WEBHOOK_DISPATCHER_COMMAND_TOPIC), dlq(`${SMS_BATCH_EVENT_TOPIC}.webhook-dispatcher`), replies('api-gateway')],
    declares: ['webhook-dispatcher.events.v1'],
    groups: ['webhook-dispatcher', 'webhook-dispatcher.sms-batch-events', 'webhook-dispatcher.final-status-watch'],
  },
};

/** The public event topics a team's own service may subscribe to (docs/events.md). */
export const PUBLIC_EVENT_TOPICS = [SMS_BATCH_EVENT_TOPIC, VERIFICATION_EVENT_TOPIC, AGENT_TOKEN_EVENT_TOPIC];

/** The services' principals with their ACLs, plus `<prefix>events-reader`, a read-only user for subscribers. */
export function kafkaPrincipals(options: PrincipalOptions = {}): KafkaPrincipal[] {
  const prefix = options.topicPrefix ?? '';
  const userPrefix = options.userPrefix ?? 'seed-';
  // The gateway first, then the back-end services: the order of the committed KafkaUsers in k8s/.
  const services = platformServices().map(({ name: service }) => {
    const { reads, writes, declares = [], groups } = SERVICE_TOPICS[service];
    const own = (operations: AclOperation[]) => (name: string): AclRule => ({ resource: 'topic', patternType: 'literal', name: `${prefix}${name}`, operations });
    const describe: AclOperation[] = options.createTopics ? ['Describe', 'Create'] : ['Describe'];
    const acls: AclRule[] = [
      ...reads.map(own(['Read', ...describe])),
      ...writes.map(own(['Write', ...describe])),
      ...declares.map(own(describe)),
      ...groups.map((group): AclRule => ({ resource: 'group', patternType: group.endsWith('.') ? 'prefix' : 'literal', name: `${prefix}${group}`, operations: ['Read', 'Describe'] })),
    ];
    return { name: `${userPrefix}${service}`, service, acls: mergeSameTopic(acls) };
  });
  const reader: KafkaPrincipal = {
    name: `${userPrefix}events-reader`,
    service: null,
    acls: [
      ...PUBLIC_EVENT_TOPICS.map((name): AclRule => ({ resource: 'topic', patternType: 'literal', name: `${prefix}${name}`, operations: ['Read', 'Describe'] })),
      { resource: 'group', patternType: 'prefix', name: `${prefix}events-reader.`, operations: ['Read', 'Describe'] },
    ],
  };
  return [...services, reader];
}

/** A topic both read and written (a reply topic a service also probes) gets one rule with both. */
function mergeSameTopic(rules: AclRule[]): AclRule[] {
  const merged = new Map<string, AclRule>();
  for (const rule of rules) {
    const key = `${rule.resource}:${rule.patternType}:${rule.name}`;
    const seen = merged.get(key);
    if (seen) seen.operations = [...new Set([...seen.operations, ...rule.operations])];
    else merged.set(key, { ...rule, operations: [...rule.operations] });
  }
  return [...merged.values()];
}
