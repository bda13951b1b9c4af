import type { OpenAPIObject } from '@nestjs/swagger';

const SCHEMA_REF = '#/components/schemas/';

/**
 * Keeps of a listener's document only what its paths use: the schemas they reference (and those
 * referenced from those), the security schemes their operations name, and the tags they carry.
 * Every listener's document is cut from one whole, so the others' parts must go.
 */
export function withoutUnusedComponents(document: OpenAPIObject): OpenAPIObject {
  const schemas = document.components?.schemas ?? {};
  const used = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (value === null || typeof value !== 'object') return;
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string' && child.startsWith(SCHEMA_REF)) {
        const name = child.slice(SCHEMA_REF.length);
        if (!used.has(name)) {
          used.add(name);
          visit(schemas[name]);
        }
      } else visit(child);
    }
  };
  visit(document.paths);

  const operations = Object.values(document.paths).flatMap((item) => Object.values(item ?? {}).filter((op): op is { security?: Record<string, string[]>[]; tags?: string[] } => typeof op === 'object' && op !== null && !Array.isArray(op)));
  const schemes = new Set(operations.flatMap((op) => (op.security ?? []).flatMap((requirement) => Object.keys(requirement))));
  const tags = new Set(operations.flatMap((op) => op.tags ?? []));

  const components = { ...document.components };
  components.schemas = Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name)));
  components.securitySchemes = Object.fromEntries(Object.entries(components.securitySchemes ?? {}).filter(([name]) => schemes.has(name)));
  return { ...document, components, tags: (document.tags ?? []).filter((tag) => tags.has(tag.name)) };
}
