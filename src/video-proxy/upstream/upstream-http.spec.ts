import { Agent } from 'node:http';
import { IDLE_SOCKET_TIMEOUT_MS, upstreamHttpOptions } from './upstream-http';

describe('upstreamHttpOptions', () => {
  it.each(['httpAgent', 'httpsAgent'] as const)('%s has the idle timeout, but not in a copy of its options (what axios builds its proxy tunnel from)', (name) => {
    const agent = upstreamHttpOptions()[name] as Agent & { options: { timeout?: number } };
    expect(agent.options.timeout).toBe(IDLE_SOCKET_TIMEOUT_MS);
    expect({ ...agent.options }).not.toHaveProperty('timeout');
    expect({ ...agent.options }).toMatchObject({ keepAlive: true, keepAliveMsecs: 60_000, scheduling: 'lifo' });
    agent.destroy();
  });
});
