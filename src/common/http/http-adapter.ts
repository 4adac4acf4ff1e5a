import { ExpressAdapter } from '@nestjs/platform-express';
import { ProxyTrust } from './trust-proxy';

/**
 * The HTTP layer under Nest: Express, as the design names it, with its own
 * weak ETags and 304s (res.send); `req.ip` is the client address through
 * the proxies TRUST_PROXY names.
 */
export function createHttpAdapter(trustProxy: ProxyTrust): ExpressAdapter {
  const adapter = new ExpressAdapter();
  adapter.disable('x-powered-by');
  adapter.set('trust proxy', trustProxy);
  return adapter;
}
