/**
 * The Lambda bundles, built as `cdk synth` builds them, so the sizes and cold starts measured
 * are those of the deployed artifacts.
 */

import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { type BuildOptions, build } from 'esbuild';
import { groups } from '../../shared/routes.ts';
import { repoRoot } from './runtime.ts';

/**
 * The `bundling` props of `ServiceFunction` (infra/constructs/service-function.ts), which does
 * not export them: KEEP IN SYNC until the construct and this file share one constant.
 * `externalModules` is NodejsFunction's default for Node 18+ runtimes: the SDK v3 comes with the
 * Lambda runtime, so `@aws-sdk/*` is not in the bundle (`@smithy/*` is, the feature flag that
 * would also exclude it is not set in cdk.json).
 */
export const lambdaBundling = {
  format: 'esm',
  minify: true,
  sourceMap: true,
  target: 'node24',
  mainFields: ['module', 'main'],
  banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
  externalModules: ['@aws-sdk/*'],
} as const;

/** The esbuild options NodejsFunction derives from those props (its `esbuild --bundle …` command line). */
export function esbuildOptionsFor(entry: string, outfile: string): BuildOptions {
  return {
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: lambdaBundling.format,
    target: lambdaBundling.target,
    minify: lambdaBundling.minify,
    sourcemap: lambdaBundling.sourceMap,
    mainFields: [...lambdaBundling.mainFields],
    banner: { js: lambdaBundling.banner },
    external: [...lambdaBundling.externalModules],
    // CDK runs esbuild from the project root (where the lock file is), which decides how
    // package.json `imports` (#shared/*) and tsconfig.json are found.
    absWorkingDir: repoRoot,
    logLevel: 'warning',
  };
}

export interface BundleInfo {
  name: string;
  file: string;
  bytes: number;
  gzipBytes: number;
  sourceMapBytes: number;
}

/** Bundles one entry into `<dir>/index.mjs` (the file name NodejsFunction uses for ESM). */
export async function bundleEntry(name: string, entry: string, dir: string): Promise<BundleInfo> {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'index.mjs');
  await build(esbuildOptionsFor(entry, file));
  return {
    name,
    file,
    bytes: statSync(file).size,
    gzipBytes: gzipSync(readFileSync(file)).length,
    sourceMapBytes: statSync(`${file}.map`).size,
  };
}

/** Name of the baseline bundle: a handler that does nothing, bundled the same way. */
export const EMPTY_BUNDLE = '(empty handler)';

/** Every API group's bundle, then the empty-handler baseline. */
export async function bundleAll(outDir: string): Promise<BundleInfo[]> {
  const bundles: BundleInfo[] = [];
  for (const group of groups) {
    bundles.push(
      await bundleEntry(group, join(repoRoot, 'functions', group, 'index.ts'), join(outDir, group)),
    );
  }
  bundles.push(
    await bundleEntry(EMPTY_BUNDLE, join(import.meta.dirname, 'empty-handler.ts'), join(outDir, 'empty')),
  );
  return bundles;
}
