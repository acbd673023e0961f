import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { streamPositionsFile } from '../../infra/local/pollers.ts';

describe("the local stream poller's positions file", () => {
  const path = () => join(mkdtempSync(join(tmpdir(), 'pix-positions-')), 'stream-positions.json');

  it('keeps the last position of each shard across loads', () => {
    const file = path();
    const positions = streamPositionsFile(file);
    expect(positions.load()).toEqual({});
    positions.save('shard-1', '000000000000000000017');
    positions.save('shard-2', '000000000000000000020');
    positions.save('shard-1', '000000000000000000039');
    expect(streamPositionsFile(file).load()).toEqual({
      'shard-1': '000000000000000000039',
      'shard-2': '000000000000000000020',
    });
  });

  it('reads an unreadable file (a runtime killed mid-write before it was replaced whole) as no positions', () => {
    const file = path();
    writeFileSync(file, '{"shard-1": "0000');
    const positions = streamPositionsFile(file);
    expect(positions.load()).toEqual({});
    positions.save('shard-1', '000000000000000000001');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ 'shard-1': '000000000000000000001' });
  });
});
