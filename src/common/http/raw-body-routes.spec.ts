import { RawBodyRoutes } from './raw-body-routes';

describe('RawBodyRoutes', () => {
  const routes = new RawBodyRoutes();
  routes.allow('PUT', '/publishers/:publisherId/nodes/:nodeId/versions/:versionId/archive');
  routes.allow('PUT', '/archives/uploads/:versionId');

  it('matches the declared method and path, a parameter being one non-empty segment', () => {
    expect(routes.isRaw('PUT', '/publishers/p/nodes/n/versions/1.2.0/archive')).toBe(true);
    expect(routes.isRaw('PUT', '/archives/uploads/abc')).toBe(true);
    expect(routes.isRaw('PUT', '/archives/uploads/')).toBe(false);
    expect(routes.isRaw('PUT', '/archives/uploads//')).toBe(false);
    expect(routes.isRaw('PUT', '/archives/uploads/a/b')).toBe(false);
    expect(routes.isRaw('PUT', '/publishers/p/nodes/n/versions/1.2.0')).toBe(false);
    expect(routes.isRaw('PUT', '/x/archives/uploads/abc')).toBe(false);
  });

  it('ignores case and a trailing slash, as routing does, but not the method', () => {
    expect(routes.isRaw('put', '/ARCHIVES/Uploads/abc/')).toBe(true);
    expect(routes.isRaw('POST', '/archives/uploads/abc')).toBe(false);
    expect(routes.isRaw(undefined, '/archives/uploads/abc')).toBe(false);
  });

  it('takes literal segments literally (no regular-expression meaning)', () => {
    const dotted = new RawBodyRoutes();
    dotted.allow('PUT', '/files/:name/v1.0');
    expect(dotted.isRaw('PUT', '/files/a/v1.0')).toBe(true);
    expect(dotted.isRaw('PUT', '/files/a/v1x0')).toBe(false);
  });
});
