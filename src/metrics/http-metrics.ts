import { Injectable, MiddlewareConsumer, Module, NestMiddleware, NestModule } from '@nestjs/common';
import { InjectMetric, makeGaugeProvider, makeHistogramProvider } from '@willsoto/nestjs-prometheus';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Gauge, Histogram } from 'prom-client';
import { routeTemplateOf } from '../common/http/http-request';
import { METRICS_PATH } from './metrics.controller';

const REQUEST_DURATION = 'registry_http_request_duration_seconds';
const REQUESTS_IN_FLIGHT = 'registry_http_requests_in_flight';

type RequestLabel = 'method' | 'route' | 'status_class';

/** The route label of a request no route matched (any path: never the path itself). */
export const UNMATCHED_ROUTE = 'unmatched';

/** `2xx` … `5xx`, or `aborted` when the client went away before the reply was sent. */
export function statusClassOf(res: ServerResponse): string {
  return res.writableFinished ? `${Math.floor(res.statusCode / 100)}xx` : 'aborted';
}

/** A scrape, as Express would route it (case and a trailing slash ignored): never counted in the figures it reads. */
const SCRAPE = new RegExp(`^/${METRICS_PATH}/?(?:\\?|$)`, 'i');

/**
 * Times every request but scrapes: its duration by method, route template
 * and status class, and how many are in flight. The route is known once
 * the reply is done (Express matched it meanwhile).
 */
@Injectable()
export class HttpMetricsMiddleware implements NestMiddleware {
  constructor(
    @InjectMetric(REQUEST_DURATION) private readonly durations: Histogram<RequestLabel>,
    @InjectMetric(REQUESTS_IN_FLIGHT) private readonly inFlight: Gauge,
  ) {}

  use(req: IncomingMessage & { originalUrl?: string }, res: ServerResponse, next: () => void): void {
    if (SCRAPE.test(req.originalUrl ?? req.url ?? '')) {
      next();
      return;
    }
    this.inFlight.inc();
    const stopTimer = this.durations.startTimer({ method: req.method });
    res.once('close', () => {
      this.inFlight.dec();
      stopTimer({ route: routeTemplateOf(req) ?? UNMATCHED_ROUTE, status_class: statusClassOf(res) });
    });
    next();
  }
}

@Module({
  providers: [
    makeHistogramProvider({
      name: REQUEST_DURATION,
      help: 'HTTP requests by method, route template (`unmatched`: no route) and status class (`aborted`: no reply sent), in seconds',
      labelNames: ['method', 'route', 'status_class'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    }),
    makeGaugeProvider({ name: REQUESTS_IN_FLIGHT, help: 'HTTP requests received and not answered yet' }),
  ],
})
export class HttpMetricsModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(HttpMetricsMiddleware).forRoutes('*');
  }
}
