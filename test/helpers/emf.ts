/** Reads the EMF metric documents that `shared/metrics.ts` appends to `METRICS_FILE`, one per line. */

import { existsSync, readFileSync } from 'node:fs';

export interface EmfDocument {
  _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[] };
  [field: string]: unknown;
}

/** Every complete document written so far (a line still being written is skipped). */
export function emfDocuments(file: string): EmfDocument[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line) => {
      try {
        return line ? [JSON.parse(line) as EmfDocument] : [];
      } catch {
        return [];
      }
    });
}

/** The sum of a metric's values in a document (0 when it does not declare the metric). */
export function metricSum(document: EmfDocument, name: string): number {
  const declared = document._aws.CloudWatchMetrics.some((d) => d.Metrics.some((m) => m.Name === name));
  if (!declared) return 0;
  const value = document[name];
  return Array.isArray(value) ? value.reduce((sum: number, v) => sum + Number(v), 0) : Number(value);
}

/** A metric's total over the documents of one mode. */
export const metricTotal = (documents: readonly EmfDocument[], name: string, mode: 'live' | 'test') =>
  documents.filter((d) => d.mode === mode).reduce((sum, d) => sum + metricSum(d, name), 0);

/** The documents whose `key` list (`countMetric`'s `about`, e.g. `accountIds`) names `id`. */
export const documentsAbout = (documents: readonly EmfDocument[], key: string, id: string) =>
  documents.filter((d) => typeof d[key] === 'string' && d[key].split(',').includes(id));
