/**
 * Unit specs beside the code and e2e suites in test/ (`npm test`), and the soak (`npm run test:soak`).
 * Both compile through the Swagger CLI plugin so the OpenAPI metadata under test
 * is exactly what `nest build` produces.
 */
const { cpus } = require('node:os');

const transform = {
  '^.+\\.ts$': [
    'ts-jest',
    {
      tsconfig: 'tsconfig.json',
      astTransformers: { before: ['<rootDir>/test/support/swagger-plugin-transformer.js'] },
    },
  ],
};

module.exports = {
  // On SQLite every app has its own in-memory database, so suites run side by side: at least two
  // workers (Jest's default is one fewer than the cores, so one on 2 cores), since the e2e suites
  // spend much of their time waiting on sockets (measured there: 107 s -> 70 s). On PostgreSQL all
  // suites share one database, and each app's background workers (callback deliveries) would claim
  // another suite's rows under that suite's configuration: one suite at a time.
  maxWorkers: process.env.TEST_DATABASE_URL ? 1 : Math.max(2, cpus().length - 1),
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      rootDir: '.',
      testMatch: ['<rootDir>/src/**/*.spec.ts'],
      moduleFileExtensions: ['ts', 'js', 'json'],
      transform,
    },
    {
      displayName: 'e2e',
      testEnvironment: 'node',
      rootDir: '.',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      moduleFileExtensions: ['ts', 'js', 'json'],
      transform,
      globalSetup: '<rootDir>/test/support/global-setup.ts',
    },
    {
      // A minute of mixed traffic: `npm run test:soak`, run by .ci/run (not part of `npm test`).
      displayName: 'soak',
      testEnvironment: 'node',
      rootDir: '.',
      testMatch: ['<rootDir>/test/**/*.soak-spec.ts'],
      moduleFileExtensions: ['ts', 'js', 'json'],
      transform,
      globalSetup: '<rootDir>/test/support/global-setup.ts',
    },
    {
      // Several instances over one database and Redis (CONTRACT §8): `npm run test:topology`, run by
      // .ci/run with TEST_REDIS_URL (and TEST_DATABASE_URL for the multi-process suite); not part of `npm test`.
      displayName: 'topology',
      testEnvironment: 'node',
      rootDir: '.',
      testMatch: ['<rootDir>/test/**/*.topology-spec.ts'],
      moduleFileExtensions: ['ts', 'js', 'json'],
      transform,
      globalSetup: '<rootDir>/test/support/global-setup.ts',
    },
  ],
  testTimeout: 60000,
};
