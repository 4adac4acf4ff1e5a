/**
 * Unit specs beside the code and e2e suites in test/ (`npm test`), and the soak (`npm run test:soak`).
 * Both compile through the Swagger CLI plugin so the OpenAPI metadata under test
 * is exactly what `nest build` produces.
 */
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
