/**
 * The cold-start baseline: a handler that does nothing, bundled and started like the real ones.
 * What a group's cold start costs beyond this is its own code and dependencies.
 */
export const handler = async () => ({ statusCode: 200 });
