import { ConfigType, registerAs } from '@nestjs/config';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { toInteger, validateVariables } from '../config/environment';

export class ArchivesEnvironment {
  /** Where the filesystem store keeps archives; a relative path is resolved from the working directory. */
  @IsOptional()
  @IsString()
  STORAGE_DIR = './data/archives';

  /** Largest archive an upload may send, in bytes (100 MiB by default). */
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  ARCHIVE_MAX_BYTES = 104_857_600;
}

/** Archive storage's configuration, validated when the application starts. */
export const archivesConfig = registerAs('archives', () => validateVariables(ArchivesEnvironment, process.env));
export type ArchivesConfig = ConfigType<typeof archivesConfig>;
