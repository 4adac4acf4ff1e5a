import { GatewayTimeoutException, HttpException, Injectable } from '@nestjs/common';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import { AxiosError, AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { Histogram } from 'prom-client';

export const UPSTREAM_CALLS = 'registry_video_upstream_request_duration_seconds';

type UpstreamCallLabel = 'operation' | 'outcome';

/** Which call of the wire protocol a request is, from its method and path (`other`: none this service makes). */
export function upstreamOperation(config: Pick<InternalAxiosRequestConfig, 'method' | 'url'> | undefined): string {
  const method = config?.method?.toUpperCase();
  const path = new URL(config?.url ?? '', 'http://upstream').pathname;
  if (method === 'POST' && path.endsWith('/reference2video')) return 'create';
  if (method === 'GET' && path.endsWith('/creations')) return 'poll';
  if (method === 'POST' && path.endsWith('/cancel')) return 'cancel';
  return 'other';
}

/** A reply's outcome: `ok` (2xx), or its status class. */
export function replyOutcome(status: number): string {
  return status >= 200 && status < 300 ? 'ok' : `${Math.floor(status / 100)}xx`;
}

/** One call to the upstream being timed: ends with its reply, or with the failure it became. */
export interface UpstreamCallTimer {
  answered<R extends AxiosResponse<unknown>>(response: R): R;
  /** `cause`: what the request threw; `failure`: the HTTP error it became (a 504 is a timeout). */
  failed(cause: unknown, failure: HttpException): HttpException;
}

/** Times each upstream call by operation and outcome (ok, 4xx, 5xx, timeout, error: no reply). */
@Injectable()
export class UpstreamCalls {
  constructor(@InjectMetric(UPSTREAM_CALLS) private readonly durations: Histogram<UpstreamCallLabel>) {}

  start(): UpstreamCallTimer {
    const stop = this.durations.startTimer();
    return {
      answered: (response) => {
        stop({ operation: upstreamOperation(response.config), outcome: replyOutcome(response.status) });
        return response;
      },
      failed: (cause, failure) => {
        const outcome = failure instanceof GatewayTimeoutException ? 'timeout' : 'error';
        stop({ operation: upstreamOperation((cause as Partial<AxiosError>).config), outcome });
        return failure;
      },
    };
  }
}
