import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { makeCounterProvider } from '@willsoto/nestjs-prometheus';
import { ArchiveStorage } from './archive-storage';
import { archivesConfig, ArchivesConfig } from './archives.config';
import { ArchivesController } from './archives.controller';
import { ARCHIVE_BYTES_STORED, ARCHIVES_STORED, ArchivesService } from './archives.service';
import { FilesystemArchiveStorage } from './filesystem-archive-storage';

/**
 * Content-addressed archive storage and the download route. Features that
 * take uploads import this module, declare their upload route raw
 * (`@RawBody()`) and call ArchivesService.receive(); see docs/extending.md.
 */
@Module({
  imports: [ConfigModule.forFeature(archivesConfig)],
  controllers: [ArchivesController],
  providers: [
    ArchivesService,
    // The filesystem store by default; another store (object storage) would be bound here.
    { provide: ArchiveStorage, inject: [archivesConfig.KEY], useFactory: (config: ArchivesConfig) => new FilesystemArchiveStorage(config.STORAGE_DIR) },
    makeCounterProvider({ name: ARCHIVES_STORED, help: 'Archives accepted and stored (an upload of bytes already stored counts again)' }),
    makeCounterProvider({ name: ARCHIVE_BYTES_STORED, help: 'Bytes of the archives accepted and stored' }),
  ],
  exports: [ArchivesService, ArchiveStorage],
})
export class ArchivesModule {}
