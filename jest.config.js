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
    // Jest ignores `testTimeout` inside a project; the setup files set it per tier.
    tier('integration', 'int', {
      setupFiles: ['<rootDir>/libs/platform/testing/src/load-infra-env.ts'],
      setupFilesAfterEnv: ['<rootDir>/libs/platform/testing/src/integration-timeout.ts'],
    }),
    tier('e2e', 'e2e', {
      setupFiles: ['<rootDir>/libs/platform/testing/src/load-infra-env.ts'],
      setupFilesAfterEnv: ['<rootDir>/libs/platform/testing/src/e2e-timeout.ts'],
    }),
  ],
};
