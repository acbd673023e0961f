/**
 * How every Lambda is bundled (esbuild through NodejsFunction). Plain data without CDK imports,
 * so the benchmark bundles exactly what `cdk synth` ships.
 */
export const lambdaBundling = {
  format: 'esm',
  minify: true,
  sourceMap: true,
  target: 'node24',
  // Prefer the ESM build of dependencies that ship both.
  mainFields: ['module', 'main'],
  // CommonJS dependencies bundled into an ESM file still call require().
  banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
  // Bundle the AWS SDK too: the deployed code runs the SDK version the tests ran, not whatever
  // copy the Lambda runtime happens to ship.
  externalModules: [] as string[],
} as const;
