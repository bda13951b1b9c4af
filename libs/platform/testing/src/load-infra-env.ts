import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Integration and end-to-end tests use the infrastructure `tools/infra/infra.sh up` started
 * (its settings are in .local/infra.env) unless DATABASE_URL / KAFKA_BROKERS are already given.
 */
const file = join(__dirname, '../../../../.local/infra.env');
if (existsSync(file)) {
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const match = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (match?.[1] && match[2] !== undefined && !process.env[match[1]]) process.env[match[1]] = match[2];
  }
}
process.env['KAFKAJS_NO_PARTITIONER_WARNING'] = '1';
