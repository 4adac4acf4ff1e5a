import { BadGatewayException, GatewayTimeoutException } from '@nestjs/common';
import { AxiosResponse } from 'axios';
import { Histogram } from 'prom-client';
import { replyOutcome, UpstreamCalls, upstreamOperation } from './upstream-calls';

describe('upstream call figures', () => {
  it('names each call of the wire protocol by its method and path, whatever the upstream’s base path', () => {
    expect(upstreamOperation({ method: 'post', url: 'https://video.example.com/v/ent/v2/reference2video' })).toBe('create');
    expect(upstreamOperation({ method: 'get', url: 'http://127.0.0.1:8080/ent/v2/tasks/t%2F1/creations' })).toBe('poll');
    expect(upstreamOperation({ method: 'post', url: 'http://127.0.0.1:8080/ent/v2/tasks/t1/cancel' })).toBe('cancel');
    expect(upstreamOperation({ method: 'get', url: 'http://127.0.0.1:8080/ent/v2/reference2video' })).toBe('other');
    expect(upstreamOperation(undefined)).toBe('other');
  });

  it('classes a reply by its status', () => {
    expect([200, 204, 302, 402, 422, 500, 503].map(replyOutcome)).toEqual(['ok', 'ok', '3xx', '4xx', '4xx', '5xx', '5xx']);
  });

  it('observes each call once: its reply, or a timeout (504) or no reply (502)', async () => {
    const histogram = new Histogram({ name: 'calls', help: 'calls', labelNames: ['operation', 'outcome'], registers: [] });
    const calls = new UpstreamCalls(histogram);
    const create = { method: 'post', url: 'http://upstream/ent/v2/reference2video' };
    calls.start().answered({ status: 503, config: create } as AxiosResponse<unknown>);
    calls.start().failed({ config: create }, new GatewayTimeoutException());
    calls.start().failed(new Error('no axios config'), new BadGatewayException());
    const counts = (await histogram.get()).values.filter((v) => v.metricName === 'calls_count').map((v) => [v.labels.operation, v.labels.outcome, v.value]);
    expect(counts).toEqual([
      ['create', '5xx', 1],
      ['create', 'timeout', 1],
      ['other', 'error', 1],
    ]);
  });
});
