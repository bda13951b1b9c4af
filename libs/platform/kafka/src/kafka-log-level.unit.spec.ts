import { logLevel } from 'kafkajs';
import { kafkaLogLevel } from './kafka-log-level';

describe('kafkaLogLevel', () => {
  it.each([
    ['This server is not the leader for that topic-partition', 'Response Produce(key: 0, version: 7)'],
    ['This server does not host this topic-partition', 'Response Metadata(key: 3, version: 6)'],
    ['The group is rebalancing, so a rejoin is needed', 'Response Heartbeat(key: 12, version: 3)'],
    ['Topic with this name already exists', 'Response CreateTopics(key: 19, version: 3)'],
    ['The coordinator is loading and hence can\'t process requests for this group', 'Response JoinGroup(key: 11, version: 5)'],
  ])('reads a broker answer with an expected protocol error (%s) as a warning', (error, message) => {
    expect(kafkaLogLevel(logLevel.ERROR, { message, error })).toBe('warn');
  });

  it('keeps what an operator must see at error level: refusals, crashes, and anything else kafkajs calls an error', () => {
    expect(kafkaLogLevel(logLevel.ERROR, { message: 'Response Produce(key: 0, version: 7)', error: 'Not authorized to access topics: [Topic authorization failed]' })).toBe('error');
    expect(kafkaLogLevel(logLevel.ERROR, { message: 'Response Produce(key: 0, version: 7)', error: 'The request included a message larger than the max message size the server will accept' })).toBe('error');
    expect(kafkaLogLevel(logLevel.ERROR, { message: 'Failed to send messages: Not authorized to access topics: [Topic authorization failed]' })).toBe('error');
    expect(kafkaLogLevel(logLevel.ERROR, { message: 'Response CreateTopics(key: 19, version: 3)', error: 'Not authorized to access topics: [Topic authorization failed]' })).toBe('error');
    expect(kafkaLogLevel(logLevel.ERROR, { message: 'Response Produce(key: 0, version: 7)' })).toBe('error');
  });

  it.each([
    'Connection error: connect ECONNREFUSED 127.0.0.1:9092',
    'Failed to connect to seed broker, trying another broker from the list: Connection error: connect ECONNREFUSED 127.0.0.1:9092',
    'Crash: KafkaJSNumberOfRetriesExceeded: Connection error: connect ECONNREFUSED 127.0.0.1:9092',
    "Crash: KafkaJSProtocolError: The coordinator is loading and hence can't process requests for this group",
    'Restarting the consumer in 5000ms',
    'Failed to send messages: This server is not the leader for that topic-partition',
    'Failed to send messages: Connection error: connect ECONNREFUSED 127.0.0.1:22008',
    'Failed to send messages: Closed connection',
    'Request Produce(key: 0, version: 7) timed out',
    'The broker received an out of order sequence number',
  ])('reads a line of a broker restart (%s) as a warning', (message) => {
    expect(kafkaLogLevel(logLevel.ERROR, { message })).toBe('warn');
  });

  it('reads "Topic creation errors" as a warning: another replica created the topic first, and ensureTopics reports a refusal', () => {
    expect(kafkaLogLevel(logLevel.ERROR, { message: 'Response CreateTopics(key: 19, version: 3)', error: 'Topic creation errors' })).toBe('warn');
  });

  it('passes kafkajs\'s other levels through', () => {
    expect(kafkaLogLevel(logLevel.WARN, { message: 'anything' })).toBe('warn');
    expect(kafkaLogLevel(logLevel.INFO, { message: 'anything' })).toBe('info');
    expect(kafkaLogLevel(logLevel.DEBUG, { message: 'anything' })).toBe('debug');
  });
});
