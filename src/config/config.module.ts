import { Global, Module } from '@nestjs/common';
import { ConfigModule as NestConfigModule, ConfigType, registerAs } from '@nestjs/config';
import { validateEnvironment } from './environment';

/**
 * The validated environment. Validation runs when the application is
 * created (not when this file is imported), so a bad value stops startup with
 * a message naming the variable, and tests can set the environment first.
 */
export const appConfig = registerAs('app', () => validateEnvironment(process.env));
export type AppConfig = ConfigType<typeof appConfig>;

@Global()
@Module({
  imports: [NestConfigModule.forRoot({ isGlobal: true, ignoreEnvFile: true, load: [appConfig] })],
})
export class ConfigModule {}
