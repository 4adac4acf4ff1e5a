import { Provider } from '@nestjs/common';
import { join } from 'node:path';
import { archivesConfig, ArchivesConfig } from '../../archives/archives.config';
import { FilesystemArchiveStorage, OPAQUE_FILES } from '../../archives/filesystem-archive-storage';

/** The store of kept video results: an ArchiveStorage of its own (see VIDEO_RESULT_STORAGE_PROVIDER). */
export const RESULT_STORAGE = Symbol('RESULT_STORAGE');

/**
 * A second filesystem store rooted at `{STORAGE_DIR}/results`, holding files
 * as they come (no zip checks): the same interface, layout and crash safety
 * as archives, and a namespace of its own, so the results' retention can
 * never delete an archive (archives are never deleted), nor an archive name
 * ever resolve to a result. A deployment that binds ArchiveStorage to an
 * object store would bind this to a second bucket or prefix.
 */
export const VIDEO_RESULT_STORAGE_PROVIDER: Provider = {
  provide: RESULT_STORAGE,
  inject: [archivesConfig.KEY],
  useFactory: (config: ArchivesConfig) => new FilesystemArchiveStorage(join(config.STORAGE_DIR, 'results'), OPAQUE_FILES),
};
