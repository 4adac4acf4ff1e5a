import { ServerResponse } from 'node:http';
import { statusClassOf } from './http-metrics';

describe('statusClassOf', () => {
  it('is the class of the status sent, or `aborted` when no reply was sent', () => {
    const reply = (statusCode: number, writableFinished: boolean) => ({ statusCode, writableFinished }) as ServerResponse;
    expect([reply(200, true), reply(304, true), reply(404, true), reply(503, true), reply(200, false)].map(statusClassOf)).toEqual([
      '2xx',
      '3xx',
      '4xx',
      '5xx',
      'aborted',
    ]);
  });
});
