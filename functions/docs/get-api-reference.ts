import { randomBytes } from 'node:crypto';
import type { RouteHandler } from '#shared/http/types.ts';

/**
 * GET /docs: the reference page (Scalar) over `/v1/openapi.json`. Its script is served by this
 * service (`/docs/api-reference.js`) and the policy allows no other origin, so the page loads
 * nothing from a CDN and sends nothing elsewhere (no web fonts, no request proxy).
 */
export const getApiReference: RouteHandler<undefined> = async () => {
  const nonce = randomBytes(16).toString('base64');
  // No web fonts, no AI agent or MCP buttons (they call Scalar's own services), no toolbar.
  const config = {
    url: '/v1/openapi.json',
    withDefaultFonts: false,
    hideClientButton: true,
    agent: { disabled: true },
    mcp: { disabled: true },
    showDeveloperTools: 'never',
  };
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pix payment service API reference</title>
<link rel="icon" href="data:,">
</head>
<body>
<div id="app"></div>
<script src="/docs/api-reference.js"></script>
<script nonce="${nonce}">Scalar.createApiReference('#app', ${JSON.stringify(config)});</script>
</body>
</html>
`;
  return {
    status: 200,
    raw: { contentType: 'text/html; charset=utf-8', body: html },
    headers: {
      'Cache-Control': 'public, max-age=300',
      // Scalar injects its styles at run time, hence 'unsafe-inline' for styles only.
      'Content-Security-Policy': `default-src 'none'; script-src 'self' 'nonce-${nonce}'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; frame-ancestors 'none'`,
      'X-Content-Type-Options': 'nosniff',
    },
  };
};
