/**
 * Business and pipeline metrics in CloudWatch's embedded metric format (Powertools Metrics):
 * each document is a JSON line on stdout that CloudWatch Logs turns into metrics, no API call.
 * Names and dimensions are in `shared/resources.ts` (`observability`), which the stack's
 * dashboard and alarms read too. Every document has the dimensions `service` and `mode`.
 *
 * `countMetric` buffers until `flushMetrics()`, which every handler calls once at the end of
 * its invocation (`withMetrics`); `publishMetrics` writes one document at once, with properties
 * (ids) that find its data point in the logs. The local runtime sets `METRICS_FILE`: documents
 * go there, one per line, and stay out of the request log.
 */

import { appendFileSync } from 'node:fs';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { config } from './config.ts';
import type { Mode } from './domain/scope.ts';
import { type MetricName, observability } from './resources.ts';

const newMetrics = (mode: Mode) =>
  new Metrics({
    namespace: observability.metricNamespace,
    serviceName: observability.serviceName,
    defaultDimensions: { mode },
  });

/** One buffer per mode: a document has one set of dimensions. */
const buffers: Record<Mode, Metrics> = { live: newMetrics('live'), test: newMetrics('test') };
/**
 * This invocation's counts, summed until `flushMetrics()`: one value per metric in the document,
 * however many calls counted it (Powertools would otherwise write a document of its own to stdout,
 * past `METRICS_FILE`, at 100 values of one metric).
 */
const counts: Record<Mode, Map<MetricName, number>> = { live: new Map(), test: new Map() };
/**
 * What the counts were about (`countMetric`'s `about`, e.g. `accountIds`), written beside them as
 * metadata: which accounts or acquirers a data point counted, found in the logs (Logs Insights,
 * and the tests that tell their own counts from other files').
 */
const abouts: Record<Mode, Map<string, Set<string>>> = { live: new Map(), test: new Map() };
/** And one per mode for the documents written at once (`publishMetrics`, once per delivery attempt). */
const singles: Record<Mode, Metrics> = { live: newMetrics('live'), test: newMetrics('test') };

/** Writes the buffered document (none when empty: Powertools would warn on every invocation). */
function publish(metrics: Metrics): void {
  if (!metrics.hasStoredMetrics()) return;
  const file = config.metricsFile;
  if (file === undefined) {
    metrics.publishStoredMetrics();
    return;
  }
  appendFileSync(file, `${JSON.stringify(metrics.serializeMetrics())}\n`);
  metrics.clearMetrics();
  metrics.clearMetadata();
}

export type MetricValues = Partial<Record<MetricName, number>>;

const unitOf = (name: MetricName) =>
  name === observability.metrics.webhookLatency ? MetricUnit.Milliseconds : MetricUnit.Count;

function add(metrics: Metrics, values: MetricValues): void {
  for (const [name, value] of Object.entries(values) as [MetricName, number][])
    metrics.addMetric(name, unitOf(name), value);
}

/**
 * Adds to this invocation's counts of `mode`, written by `flushMetrics()`; each `about` value
 * (an id) joins the list of its key in the document (e.g. `accountIds: "acct_1,acct_2"`).
 */
export function countMetric(mode: Mode, values: MetricValues, about: Record<string, string> = {}): void {
  for (const [name, value] of Object.entries(values) as [MetricName, number][])
    counts[mode].set(name, (counts[mode].get(name) ?? 0) + value);
  for (const [key, id] of Object.entries(about)) {
    const ids = abouts[mode].get(key) ?? new Set();
    abouts[mode].set(key, ids.add(id));
  }
}

/** Writes every count so far, one document per mode. */
export function flushMetrics(): void {
  for (const mode of ['live', 'test'] as const) {
    add(buffers[mode], Object.fromEntries(counts[mode]));
    if (counts[mode].size > 0)
      for (const [key, ids] of abouts[mode]) buffers[mode].addMetadata(key, [...ids].sort().join(','));
    counts[mode].clear();
    abouts[mode].clear();
    publish(buffers[mode]);
  }
}

/** One document of its own, now, with `properties` beside the values (not dimensions: no cost per value). */
export function publishMetrics(mode: Mode, values: MetricValues, properties: Record<string, string>): void {
  const metrics = singles[mode];
  for (const [key, value] of Object.entries(properties)) metrics.addMetadata(key, value);
  add(metrics, values);
  publish(metrics);
}

/** Wraps a handler so that its metrics are written once it ends, whether it returns or throws. */
export const withMetrics =
  <A extends unknown[], R>(handler: (...args: A) => Promise<R>) =>
  async (...args: A): Promise<R> => {
    try {
      return await handler(...args);
    } finally {
      flushMetrics();
    }
  };
