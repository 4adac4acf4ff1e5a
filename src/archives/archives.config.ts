import { ConfigType, registerAs } from '@nestjs/config';
import { IsOptional, IsString } from 'class-validator';
import { IntegerVariable, validateVariables } from '../config/environment';

export class ArchivesEnvironment {
  /** Where the filesystem store keeps archives; a relative path is resolved from the working directory. */
  @IsOptional()
  @IsString()
  STORAGE_DIR = './data/archives';

  /** Largest archive an upload may send, in bytes (100 MiB by default). */
  @IntegerVariable(1)
  ARCHIVE_MAX_BYTES = 104_857_600;
}

/** Archive storage's configuration, validated when the application starts. */
export const archivesConfig = registerAs('archives', () => validateVariables(ArchivesEnvironment, process.env));
export type ArchivesConfig = ConfigType<typeof archivesConfig>;
