import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an OTLP/HTTP JSON export carries it, with the service that sent it. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  /** OTLP span kind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  links: { traceId: string; spanId: string }[];
}

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type KeyValue = { key: string; value: AnyValue };
interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: {
      spans?: { traceId: string; spanId: string; parentSpanId?: string; name: string; kind?: number; attributes?: KeyValue[]; links?: { traceId: string; spanId: string }[] }[];
    }[];
  }[];
}

const valueOf = (v: AnyValue): string | number | boolean => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue ?? ''));
const attributesOf = (list: KeyValue[] = []) => Object.fromEntries(list.map((kv) => [kv.key, valueOf(kv.value)]));
/** OTLP JSON ids are hex; some encoders send base64 (the protobuf JSON mapping): both end up hex. */
const hexId = (id: string | undefined): string => (!id ? '' : /^[\da-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex'));

/**
 * An in-process OTLP/HTTP trace receiver (JSON, `POST /v1/traces`) for tests: point a service's
 * `OTEL_EXPORTER_OTLP_ENDPOINT` at `url` and read the spans it sent.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];

  private constructor(private readonly server: Server) {}

  static async start(): Promise<OtlpReceiver> {
    const receiver: OtlpReceiver = new OtlpReceiver(
      createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          try {
            receiver.take(JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportRequest);
            res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
          } catch {
            res.writeHead(400).end();
          }
        });
      }),
    );
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The spans of one trace. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private take(request: ExportRequest): void {
    for (const resourceSpans of request.resourceSpans ?? []) {
      const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? '');
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            service,
            traceId: hexId(span.traceId),
            spanId: hexId(span.spanId),
            parentSpanId: span.parentSpanId ? hexId(span.parentSpanId) : null,
            name: span.name,
            kind: span.kind ?? 1,
            attributes: attributesOf(span.attributes),
            links: (span.links ?? []).map((l) => ({ traceId: hexId(l.traceId), spanId: hexId(l.spanId) })),
          });
        }
      }
    }
  }
}
