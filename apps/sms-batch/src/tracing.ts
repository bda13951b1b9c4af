// main.ts's first import: tracing (when OTEL_EXPORTER_OTLP_ENDPOINT is set) must be in place
// before anything requires `http` or `pg`, so that their calls are traced.
import { startTracing } from '@seed/platform-telemetry';

startTracing('sms-batch');
