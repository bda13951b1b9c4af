import type { OpenAPIObject } from '@nestjs/swagger';

type Node = Record<string, unknown>;

/**
 * OpenAPI 3.1 schemas are JSON Schema 2020-12, which has no `nullable`: a value that may be null
 * says so with the type `null`. The decorators speak 3.0 (`nullable: true`), so every such schema
 * is rewritten: `{type: "string", nullable: true}` becomes `{type: ["string", "null"]}` (an enum
 * gains `null` too), and a reference (`$ref`, `allOf`) becomes `anyOf: [<it>, {type: "null"}]`.
 */
export function withJsonSchemaNulls(document: OpenAPIObject): OpenAPIObject {
  return rewrite(document) as OpenAPIObject;
}

function rewrite(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewrite);
  if (value === null || typeof value !== 'object') return value;
  const node = Object.fromEntries(Object.entries(value as Node).map(([key, child]) => [key, rewrite(child)])) as Node;
  if (node['nullable'] !== true) return node;
  const { nullable: _nullable, ...schema } = node;
  const composite = ['$ref', 'allOf', 'oneOf', 'anyOf'].some((key) => key in schema);
  if (typeof schema['type'] === 'string' && !composite) {
    return {
      ...schema,
      type: [schema['type'], 'null'],
      ...(Array.isArray(schema['enum']) ? { enum: [...(schema['enum'] as unknown[]), null] } : {}),
    };
  }
  // Annotations stay beside the alternatives, where readers and tools look for them. The
  // `type: "object"` the decorators put beside a nullable reference would refuse null, and a
  // lone `allOf` is the reference itself.
  const { description, example, examples, type: _type, ...rest } = schema;
  const allOf = rest['allOf'];
  const alternative = Array.isArray(allOf) && allOf.length === 1 && Object.keys(rest).length === 1 ? (allOf[0] as Node) : rest;
  return {
    ...(description !== undefined ? { description } : {}),
    anyOf: [alternative, { type: 'null' }],
    ...(example !== undefined ? { example } : {}),
    ...(examples !== undefined ? { examples } : {}),
  };
}
