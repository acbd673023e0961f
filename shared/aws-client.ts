/**
 * The AWS SDK's logger middleware filters every input and output of a call for the client's
 * logger, even when that logger is the default no-op, which is all this service uses (it logs
 * through `shared/log.ts`). Removed, it saves a few per cent of the CPU of a DynamoDB-heavy
 * invocation (docs/benchmarks.md, "Webhook pipeline: two node costs removed").
 */
export function withoutSdkLogging<T extends { middlewareStack: { remove(name: string): boolean } }>(
  client: T,
): T {
  client.middlewareStack.remove('loggerMiddleware');
  return client;
}
