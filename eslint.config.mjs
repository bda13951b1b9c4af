// Lint is part of `npm test`. Module boundaries (tags in each project.json):
//   type:domain     pure deciders: contracts only, and no framework (NestJS, TypeORM, kafkajs, pg)
//   type:contracts  commands, events, topic names: other contracts only
//   type:platform   shared plumbing: platform and shared contracts
//   type:app        thin services: platform, their own context, other contexts' contracts only
import nx from '@nx/eslint-plugin';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import noImportCycle from './tools/eslint/no-import-cycle.mjs';

const frameworks = ['@nestjs/*', 'typeorm', 'kafkajs', 'pg', 'express'];

const boundaries = {
  enforceBuildableLibDependency: false,
  allow: [],
  depConstraints: [
    { sourceTag: 'type:domain', onlyDependOnLibsWithTags: ['type:contracts', 'type:domain'], bannedExternalImports: frameworks },
    { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:contracts'], bannedExternalImports: frameworks },
    { sourceTag: 'type:platform', onlyDependOnLibsWithTags: ['type:platform', 'scope:shared'] },
    { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:platform', 'scope:shared'] },
    { sourceTag: 'type:app', notDependOnLibsWithTags: ['type:app', 'type:testing', 'type:e2e'] },
    { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:testing', 'type:contracts', 'type:platform'] },
    { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
    { sourceTag: 'scope:gateway', onlyDependOnLibsWithTags: ['scope:gateway', 'scope:shared', 'scope:platform', 'type:contracts'] },
    { sourceTag: 'scope:sms-batch', onlyDependOnLibsWithTags: ['scope:sms-batch', 'scope:shared', 'scope:platform', 'type:contracts'] },
    { sourceTag: 'scope:verification', onlyDependOnLibsWithTags: ['scope:verification', 'scope:shared', 'scope:platform', 'type:contracts'] },
    { sourceTag: 'scope:agent-token', onlyDependOnLibsWithTags: ['scope:agent-token', 'scope:shared', 'scope:platform', 'type:contracts'] },
    { sourceTag: 'scope:webhook-dispatcher', onlyDependOnLibsWithTags: ['scope:webhook-dispatcher', 'scope:shared', 'scope:platform', 'type:contracts'] },
    { sourceTag: 'scope:tools', onlyDependOnLibsWithTags: ['scope:platform', 'scope:shared', 'type:contracts', 'type:testing'] },
  ],
};

export default [
  { ignores: ['**/node_modules/**', 'dist/**', '.local/**', '.nx/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { '@nx': nx },
    rules: {
      '@nx/enforce-module-boundaries': ['error', boundaries],
      '@typescript-eslint/no-explicit-any': 'warn',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['error'] }],
    },
  },
  {
    // Dependencies flow one way: a file never imports, however indirectly, a file that imports it
    // (type-only imports too). `@seed/*` paths resolve through tsconfig.base.json.
    files: ['**/*.ts', '**/*.mjs'],
    plugins: { seed: { rules: { 'no-import-cycle': noImportCycle } } },
    rules: { 'seed/no-import-cycle': 'error' },
  },
  {
    // A file does one job and reads in one sitting: at most 300 lines. Tests, which list their
    // cases, are excepted; a facade of one-line delegations to meet the limit is not the way.
    files: ['**/*.ts', '**/*.mjs'],
    ignores: ['**/*.spec.ts'],
    rules: { 'max-lines': ['error', { max: 300 }] },
  },
  {
    // The scripts (the stack launcher, the build, the infra probe, this config) run on Node as they are.
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { globals: globals.node },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.spec.ts', 'tools/**/*.ts', 'libs/platform/testing/**/*.ts'],
    rules: { 'no-console': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    // Tests may use the shared test harness wherever they live; nothing else may.
    files: ['**/*.spec.ts', '**/*.test-helpers.ts'],
    rules: {
      '@nx/enforce-module-boundaries': ['error', { ...boundaries, allow: ['@seed/platform-testing'] }],
    },
  },
];
