import type { DataSource } from 'typeorm';
import { ensureTopics, eventTopic, MessageProducer, type KafkaConnection } from '@seed/platform-kafka';
import { eventually, testKafka, testLogger, uniqueName } from '@seed/platform-testing';
import { SMS_BATCH_EVENT_TOPIC } from '@seed/sms-batch-contracts';
import { INTAKE_DEAD_LETTERS } from '../intake/status-event.consumer';
import { closeTestDeliveryStore, openTestDeliveryStore, testStatusChange, type TestDeliveryStore, type TestStatusChange } from '../sending/sender.test-helpers';
import { FinalStatusReconciler } from './final-status-reconciler';
import { FinalStatusWatch } from './final-status-watch';
import { FinalStatusWatchConsumer } from './final-status-watch.consumer';

/**
 * The final-status reconciliation against the real broker and schema: a final status change that
 * nothing handled is reported once it is old enough; handled ones (scheduled by the intake, or
 * posted directly with success) leave the watch; changes with nowhere to go, and changes that are
 * not final, are never watched.
 */
const schema = uniqueName('it_wh_reconcile');
let store: TestDeliveryStore;
let ds: DataSource;
let connection: KafkaConnection;
let producer: MessageProducer;
let consumer: FinalStatusWatchConsumer;
let watch: FinalStatusWatch;

beforeAll(async () => {
  store = await openTestDeliveryStore(schema);
  ds = store.ds;
  connection = testKafka(schema);
  await ensureTopics(connection, [eventTopic(SMS_BATCH_EVENT_TOPIC), INTAKE_DEAD_LETTERS]);
  producer = new MessageProducer(connection);
  watch = new FinalStatusWatch(ds, schema);
  consumer = new FinalStatusWatchConsumer(connection, producer, ds, store.intake, watch, testLogger());
  await consumer.start();
});

afterAll(async () => {
  await consumer?.stop();
  await producer?.disconnect();
  const admin = connection.kafka.admin();
  await admin.connect();
  await admin.deleteTopics({ topics: [connection.topic(SMS_BATCH_EVENT_TOPIC), connection.topic(INTAKE_DEAD_LETTERS.name)] }).catch(() => undefined);
  await admin.disconnect();
  await closeTestDeliveryStore(ds, schema);
});

const change = (type: 'MessageSent' | 'MessageDelivered' | 'MessageUndelivered', url: string | null): TestStatusChange => testStatusChange(type, { url });

const watched = async (): Promise<string[]> => ((await ds.query(`SELECT event_id FROM "${schema}".final_status_watch ORDER BY event_id`)) as { event_id: string }[]).map((r) => r.event_id);

it('reports the final status nothing handled, and only it', async () => {
  const url = 'https://hooks.example.com/reconcile';
  const lost = change('MessageDelivered', url);
  const scheduled = change('MessageUndelivered', url);
  const postedDirectly = change('MessageDelivered', url);
  const nowhere = change('MessageDelivered', null);
  const notFinal = change('MessageSent', url);
  const all = [lost, scheduled, postedDirectly, nowhere, notFinal];
  await producer.send(SMS_BATCH_EVENT_TOPIC, all.map((e) => ({ key: e.streamId, value: e, headers: { 'message-type': e.type } })));

  // Only the final changes with somewhere to go are watched.
  const expected = [lost, scheduled, postedDirectly].map((e) => e.eventId).sort();
  expect(await eventually(async () => ((await watched()).length === 3 ? watched() : undefined), 20_000)).toEqual(expected);

  // One becomes a delivery (the intake), one was posted with success (the sender's record); the last is lost.
  await ds.transaction((tx) => store.intake.accept(tx, [scheduled]));
  await store.directWrites.recordSent(ds.manager, [postedDirectly.eventId]);

  const reconciler = new FinalStatusReconciler(ds, watch, 0, testLogger());
  await reconciler.pass();
  expect(await watched()).toEqual([lost.eventId]);
  expect(await watch.unreported(0, 10)).toEqual([expect.objectContaining({ eventId: lost.eventId, umid: lost.data.umid, accountId: 'acme', state: 'MessageDelivered' })]);
  expect(await ds.query(watch.unreportedCountSql(0))).toEqual([{ unreported: 1 }]);
  // Not yet old enough: not reported.
  expect(await ds.query(watch.unreportedCountSql(60_000))).toEqual([{ unreported: 0 }]);

  // Handled late (an operator had the intake read it again): it leaves the watch.
  await ds.transaction((tx) => store.intake.accept(tx, [lost]));
  await reconciler.pass();
  expect(await watched()).toEqual([]);
  expect(await ds.query(watch.unreportedCountSql(0))).toEqual([{ unreported: 0 }]);
});
