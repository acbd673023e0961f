/**
 * The Lambda bundles, built as `cdk synth` builds them, so the sizes and cold starts measured
 * are those of the deployed artifacts.
 */

import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { type BuildOptions, build } from 'esbuild';
import { lambdaBundling } from '../../infra/constructs/bundling.ts';
import { groups } from '../../shared/routes.ts';
import { repoRoot } from './runtime.ts';

export { lambdaBundling };

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

/** An API group's Lambda, a background Lambda (no route reaches it) or a baseline of the bench. */
export type BundleKind = 'api' | 'background' | 'baseline';

export interface BundleInfo {
  name: string;
  kind: BundleKind;
  file: string;
  bytes: number;
  gzipBytes: number;
  sourceMapBytes: number;
}

/** Bundles one entry into `<dir>/index.mjs` (the file name NodejsFunction uses for ESM). */
export async function bundleEntry(
  name: string,
  kind: BundleKind,
  entry: string,
  dir: string,
): Promise<BundleInfo> {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'index.mjs');
  await build(esbuildOptionsFor(entry, file));
  return {
    name,
    kind,
    file,
    bytes: statSync(file).size,
    gzipBytes: gzipSync(readFileSync(file)).length,
    sourceMapBytes: statSync(`${file}.map`).size,
  };
}

/** Baselines bundled the same way: nothing at all, then only the SDK client every group uses. */
export const BASELINES = [
  { name: '(empty handler)', dir: 'empty', entry: join(import.meta.dirname, 'empty-handler.ts') },
  { name: '(DynamoDB client only)', dir: 'sdk', entry: join(import.meta.dirname, 'sdk-handler.ts') },
] as const;

/**
 * The Lambdas no route reaches (infra/constructs/background-functions.ts), each invoked with an
 * empty event at cold start. One added there must be added here, with the event it needs.
 */
export const BACKGROUND_FUNCTIONS = ['scheduler'] as const;

const functionsDir = join(repoRoot, 'functions');

/** Folders of functions/ with an index.ts that are neither a group nor a known background Lambda. */
export function unbenchedFunctions(): string[] {
  const known = new Set<string>([...groups, ...BACKGROUND_FUNCTIONS]);
  return readdirSync(functionsDir, { withFileTypes: true })
    .filter(
      (d) => d.isDirectory() && !known.has(d.name) && existsSync(join(functionsDir, d.name, 'index.ts')),
    )
    .map((d) => d.name);
}

/** Every API group's bundle, the background functions', then the baselines. */
export async function bundleAll(outDir: string): Promise<BundleInfo[]> {
  const bundles: BundleInfo[] = [];
  const lambdas = [
    ...groups.map((name) => ({ name, kind: 'api' as const, what: 'group', where: 'shared/routes.ts' })),
    ...BACKGROUND_FUNCTIONS.map((name) => ({
      name,
      kind: 'background' as const,
      what: 'background function',
      where: 'test/bench/bundle.ts',
    })),
  ];
  for (const { name, kind, what, where } of lambdas) {
    const entry = join(functionsDir, name, 'index.ts');
    // Say which one, rather than esbuild's bare "could not resolve".
    if (!existsSync(entry)) throw new Error(`${what} "${name}" is in ${where} but ${entry} does not exist`);
    bundles.push(await bundleEntry(name, kind, entry, join(outDir, name)));
  }
  for (const baseline of BASELINES) {
    bundles.push(await bundleEntry(baseline.name, 'baseline', baseline.entry, join(outDir, baseline.dir)));
  }
  return bundles;
}
