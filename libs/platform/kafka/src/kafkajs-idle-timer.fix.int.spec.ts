import RequestQueue from 'kafkajs/src/network/requestQueue';
import { testKafka, uniqueName } from '@seed/platform-testing';
import { deleteTopicsAndGroups } from './kafka.test-helpers';
import type { KafkaConnection } from './kafka-connection';
import { MessageProducer } from './message-producer';
import { ensureTopics, eventTopic } from './topic-spec';

let kafka: KafkaConnection;

beforeAll(async () => {
  kafka = testKafka(uniqueName('it_idle_timer'));
  await ensureTopics(kafka, [eventTopic('events')]);
});

afterAll(async () => {
  if (kafka) await deleteTopicsAndGroups(kafka);
});

describe('kafkajs idle timer fix', () => {
  it('leaves an idle connection asleep: no pending-request checks once its requests are answered', async () => {
    const producer = new MessageProducer(kafka);
    try {
      await producer.send('events', [{ key: 'k', value: { n: 1 }, headers: {} }]);
      const original = RequestQueue.prototype.checkPendingRequests;
      let checks = 0;
      RequestQueue.prototype.checkPendingRequests = function (this: RequestQueue) {
        checks++;
        return original.call(this);
      };
      try {
        await new Promise((resolve) => setTimeout(resolve, 300));
      } finally {
        RequestQueue.prototype.checkPendingRequests = original;
      }
      // Unpatched kafkajs 2.2.4 checks about once a millisecond per connection here.
      expect(checks).toBeLessThan(5);
    } finally {
      await producer.disconnect();
    }
  });
});
