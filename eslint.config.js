import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import globals from 'globals'

const browser = globals.browser

export default tseslint.config(
  {ignores: ['dist/', 'node_modules/', 'oclif.manifest.json']},
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', {argsIgnorePattern: '^_'}],
    },
  },
  {
    files: ['bin/**/*.js', 'assets/**/*.js', 'bench/**/*.mjs', 'scripts/**/*.mjs'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        setTimeout: 'readonly',
        require: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
        AbortController: 'readonly',
        performance: 'readonly',
      },
    },
  },
  {
    // The agents' check runs as plain node scripts (test/agents).
    files: ['test/**/*.mjs'],
    languageOptions: {globals: globals.node},
  },
  {
    // pk serve's page runs in a browser.
    files: ['assets/web/**/*.js'],
    languageOptions: {globals: browser},
  },
  {
    // bin/run.js is CommonJS (bin/package.json): node starts it sooner than an ES module.
    files: ['bin/**/*.js', 'scripts/**/*.cjs', 'test/**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        __dirname: 'readonly',
        module: 'readonly',
        process: 'readonly',
        Buffer: 'readonly',
        require: 'readonly',
        setTimeout: 'readonly',
        setInterval: 'readonly',
        performance: 'readonly',
      },
    },
    rules: {'@typescript-eslint/no-require-imports': 'off'},
  },
  {
    files: ['src/lib/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {patterns: [{group: ['@oclif/*'], message: 'src/lib must not import oclif (README, Development)'}]}],
    },
  },
)
