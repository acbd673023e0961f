/** What cold-child.ts prints for cold-start.ts: one line, this marker, then JSON. */

export const COLD_RESULT_MARKER = 'BENCH_COLD_RESULT ';

export interface ColdRunResult {
  /** From process start (performance.timeOrigin) to just before the bundle is imported. */
  bootMs: number;
  /** Loading and evaluating the bundle: Lambda's "Init" phase. */
  importMs: number;
  /** The first handler call, including lazy work done on first use (SDK client, connections). */
  invokeMs: number;
  /** `statusCode` of the answer; absent for a background function's. */
  status: number | undefined;
  /** HTTP requests the process sent to DynamoDB (import and invoke): a call count for any bundle. */
  dynamodbRequests: number;
}
