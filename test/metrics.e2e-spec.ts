import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OpenAPIObject } from '@nestjs/swagger';
import { CreditsService } from '../src/users/credits.service';
import { UserEntity } from '../src/users/entities/user.entity';
import { reviewed, uploadArchive } from './support/archive-uploads';
import { CallbackReceiver } from './support/callback-receiver';
import { FakeUpstream } from './support/fake-upstream';
import { freshPostgresDatabase } from './support/postgres';
import { exportedNames, metricNamesIn, parseSamples, Sample, valueOf } from './support/prometheus-text';
import { addVersions, createPublisherWithNode } from './support/registry-fixtures';
import { TestApp } from './support/test-app';
import { queueDeliveryOneAttemptShortOfCap, videoAppForSuite } from './support/video-app';
import { makeZip } from './support/zip';
import { waitFor } from './support/server-process';

const TOKEN = 'metrics-e2e-token-0123456789';
const ROOT = join(__dirname, '..');
/** The upstream's deadline here: a create the fake upstream answers later than this is a timeout (504). */
const UPSTREAM_TIMEOUT_MS = 1000;

/** Every `expr` of the Grafana dashboard, wherever a panel or target keeps it. */
function dashboardExpressions(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(dashboardExpressions);
  if (typeof node !== 'object' || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) => (key === 'expr' && typeof value === 'string' ? [value] : dashboardExpressions(value)));
}

