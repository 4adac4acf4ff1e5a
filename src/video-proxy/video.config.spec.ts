import { validateVariables } from '../config/environment';
import { VideoEnvironment } from './video.config';

describe('VideoEnvironment', () => {
  it('takes VIDEO_STATUS_POLL_MS of 0 (off) or 100 ms to 10 minutes', () => {
    expect(validateVariables(VideoEnvironment, {}).VIDEO_STATUS_POLL_MS).toBe(15_000);
    expect(validateVariables(VideoEnvironment, { VIDEO_STATUS_POLL_MS: '0' }).VIDEO_STATUS_POLL_MS).toBe(0);
    expect(validateVariables(VideoEnvironment, { VIDEO_STATUS_POLL_MS: '100' }).VIDEO_STATUS_POLL_MS).toBe(100);
    for (const refused of ['50', '600001', 'often', '-1']) {
      expect(() => validateVariables(VideoEnvironment, { VIDEO_STATUS_POLL_MS: refused })).toThrow(/VIDEO_STATUS_POLL_MS/);
    }
  });
});
