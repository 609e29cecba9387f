import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config.js';
import type { Metrics } from '../metrics/metrics.js';
import { listen, type HttpServer } from './server.js';
import type { HealthMonitor } from '../monitor/health.js';

/**
 * What a worker-only process serves on WORKER_METRICS_PORT: /metrics for Prometheus and the
 * /livez and /readyz probes. Plain node:http on purpose: no API surface, no authentication.
 */
export async function createProbeServer(
  config: Config,
  deps: { metrics: Metrics; health: HealthMonitor; accepting: () => boolean },
): Promise<HttpServer> {
  const send = (res: ServerResponse, status: number, type: string, body: string): void => {
    res.writeHead(status, { 'Content-Type': type });
    res.end(body);
  };
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const path = (req.url ?? '/').split('?')[0];
    const answer = async (): Promise<void> => {
      if (req.method !== 'GET') return send(res, 405, 'application/json', JSON.stringify({ status: 'method not allowed' }));
      if (path === '/metrics') return send(res, 200, deps.metrics.registry.contentType, await deps.metrics.registry.metrics());
      if (path === '/livez') return send(res, 200, 'application/json', JSON.stringify({ status: 'alive' }));
      if (path === '/readyz') {
        const ready = deps.accepting() && (await deps.health.ready());
        return send(res, ready ? 200 : 503, 'application/json', JSON.stringify({ status: ready ? 'ready' : 'not ready' }));
      }
      send(res, 404, 'application/json', JSON.stringify({ status: 'not found' }));
    };
    answer().catch((error: unknown) => send(res, 500, 'application/json', JSON.stringify({ status: String(error) })));
  };
  return listen({ ...config, tls: undefined }, handler, config.workerMetricsPort);
}
