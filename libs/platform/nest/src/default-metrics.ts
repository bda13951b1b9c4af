import { collectDefaultMetrics } from 'prom-client';

// Process metrics (CPU, memory, event loop, GC) on every service's /metrics, from its first moment:
// imported by the start-up listener and the health controller, run once.
collectDefaultMetrics();
