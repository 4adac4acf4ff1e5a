import { DynamicModule, Module, OnApplicationShutdown } from '@nestjs/common';
import { PrometheusModule } from '@willsoto/nestjs-prometheus';
import { register } from 'prom-client';
import { HttpMetricsModule } from './http-metrics';
import { METRICS_PATH, MetricsController } from './metrics.controller';

/**
 * prom-client's totals of active handles, requests and resources: gauges
 * named `_total`, which `promtool check metrics` refuses (only counters end
 * so). The per-type gauges without the suffix (`nodejs_active_handles`, …)
 * carry the same figures.
 */
const MISNAMED_DEFAULT_METRICS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/**
 * GET /metrics in the Prometheus text format (prom-client, through
 * @willsoto/nestjs-prometheus), the HTTP request figures and the Node
 * process's own (CPU, memory, event loop, GC): only with METRICS_TOKEN.
 * Without it the route does not exist and no request is timed.
 *
 * Every other figure belongs to the module that owns what it counts,
 * declared there with the library's providers: counters it increments, and
 * gauges read on scrape from its own service (docs/decisions.md#metrics).
 * This module reads no feature's data.
 */
@Module({})
export class MetricsModule implements OnApplicationShutdown {
  static forRoot({ enabled }: { enabled: boolean }): DynamicModule {
    if (!enabled) return { module: MetricsModule };
    // Registers the route and the process's default metrics at once.
    const prometheus = PrometheusModule.register({ controller: MetricsController, path: METRICS_PATH, defaultMetrics: { enabled: true } });
    for (const name of MISNAMED_DEFAULT_METRICS) register.removeSingleMetric(name);
    return { module: MetricsModule, imports: [prometheus, HttpMetricsModule] };
  }

  /**
   * The figures live in prom-client's registry of the process, which holds
   * one application (in production). Emptied when it closes, so an
   * application started after it in the same process (tests) counts from
   * zero and its gauges read its own services.
   */
  onApplicationShutdown(): void {
    register.clear();
  }
}
