import {
  AclOperationTypes,
  AclPermissionTypes,
  AclResourceTypes,
  ResourcePatternTypes,
  type Admin,
  type AclEntry,
} from 'kafkajs';
import type { AclOperation, AclRule, KafkaPrincipal } from './service-principals';

const OPERATIONS: Record<AclOperation, AclOperationTypes> = {
  Read: AclOperationTypes.READ,
  Write: AclOperationTypes.WRITE,
  Describe: AclOperationTypes.DESCRIBE,
  Create: AclOperationTypes.CREATE,
};

/** Kafka's ACL entries (allow, any host) for one principal's rules. */
export function aclEntries(principal: KafkaPrincipal): AclEntry[] {
  return principal.acls.flatMap((rule: AclRule) =>
    rule.operations.map(
      (operation): AclEntry => ({
        resourceType: rule.resource === 'topic' ? AclResourceTypes.TOPIC : AclResourceTypes.GROUP,
        resourceName: rule.name,
        resourcePatternType: rule.patternType === 'prefix' ? ResourcePatternTypes.PREFIXED : ResourcePatternTypes.LITERAL,
        principal: `User:${principal.name}`,
        host: '*',
        operation: OPERATIONS[operation],
        permissionType: AclPermissionTypes.ALLOW,
      }),
    ),
  );
}

const keyOf = (e: AclEntry) => [e.resourceType, e.resourceName, e.resourcePatternType, e.principal, e.host, e.operation, e.permissionType].join('|');

/**
 * Makes the cluster's ACLs of these principals exactly the given ones: missing entries are
 * created, entries of the same principals that the rules no longer name are deleted (a right taken
 * out of the manifest is taken from the cluster too). Run with a principal allowed to alter ACLs
 * (a super user). Returns what changed.
 */
export async function applyAcls(admin: Admin, principals: KafkaPrincipal[]): Promise<{ created: number; deleted: number }> {
  const wanted = new Map(principals.flatMap(aclEntries).map((e) => [keyOf(e), e]));
  const existing: AclEntry[] = [];
  for (const principal of principals) {
    const { resources } = await admin.describeAcls({
      resourceType: AclResourceTypes.ANY,
      resourcePatternType: ResourcePatternTypes.ANY,
      principal: `User:${principal.name}`,
      operation: AclOperationTypes.ANY,
      permissionType: AclPermissionTypes.ANY,
    });
    for (const resource of resources) {
      for (const acl of resource.acls) existing.push({ ...acl, resourceType: resource.resourceType, resourceName: resource.resourceName, resourcePatternType: resource.resourcePatternType });
    }
  }
  const present = new Set(existing.map(keyOf));
  const missing = [...wanted.values()].filter((e) => !present.has(keyOf(e)));
  const stale = existing.filter((e) => !wanted.has(keyOf(e)));
  if (missing.length > 0) await admin.createAcls({ acl: missing });
  if (stale.length > 0) await admin.deleteAcls({ filters: stale });
  return { created: missing.length, deleted: stale.length };
}
