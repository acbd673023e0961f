/**
 * The docs and the code point at each other: the repository paths the README and docs/ name
 * exist, and every section a code comment cites (`docs/data-model.md, "Customer velocity"`,
 * `README, "Idempotency"`) is in the document it names.
 */

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const docs = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

function sourceFiles(folder: string): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name).slice(root.length + 1));
}

describe('references between the docs and the code', () => {
  it('names only paths of the repository in the README and docs/', () => {
    const missing = docs.flatMap((doc) =>
      [...read(doc).matchAll(/`((?:shared|functions|infra|bin|test|docs)\/[\w./-]+\.(?:ts|md|json))`/g)]
        .map((match) => match[1] ?? '')
        .filter((path) => !existsSync(join(root, path)))
        .map((path) => `${doc}: ${path}`),
    );
    expect(missing).toEqual([]);
  });

  it('cites only sections that are in the cited document: a heading or a bold label', () => {
    const cited = ['shared', 'functions', 'infra', 'bin', 'test'].flatMap(sourceFiles).flatMap((file) =>
      [...read(file).matchAll(/(docs\/[\w-]+\.md|README(?:\.md)?),? "([^"]+)"/g)].map((match) => ({
        file,
        doc: match[1] === 'README' ? 'README.md' : (match[1] ?? ''),
        // A citation may wrap across comment lines.
        section: (match[2] ?? '').replace(/\s*\n\s*(?:\*|\/\/)?\s*/g, ' '),
      })),
    );
    expect(cited.length).toBeGreaterThan(20);
    const sections = new Map(
      docs.map((doc) => {
        const text = read(doc);
        const headings = text.split('\n').filter((line) => line.startsWith('#'));
        const labels = [...text.matchAll(/\*\*([^*]+)\*\*/g)].map((match) => match[1] ?? '');
        return [doc, [...headings, ...labels].join('\n').toLowerCase()];
      }),
    );
    const unknown = cited.filter(({ doc, section }) => !sections.get(doc)?.includes(section.toLowerCase()));
    expect(unknown.map(({ file, doc, section }) => `${file}: ${doc}, "${section}"`)).toEqual([]);
  });
});
