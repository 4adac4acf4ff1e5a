import { InjectionToken, Logger, Provider } from '@nestjs/common';
import { makeGaugeProvider } from '@willsoto/nestjs-prometheus';
import { Gauge } from 'prom-client';

type Read<Owner, Reading> = (owner: Owner) => Reading | Promise<Reading>;

/** A gauge of one value, or of values by one label. */
export type ScrapeGaugeOptions<Owner> = {
  name: string;
  help: string;
  /** Who knows the figure: the owning module's service, repository or configuration. */
  owner: InjectionToken;
} & ({ label?: undefined; read: Read<Owner, number> } | { label: string; read: Read<Owner, ReadonlyMap<string, number>> });

const logger = new Logger('Metrics');
const WARNING_INTERVAL_MS = 60_000;
let lastWarningAt = -Infinity;

/**
 * A gauge read on scrape from the module that owns its figure (shared state
 * from the database, so every instance reports the same). A read that fails
 * (the database unreachable) reports the figure as unknown (NaN, or no
 * series) rather than failing the whole scrape: the request and process
 * figures matter most then. Logged at most once a minute.
 */
export function makeScrapeGaugeProvider<Owner>(options: ScrapeGaugeOptions<Owner>): Provider {
  return makeGaugeProvider({
    name: options.name,
    help: options.help,
    labelNames: options.label === undefined ? [] : [options.label],
    inject: [options.owner],
    async collect(this: Gauge, owner: Owner) {
      try {
        if (options.label === undefined) this.set(await options.read(owner));
        else {
          const counts = await options.read(owner);
          this.reset();
          for (const [value, count] of counts) this.set({ [options.label]: value }, count);
        }
      } catch (error) {
        if (options.label === undefined) this.set(NaN);
        else this.reset();
        if (Date.now() - lastWarningAt >= WARNING_INTERVAL_MS) {
          lastWarningAt = Date.now();
          logger.warn({ err: error instanceof Error ? error.message : String(error) }, `${options.name} could not be read: reported as unknown`);
        }
      }
    },
  });
}