/** Every rule's `expr` in the alert rules file (each written on one line). */
function alertExpressions(yaml: string): string[] {
  return [...yaml.matchAll(/^\s*expr:\s*(.+)$/gm)].map(([, expr]) => expr.trim().replace(/^(['"])(.*)\1$/, '$2'));
}

describe('GET /metrics (issue 37)', () => {
  // On PostgreSQL a database of its own: the gauges read shared state, which other suites' rows would change.
  const database = freshPostgresDatabase('metrics_e2e');
  let upstream: FakeUpstream;
  let receiver: CallbackReceiver;
  let t: TestApp;
  videoAppForSuite(
    {
      METRICS_TOKEN: TOKEN,
      ...(database ? { DATABASE_URL: database.url } : {}),
      VIDEO_UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS),
      CALLBACK_ALLOW_PRIVATE: 'true',
      // A failed callback waits ten minutes for its retry: it stays pending while the suite runs.
      CALLBACK_RETRY_BASE_MS: '600000',
    },
    (video) => ({ upstream, receiver, testApp: t } = video),
  );
  // After the app is closed (hooks run in the order they are declared).
  afterAll(() => database?.drop());

  const scrape = async (): Promise<{ text: string; samples: Sample[] }> => {
    const res = await t.http.get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200);
    // The text format 0.0.4 (Express puts the charset it sets first).
    expect(res.headers['content-type']).toMatch(/^text\/plain;(?=.*\bversion=0\.0\.4\b)(?=.*\bcharset=utf-8\b)/);
    return { text: res.text, samples: parseSamples(res.text) };
  };

  it('answers 401 without the token, with a wrong one and with a user’s token', async () => {
    const user = await t.createUser();
    for (const authorization of [undefined, `Bearer ${TOKEN}x`, 'Bearer', `Basic ${TOKEN}`, user.auth.Authorization]) {
      const res = await (authorization === undefined ? t.http.get('/metrics') : t.http.get('/metrics').set('Authorization', authorization)).expect(401);
      expect(res.headers['www-authenticate']).toBe('Bearer');
      expect(res.body).toMatchObject({ statusCode: 401, message: expect.stringContaining('metrics token') });
    }
  });

  describe('after a known sequence of requests', () => {
    let samples: Sample[];
    let text: string;
    let zipBytes: number;
    let nodeId: string;
    const value = (name: string, labels: Record<string, string> = {}) => valueOf(samples, name, labels);
    const requests = (method: string, route: string, statusClass: string) =>
      value('registry_http_request_duration_seconds_count', { method, route, status_class: statusClass });

    beforeAll(async () => {
      // The registry: a version with a clean pack, reviewed (active), read twice anonymously, installed once.
      const f = await createPublisherWithNode(t);
      nodeId = f.nodeId;
      await addVersions(t, f, '1.0.0');
      const zip = makeZip({ '__init__.py': '# a clean pack\n' });
      zipBytes = zip.length;
      await uploadArchive(t, f, '1.0.0', zip);
      expect((await reviewed(t, f, '1.0.0')).status).toBe('NodeVersionStatusActive');
      await t.http.get(`/nodes/${f.nodeId}`).expect(200);
      await t.http.get(`/nodes/${f.nodeId}`).expect(200);
      await t.http.get(`/nodes/${f.nodeId}/install`).expect(200);
      await t.http.get('/no-such-route/123').expect(404);

      // The video proxy: three creates the upstream fails (a 500, no answer in time, a dropped connection),
      // two it accepts; one of those fails later (a poll: refunded, and its callback's receiver fails).
      const user = await t.createUser({ credits: 1000 });
      const create = (body: object = {}) => t.http.post('/proxy/video/reference2video').set(user.auth).send({ duration: 2, prompt: 'p', ...body });
      upstream.respondNext({ status: 500, body: { code: 'Internal', message: 'upstream broke' } });
      await create().expect(502);
      upstream.respondNext({ delayMs: UPSTREAM_TIMEOUT_MS + 500 });
      await create().expect(504);
      upstream.respondNext({ dropConnection: true });
      await create().expect(502);
      receiver.status = 500;
      const failing = (await create({ callback_url: receiver.url }).expect(200)).body.task_id as string;
      const other = (await create().expect(200)).body.task_id as string;
      upstream.taskStatus.set(failing, { state: 'failed', err_code: 'ContentRejected' });
      expect((await t.http.get(`/proxy/video/tasks/${failing}`).set(user.auth).expect(200)).body.state).toBe('failed');
      await queueDeliveryOneAttemptShortOfCap(t.dataSource, { taskId: other, userId: user.id, url: receiver.url });
      await waitFor(
        async () => {
          const now = (await scrape()).samples;
          const counted = (name: string) => now.filter((s) => s.name === name).reduce((sum, s) => sum + s.value, 0);
          return counted('registry_callback_delivery_retries_total') === 1 && counted('registry_callback_deliveries_abandoned_total') === 1;
        },
        10_000,
        'both callbacks to be tried',
      );

      // A statement the database refuses (a row inserted twice).
      const users = t.dataSource.getRepository(UserEntity);
      await expect(users.insert(await users.findOneByOrFail({ id: user.id }))).rejects.toThrow();

      ({ text, samples } = await scrape());
    });

    it('counts requests by method, route template (never the raw path) and status class', () => {
      expect(requests('GET', '/nodes/:nodeId', '2xx')).toBe(2);
      expect(requests('GET', '/nodes/:nodeId/install', '2xx')).toBe(1);
      expect(requests('POST', '/proxy/video/reference2video', '2xx')).toBe(2);
      expect(requests('POST', '/proxy/video/reference2video', '5xx')).toBe(3);
      expect(requests('GET', 'unmatched', '4xx')).toBe(1);
      expect(samples.filter((s) => s.labels.route?.includes(nodeId) || s.labels.route?.includes('no-such-route'))).toEqual([]);
      expect(value('registry_http_requests_in_flight')).toBe(0);
    });

    it('never counts the scrapes themselves (nor the refused ones)', async () => {
      await scrape();
      await t.http.get('/metrics').expect(401);
      const again = (await scrape()).samples;
      expect(again.filter((s) => s.labels.route?.includes('metrics'))).toEqual([]);
      expect(valueOf(again, 'registry_http_requests_in_flight')).toBe(0);
    });

    it('times upstream calls by operation and outcome', () => {
      const calls = (operation: string, outcome: string) =>
        value('registry_video_upstream_request_duration_seconds_count', { operation, outcome });
      expect([calls('create', '5xx'), calls('create', 'timeout'), calls('create', 'error'), calls('create', 'ok'), calls('poll', 'ok')]).toEqual([1, 1, 1, 2, 1]);
      expect(value('registry_video_upstream_request_duration_seconds_sum', { operation: 'create', outcome: 'timeout' })).toBeGreaterThanOrEqual(
        UPSTREAM_TIMEOUT_MS / 1000 - 0.05,
      );
    });

    it('counts credits settled, released and refunded; nothing is reserved once the creates are over', () => {
      // videoq2-turbo, 2 s: 10 credits a create, and the upstream charged what was reserved.
      expect(value('registry_credits_settled_total')).toBe(20);
      expect(value('registry_credits_released_total')).toBe(30);
      expect(value('registry_credits_refunded_total')).toBe(10);
      expect(value('registry_credits_reserved')).toBe(0);
      expect(value('registry_credits_oldest_reservation_age_seconds')).toBe(0);
      expect(value('registry_video_reservation_recovery_window_seconds')).toBe((UPSTREAM_TIMEOUT_MS + 15_000 + 15_000) / 1000);
    });

    it('counts client callbacks retried, given up by reason, and pending', () => {
      expect(value('registry_callback_delivery_retries_total')).toBe(1);
      expect(value('registry_callback_deliveries_abandoned_total', { reason: 'attempts_exhausted' })).toBe(1);
      expect(value('registry_callback_deliveries_pending')).toBe(1);
    });

    it('counts installs and stored archives, and reads versions by status and pending checks', () => {
      expect(value('registry_installs_total')).toBe(1);
      expect([value('registry_archives_stored_total'), value('registry_archives_stored_bytes_total')]).toEqual([1, zipBytes]);
      const versions = Object.fromEntries(samples.filter((s) => s.name === 'registry_node_versions').map((s) => [s.labels.status, s.value]));
      expect(versions).toEqual({
        NodeVersionStatusActive: 1,
        NodeVersionStatusPending: 0,
        NodeVersionStatusFlagged: 0,
        NodeVersionStatusBanned: 0,
        NodeVersionStatusDeleted: 0,
      });
      expect(value('registry_archive_checks_pending')).toBe(0);
    });

    it('counts read-cache hits and misses, failed statements, and reports the pool, Redis and the process', () => {
      expect([value('registry_read_cache_hits_total'), value('registry_read_cache_misses_total')]).toEqual([1, 1]);
      expect(value('registry_db_query_errors_total')).toBe(1);
      const max = value('registry_db_pool_max_connections');
      expect(max).toBe(database ? 20 : 1);
      expect(value('registry_db_pool_connections', { state: 'busy' }) + value('registry_db_pool_connections', { state: 'idle' })).toBeLessThanOrEqual(max);
      expect(value('registry_db_pool_waiting_requests')).toBe(0);
      expect(value('registry_redis_connected')).toBe(1);
      expect(value('process_cpu_seconds_total')).toBeGreaterThan(0);
      expect(value('nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    });

    it('reads the credits open reservations hold, from the database, on scrape', async () => {
      const user = await t.createUser({ credits: 50 });
      const credits = t.app.get(CreditsService);
      const reservation = await credits.reserve(user.id, 7);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const held = (await scrape()).samples;
      await credits.release(reservation);
      expect(valueOf(held, 'registry_credits_reserved')).toBe(7);
      expect(valueOf(held, 'registry_credits_oldest_reservation_age_seconds')).toBeGreaterThan(0);
      const after = (await scrape()).samples;
      expect([valueOf(after, 'registry_credits_reserved'), valueOf(after, 'registry_credits_released_total')]).toEqual([0, 37]);
    });

    it('exports every metric the Grafana dashboard and the alert rules query', () => {
      const exported = exportedNames(text);
      const dashboard = dashboardExpressions(JSON.parse(readFileSync(join(ROOT, 'deploy/grafana/registry.json'), 'utf8')));
      const alerts = alertExpressions(readFileSync(join(ROOT, 'deploy/prometheus/alerts.yml'), 'utf8'));
      expect(dashboard.length).toBeGreaterThan(15);
      expect(alerts.length).toBeGreaterThanOrEqual(7);
      const queried = [...new Set([...dashboard, ...alerts].flatMap(metricNamesIn))].sort();
      expect(queried.length).toBeGreaterThan(20);
      expect(queried.filter((name) => !exported.has(name))).toEqual([]);
    });

    it('is documented with its own security scheme', async () => {
      const doc = (await t.http.get('/docs-json').expect(200)).body as OpenAPIObject;
      expect(doc.paths['/metrics'].get?.security).toEqual([{ metrics: [] }]);
      expect(doc.components?.securitySchemes?.metrics).toMatchObject({ type: 'http', scheme: 'bearer' });
    });
  });
});

describe('Without METRICS_TOKEN', () => {
  it('GET /metrics does not exist: 404 as for any unknown route, and the document shows neither it nor its token', async () => {
    const t = await TestApp.start();
    try {
      const res = await t.http.get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(404);
      expect(res.body).toMatchObject({ statusCode: 404, message: 'Cannot GET /metrics' });
      const doc = (await t.http.get('/docs-json').expect(200)).body as OpenAPIObject;
      expect(doc.paths['/metrics']).toBeUndefined();
      expect(doc.components?.securitySchemes).not.toHaveProperty('metrics');
    } finally {
      await t.close();
    }
  });
});
