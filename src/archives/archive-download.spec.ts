import { ARCHIVE_CACHE_CONTROL, planDownload } from './archive-download';

const archive = { sha256: 'ab'.repeat(32), size: 100 };
const etag = `"${archive.sha256}"`;

describe('planDownload', () => {
  it('200 with every header for a plain GET or HEAD', () => {
    const expected = {
      status: 200,
      headers: { ETag: etag, 'Cache-Control': ARCHIVE_CACHE_CONTROL, 'Content-Type': 'application/zip', 'Accept-Ranges': 'bytes', 'Content-Length': '100' },
    };
    expect(planDownload(archive, 'GET', {})).toEqual(expected);
    expect(planDownload(archive, 'HEAD', {})).toEqual(expected);
  });

  it('304 when If-None-Match matches: the tag, a weak tag, one of a list, or *', () => {
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*', ' * ']) {
      expect(planDownload(archive, 'GET', { 'if-none-match': header })).toEqual({
        status: 304,
        headers: { ETag: etag, 'Cache-Control': ARCHIVE_CACHE_CONTROL },
      });
    }
    expect(planDownload(archive, 'GET', { 'if-none-match': '"other"' }).status).toBe(200);
    // Evaluated before Range.
    expect(planDownload(archive, 'GET', { 'if-none-match': etag, range: 'bytes=0-1' }).status).toBe(304);
  });

  it('206 for one satisfiable range, with Content-Range and the range’s length', () => {
    expect(planDownload(archive, 'GET', { range: 'bytes=10-19' })).toMatchObject({
      status: 206,
      headers: { 'Content-Range': 'bytes 10-19/100', 'Content-Length': '10', ETag: etag, 'Content-Type': 'application/zip' },
      range: { start: 10, end: 19 },
    });
    expect(planDownload(archive, 'GET', { range: 'bytes=-5' })).toEqual(expect.objectContaining({ range: { start: 95, end: 99 } }));
    expect(planDownload(archive, 'GET', { range: 'bytes=90-500' })).toEqual(expect.objectContaining({ range: { start: 90, end: 99 } }));
    // Overlapping ranges merge into one.
    expect(planDownload(archive, 'GET', { range: 'bytes=0-5,3-9' })).toEqual(expect.objectContaining({ range: { start: 0, end: 9 } }));
  });

  it('416 with Content-Range bytes */size when no range is satisfiable', () => {
    expect(planDownload(archive, 'GET', { range: 'bytes=100-200' })).toEqual({ status: 416, headers: { 'Content-Range': 'bytes */100' } });
  });

  it('the whole archive for several disjoint ranges, a malformed Range, another unit, or HEAD', () => {
    for (const range of ['bytes=0-1,50-51', 'bytes=x-y', 'items=0-1']) {
      expect(planDownload(archive, 'GET', { range }).status).toBe(200);
    }
    expect(planDownload(archive, 'HEAD', { range: 'bytes=0-1' }).status).toBe(200);
  });

  it('If-Range: the range when it names this archive’s tag exactly, otherwise the whole archive', () => {
    expect(planDownload(archive, 'GET', { range: 'bytes=0-1', 'if-range': etag }).status).toBe(206);
    for (const ifRange of ['"other"', `W/${etag}`, 'Wed, 21 Oct 2015 07:28:00 GMT']) {
      expect(planDownload(archive, 'GET', { range: 'bytes=0-1', 'if-range': ifRange }).status).toBe(200);
    }
  });
});
