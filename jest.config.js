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
  // Jest's default is one worker fewer than the cores: one on a 2-core machine. The e2e suites spend
  // much of their time waiting on sockets and the database, so two workers finish the suite about a
  // third sooner there (measured: 107 s → 70 s); on bigger machines the default is already more.
  maxWorkers: Math.max(2, cpus().length - 1),
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
  ],
  testTimeout: 60000,
};
