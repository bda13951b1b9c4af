// Three tiers, selected by file suffix: *.unit.spec.ts (no I/O), *.int.spec.ts (real Postgres and
// Kafka), *.e2e.spec.ts (the whole stack over HTTP). `npm test` runs them in that order.
const { compilerOptions } = require('./tsconfig.base.json');

const moduleNameMapper = Object.fromEntries(
  Object.entries(compilerOptions.paths).map(([alias, [target]]) => [`^${alias}$`, `<rootDir>/${target}`]),
);
const transform = {
  '^.+\\.ts$': [
    '@swc/jest',
    {
      jsc: {
        target: 'es2022',
        parser: { syntax: 'typescript', decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true },
        keepClassNames: true,
      },
    },
  ],
};
const tier = (name, suffix, extra = {}) => ({
  displayName: name,
  rootDir: __dirname,
  testEnvironment: 'node',
  testMatch: [`<rootDir>/{apps,libs,tools}/**/*.${suffix}.spec.ts`],
  moduleNameMapper,
  transform,
  ...extra,
});

module.exports = {
  projects: [
    tier('unit', 'unit'),
    tier('integration', 'int', { testTimeout: 60_000, setupFiles: ['<rootDir>/libs/platform/testing/src/load-infra-env.ts'] }),
    tier('e2e', 'e2e', { testTimeout: 120_000, setupFiles: ['<rootDir>/libs/platform/testing/src/load-infra-env.ts'] }),
  ],
};
