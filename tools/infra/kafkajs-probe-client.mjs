// The probe's kafkajs and broker list: kafkajs from the repository's node_modules (or
// $KAFKAJS_MODULE), brokers from $KAFKA_BROKERS or .local/infra.env, and the secure broker's TLS and
// SASL settings when they are given. Used by kafkajs-probe.mjs.
import { createRequire } from 'node:module';
import { readFileSync, existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** kafkajs as the services load it, with where it came from and its version; null when it cannot be loaded. */
export function loadKafkajs(repoRoot) {
  const tries = [];
  if (process.env.KAFKAJS_MODULE) tries.push(process.env.KAFKAJS_MODULE);
  tries.push('kafkajs');
  const req = createRequire(resolve(repoRoot, 'package.json'));
  for (const t of tries) {
    try {
      const from = req.resolve(t);
      let version = '?';
      for (let d = dirname(from); d !== dirname(d); d = dirname(d)) {
        const pj = resolve(d, 'package.json');
        if (!existsSync(pj)) continue;
        try {
          const j = JSON.parse(readFileSync(pj, 'utf8'));
          if (j.name === 'kafkajs') {
            version = j.version;
            break;
          }
        } catch {
          /* ignore */
        }
      }
      return { mod: req(t), from, version };
    } catch {
      /* next */
    }
  }
  return null;
}

/** $KAFKA_BROKERS, else KAFKA_BROKERS from .local/infra.env, else the local default. */
export function brokers(repoRoot) {
  let list = process.env.KAFKA_BROKERS;
  if (!list) {
    const envFile = resolve(repoRoot, '.local', 'infra.env');
    if (existsSync(envFile)) {
      const m = readFileSync(envFile, 'utf8').match(/^KAFKA_BROKERS=(.*)$/m);
      if (m) list = m[1].trim();
    }
  }
  return (list || '127.0.0.1:59092').split(',').map((s) => s.trim()).filter(Boolean);
}

// A broker started with KAFKA_SECURITY=scram-tls is probed over TLS as its admin user (infra.sh
// passes KAFKA_SSL_CA and KAFKA_SASL_* for that).
export const security = {
  ...(process.env.KAFKA_SSL_CA ? { ssl: { ca: [readFileSync(process.env.KAFKA_SSL_CA, 'utf8')] } } : {}),
  ...(process.env.KAFKA_SASL_MECHANISM
    ? { sasl: { mechanism: process.env.KAFKA_SASL_MECHANISM, username: process.env.KAFKA_SASL_USERNAME, password: process.env.KAFKA_SASL_PASSWORD } }
    : {}),
};
