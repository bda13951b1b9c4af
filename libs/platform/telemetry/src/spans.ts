import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Link, type Span } from '@opentelemetry/api';
import { contextOf, traceparentOf, tracingEnabled } from './tracing';

export { SpanKind };

const tracer = () => trace.getTracer('seed-messaging');

export interface SpanOptions {
  kind?: SpanKind;
  /** The span's parent, from a Kafka header or a stored event; the active span when undefined. */
  parent?: string | null;
  attributes?: Attributes;
  /** Other traces this work belongs to (a receipt to its submission): `traceparent`s. */
  links?: readonly (string | null | undefined)[];
}

/**
 * Runs `work` in a span (active for everything it awaits: PostgreSQL statements, HTTP calls, spans
 * started inside). Errors mark the span and are rethrown. When tracing is off it only runs `work`.
 */
export async function inSpan<T>(name: string, options: SpanOptions, work: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (!tracingEnabled()) return work(undefined);
  const parent = options.parent === undefined ? context.active() : options.parent === null ? ROOT_CONTEXT : contextOf(options.parent);
  const links: Link[] = (options.links ?? []).flatMap((tp) => {
    const linked = tp ? trace.getSpanContext(contextOf(tp)) : undefined;
    return linked ? [{ context: linked }] : [];
  });
  return tracer().startActiveSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes ?? {}, links }, parent, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** The `traceparent` to carry onward: the active span's when tracing, else the one received (passed through). */
export function onwardTraceparent(received: string | null | undefined): string | null {
  return (tracingEnabled() ? traceparentOf() : null) ?? received ?? null;
}

/**
 * One span per item, each under its own parent: a batch of events sent at once, each from another
 * request's trace. Gives the `traceparent` to carry onward for each item (the parent itself when
 * tracing is off or the item has none) and a function that ends them all.
 */
export function spansFor(
  name: string,
  kind: SpanKind,
  parents: readonly (string | null)[],
  attributes: Attributes = {},
): { traceparents: (string | null)[]; end(error?: unknown): void } {
  if (!tracingEnabled()) return { traceparents: [...parents], end: () => undefined };
  const spans = parents.map((parent) => (parent ? tracer().startSpan(name, { kind, attributes }, contextOf(parent)) : undefined));
  return {
    traceparents: spans.map((span, i) => (span ? traceparentOf(trace.setSpan(context.active(), span)) : (parents[i] ?? null))),
    end(error?: unknown) {
      for (const span of spans) {
        if (!span) continue;
        if (error) span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
        span.end();
      }
    },
  };
}
