// The platform's Kafka principals and their ACLs (service-principals.ts), for a cluster run by hand
// or by Strimzi:
//
//   npm run kafka:access -- print                  the principals and their rules, as JSON
//   npm run kafka:access -- strimzi                the KafkaUser resources (k8s/components/operators/kafka-users.yaml)
//   npm run kafka:access -- apply [--create-topics]
//       makes the cluster's ACLs of these users exactly the manifest's, connecting with KAFKA_BROKERS,
//       KAFKA_SSL_CA and KAFKA_SASL_* of a user allowed to alter ACLs; topic and group names get
//       KAFKA_TOPIC_PREFIX. --create-topics lets the services create their topics at start.
//       The users themselves (their SCRAM credentials) are made with kafka-configs.sh
//       (docs/security.md, "Kafka").
import { Kafka, logLevel } from 'kafkajs';
import { kafkaClientOptions } from '@seed/platform-config';
import { applyAcls } from './apply-acls';
import { kafkaPrincipals } from './service-principals';
import { strimziKafkaUsers } from './strimzi-users';

async function main(args: string[]): Promise<void> {
  const [command] = args;
  if (command === 'print') {
    console.log(JSON.stringify(kafkaPrincipals({ topicPrefix: process.env['KAFKA_TOPIC_PREFIX'] ?? '' }), null, 2));
  } else if (command === 'strimzi') {
    process.stdout.write(strimziKafkaUsers(kafkaPrincipals()));
  } else if (command === 'apply') {
    const { brokers, prefix, security } = kafkaClientOptions();
    const admin = new Kafka({ clientId: 'seed-kafka-access', brokers, ...security, logLevel: logLevel.ERROR }).admin();
    await admin.connect();
    try {
      const changed = await applyAcls(admin, kafkaPrincipals({ topicPrefix: prefix, createTopics: args.includes('--create-topics') }));
      console.log(`ACLs applied: ${changed.created} created, ${changed.deleted} deleted`);
    } finally {
      await admin.disconnect();
    }
  } else {
    console.error('usage: npm run kafka:access -- print | strimzi | apply [--create-topics]');
    process.exitCode = 2;
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
