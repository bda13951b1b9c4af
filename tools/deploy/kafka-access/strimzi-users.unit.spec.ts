import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { aclEntries } from './apply-acls';
import { kafkaPrincipals } from './service-principals';
import { strimziKafkaUsers } from './strimzi-users';

const ROOT = join(__dirname, '../../..');

describe('the Kafka principals', () => {
  it('are declared in the operator overlay exactly as the manifest has them', () => {
    const committed = readFileSync(join(ROOT, 'k8s/components/operators/kafka-users.yaml'), 'utf8');
    expect(committed).toBe(strimziKafkaUsers(kafkaPrincipals()));
  });

  it('give a service no right on a topic it does not use: the dispatcher writes no command topic but its own dead letters', () => {
    const dispatcher = kafkaPrincipals().find((p) => p.service === 'webhook-dispatcher')!;
    const writable = dispatcher.acls.filter((rule) => rule.operations.includes('Write')).map((rule) => rule.name);
    expect(writable.sort()).toEqual(['api-gateway.replies.v1', 'sms-batch.events.v1.webhook-dispatcher.dlq', 'webhook-dispatcher.commands.v1.dlq']);
  });

  it('let only the gateway write sms-batch commands, verification and agent-token only its sends, and only sms-batch its events', () => {
    const writers = (topic: string) =>
      kafkaPrincipals()
        .filter((p) => p.acls.some((rule) => rule.name === topic && rule.operations.includes('Write')))
        .map((p) => p.name)
        .sort();
    expect(writers('sms-batch.commands.v1')).toEqual(['seed-api-gateway']);
    expect(writers('sms-batch.service-commands.v1')).toEqual(['seed-agent-token', 'seed-verification']);
    expect(writers('sms-batch.events.v1')).toEqual(['seed-sms-batch']);
  });

  it('put KAFKA_TOPIC_PREFIX before every topic and group, and allow creating topics only when asked', () => {
    const prefixed = kafkaPrincipals({ topicPrefix: 'blue.', createTopics: true });
    expect(prefixed.flatMap((p) => p.acls).every((rule) => rule.name.startsWith('blue.'))).toBe(true);
    expect(prefixed.flatMap((p) => p.acls).some((rule) => rule.operations.includes('Create'))).toBe(true);
    expect(kafkaPrincipals().flatMap((p) => p.acls).some((rule) => rule.operations.includes('Create'))).toBe(false);
  });

  it('become one Kafka ACL entry per operation, allowed from any host', () => {
    const reader = kafkaPrincipals().find((p) => p.name === 'seed-events-reader')!;
    const entries = aclEntries(reader);
    expect(entries).toHaveLength(reader.acls.reduce((n, rule) => n + rule.operations.length, 0));
    expect(new Set(entries.map((e) => `${e.principal} ${e.host}`))).toEqual(new Set(['User:seed-events-reader *']));
  });
});
