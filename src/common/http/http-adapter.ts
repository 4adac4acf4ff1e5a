import { ExpressAdapter } from '@nestjs/platform-express';
import { replyEtag } from './http-caching';
import { ProxyTrust } from './trust-proxy';

/**
 * The HTTP layer under Nest: Express, as the design names it. Its own ETag
 * and 304 handling (res.send) uses the service's tag function; `req.ip` is
 * the client address through the proxies TRUST_PROXY names.
 */
export function createHttpAdapter(trustProxy: ProxyTrust): ExpressAdapter {
  const adapter = new ExpressAdapter();
  adapter.disable('x-powered-by');
  adapter.set('etag', (body: string | Buffer) => replyEtag(body));
  adapter.set('trust proxy', trustProxy);
  return adapter;
}
