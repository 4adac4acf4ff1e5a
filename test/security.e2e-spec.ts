import { TestApp } from './support/test-app';

describe('Security headers and timeouts', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start({ REQUEST_TIMEOUT_MS: '45000', CORS_ORIGINS: '' });
  });
  afterAll(() => t.close());

  it('locks API replies down, errors included', async () => {
    for (const res of [await t.http.get('/nodes').expect(200), await t.http.get('/nodes/missing').expect(404)]) {
      expect(res.headers['content-security-policy']).toContain("default-src 'none'");
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['strict-transport-security']).toBeDefined();
      expect(res.headers['x-frame-options']).toBeDefined();
      expect(res.headers['x-powered-by']).toBeUndefined();
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('lets Swagger UI load its own scripts and styles, nothing from elsewhere', async () => {
    const res = await t.http.get('/docs').redirects(1).expect(200);
    const policy = String(res.headers['content-security-policy']);
    expect(policy).toContain("script-src 'self';");
    expect(policy).not.toContain('https:');
    expect(res.text).toContain('swagger-ui');
  });

  it('bounds how long a client may take to send a request', () => {
    expect((t.app.getHttpServer()).requestTimeout).toBe(45000);
  });
});

describe('CORS', () => {
  it('answers preflights for configured origins only', async () => {
    const t = await TestApp.start({ CORS_ORIGINS: 'https://app.example.com, https://admin.example.com' });
    try {
      const allowed = await t.http
        .options('/publishers/p/nodes/n')
        .set('Origin', 'https://admin.example.com')
        .set('Access-Control-Request-Method', 'PUT')
        .set('Access-Control-Request-Headers', 'authorization,content-type');
      expect(allowed.status).toBe(204);
      expect(allowed.headers['access-control-allow-origin']).toBe('https://admin.example.com');
      expect(allowed.headers['access-control-allow-headers']).toContain('Authorization');
      expect(allowed.headers['access-control-allow-methods']).toBe('GET,HEAD,PUT,PATCH,POST,DELETE');
      expect(allowed.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      // Errors raised before the handler runs (here by the access guard, before the body is read) are readable cross-origin too.
      const malformed = await t.http
        .post('/publishers')
        .set('Origin', 'https://app.example.com')
        .set('Content-Type', 'application/json')
        .send('{bad')
        .expect(401);
      expect(malformed.headers['access-control-allow-origin']).toBe('https://app.example.com');
      expect(malformed.headers['content-security-policy']).toContain("default-src 'none'");
      const refused = await t.http.get('/nodes').set('Origin', 'https://evil.example.com').expect(200);
      expect(refused.headers['access-control-allow-origin']).toBeUndefined();
      const exposed = await t.http.get('/nodes').set('Origin', 'https://app.example.com').expect(200);
      expect(exposed.headers['access-control-expose-headers']).toContain('X-Request-Id');
      // A browser's script may read which methods a path has, after a 405.
      const notAllowed = await t.http.delete('/nodes/anything').set('Origin', 'https://app.example.com').expect(405);
      expect(notAllowed.headers['access-control-expose-headers']).toContain('Allow');
    } finally {
      await t.close();
    }
  });

  it('refuses a malformed CORS_ORIGINS at startup', async () => {
    await expect(TestApp.start({ CORS_ORIGINS: 'app.example.com' })).rejects.toThrow(/CORS_ORIGINS/);
  });
});
