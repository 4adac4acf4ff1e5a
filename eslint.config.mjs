// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // test/client is type-checked by its own test (tsc --strict against types generated at test time).
  // The benchmark's scripts (bench/*.js) are linted as plain CommonJS, without type information.
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'data/**', '**/*.js', '!bench/*.js', '.ci/**', 'test/client/**'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // Nest decorators and class-validator metadata use classes whose methods are passed around.
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    // supertest types reply bodies as `any`; asserting on them is the point of an e2e test.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    files: ['bench/*.js'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: {
      sourceType: 'commonjs',
      globals: Object.fromEntries(
        ['require', 'module', 'exports', '__dirname', 'process', 'console', 'Buffer', 'URL', 'fetch', 'TextEncoder', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'].map(
          (name) => [name, 'readonly'],
        ),
      ),
    },
    rules: {
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
);
