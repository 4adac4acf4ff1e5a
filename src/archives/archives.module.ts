import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { ArchiveStorage } from './archive-storage';
import { archivesConfig, ArchivesConfig } from './archives.config';
import { ArchivesController } from './archives.controller';
import { ArchivesService } from './archives.service';
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
  ],
  exports: [ArchivesService, ArchiveStorage],
})
export class ArchivesModule {}
