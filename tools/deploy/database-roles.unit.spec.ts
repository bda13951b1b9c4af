// The operators component gives every service the role and schema that `npm run db:roles` would:
// the Cluster's bootstrap SQL is the tool's, its managed roles and the services' URLs match.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { rolesScript } from './database-roles-script';
import { roleOf, SERVICE_NAMES } from './database-service-schemas';

const dir = join(__dirname, '../../k8s/components/operators');
const production = { schemaPrefix: '', rolePrefix: 'seed_' };

interface ManagedRole {
  name: string;
  login: boolean;
  superuser: boolean;
  passwordSecret: { name: string };
}
interface Cluster {
  spec: { bootstrap: { initdb: { postInitApplicationSQL: string[] } }; managed: { roles: ManagedRole[] } };
}
interface DeploymentPatch {
  metadata: { name: string };
  spec: { template: { spec: { containers: { env: { name: string; value?: string; valueFrom?: unknown }[]; volumeMounts: { name: string; mountPath: string }[] }[]; volumes: { name: string; secret: unknown }[] } } };
}

const docs = <T>(file: string): T[] => parseAllDocuments(readFileSync(join(dir, file), 'utf8')).map((d) => d.toJS() as T);

describe('database roles in the operators component', () => {
  const cluster = docs<Cluster>('postgres.yaml')[0]!;

  it("bootstraps the database with the tool's own SQL", () => {
    expect(cluster.spec.bootstrap.initdb.postInitApplicationSQL).toEqual([rolesScript(production)]);
  });

  it('manages a login role per service, with its password from its own Secret', () => {
    expect(cluster.spec.managed.roles.map((r) => [r.name, r.login, r.superuser, r.passwordSecret.name])).toEqual(
      SERVICE_NAMES.map((s) => [roleOf(s, production), true, false, `seed-postgres-${s}`]),
    );
  });

  it.each(SERVICE_NAMES)("connects %s as its role, verifying the server against the cluster's CA only", (service) => {
    const patch = docs<DeploymentPatch>('database-url.patch.yaml').find((d) => d.metadata.name === service)!;
    const { containers, volumes } = patch.spec.template.spec;
    const env = Object.fromEntries(containers[0]!.env.map((e) => [e.name, e]));
    const url = new URL(env['DATABASE_URL']?.value ?? '');
    expect(url.username).toBe(roleOf(service, production));
    expect(url.password).toBe('');
    expect(url.searchParams.get('sslmode')).toBe('verify-full');
    expect(env['PGPASSWORD']?.valueFrom).toEqual({ secretKeyRef: { name: `seed-postgres-${service}`, key: 'password' } });
    const mount = containers[0]!.volumeMounts.find((m) => m.name === 'postgres-ca')!;
    expect(url.searchParams.get('sslrootcert')).toBe(`${mount.mountPath}/ca.crt`);
    // Only the certificate: the same Secret holds the CA's private key.
    expect(volumes.find((v) => v.name === 'postgres-ca')?.secret).toEqual({ secretName: 'seed-postgres-ca', items: [{ key: 'ca.crt', path: 'ca.crt' }] });
  });

  it('refuses names PostgreSQL would cut', () => {
    expect(() => roleOf('webhook-dispatcher', { schemaPrefix: 'p'.repeat(41), rolePrefix: 'seed_' })).toThrow('longer than 63 bytes');
    expect(() => roleOf('sms-batch', { schemaPrefix: 'Bad-', rolePrefix: 'seed_' })).toThrow('not a plain');
  });
});
