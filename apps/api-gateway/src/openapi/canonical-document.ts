import type { OpenAPIObject } from '@nestjs/swagger';

type Node = Record<string, unknown>;

const TOP_LEVEL = ['openapi', 'info', 'tags', 'paths', 'components'];
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/**
 * One order for every document, whatever order decorators ran in: paths, status codes and
 * component names sorted, methods in a fixed order, the top level as readers expect it. Schema
 * properties keep the order they are declared in, which is the order a reader wants them in.
 * Empty `servers` and `contact` (DocumentBuilder's defaults) are dropped: clients then use the
 * address the document came from.
 */
export function canonicalDocument(document: OpenAPIObject): OpenAPIObject {
  const { servers, ...rest } = document as OpenAPIObject & Node;
  const info = Object.fromEntries(Object.entries(document.info).filter(([key, value]) => !(key === 'contact' && isEmpty(value))));
  const top: Node = { ...rest, info, ...(Array.isArray(servers) && servers.length > 0 ? { servers } : {}) };
  const ordered: Node = {};
  for (const key of [...TOP_LEVEL, ...Object.keys(top).filter((key) => !TOP_LEVEL.includes(key)).sort()]) {
    if (top[key] !== undefined) ordered[key] = top[key];
  }
  ordered['paths'] = sortedKeys(document.paths, (item) => orderedPathItem(item as Node));
  const components = document.components ?? {};
  ordered['components'] = Object.fromEntries(
    Object.entries(components)
      .sort(([a], [b]) => byCodeUnits(a, b))
      .map(([key, value]) => [key, sortedKeys(value as Node, (v) => v)]),
  );
  return ordered as unknown as OpenAPIObject;
}

function orderedPathItem(item: Node): Node {
  const keys = Object.keys(item).sort((a, b) => rank(a) - rank(b) || byCodeUnits(a, b));
  return Object.fromEntries(keys.map((key) => [key, METHODS.includes(key) ? orderedOperation(item[key] as Node) : item[key]]));
}

function orderedOperation(operation: Node): Node {
  const responses = operation['responses'] as Node | undefined;
  return responses ? { ...operation, responses: sortedKeys(responses, (v) => v) } : operation;
}

const rank = (key: string): number => (METHODS.includes(key) ? METHODS.indexOf(key) + 1 : 0);

function sortedKeys(node: Node, map: (value: unknown) => unknown): Node {
  return Object.fromEntries(
    Object.keys(node)
      .sort(byCodeUnits)
      .map((key) => [key, map(node[key])]),
  );
}

// Not localeCompare: its order depends on the ICU data Node was built with.
const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const isEmpty = (value: unknown): boolean => typeof value === 'object' && value !== null && Object.keys(value).length === 0;
