import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { validateEnvironment } from './src/config/environment';
import { buildDataSourceOptions } from './src/database/database-options';

/** DataSource for the TypeORM CLI (`npm run typeorm -- migration:show`), built exactly as the app builds its own. */
export default new DataSource(buildDataSourceOptions(validateEnvironment(process.env).database));
