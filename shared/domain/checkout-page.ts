/**
 * The hosted checkout page: amount, QR, copy-and-paste code, a countdown to `expires_at` (and
 * that instant in Brasília time, for a charge that lasts days) and a status that turns to paid or
 * expired without a reload (it polls the status document). Pure HTML with inline CSS and a small
 * inline script under a nonce-based CSP; no payer data.
 */

import { escapeHtml, formatBrazilDateTime, formatMoney } from './format.ts';
import { type PublicStatus, publicStatuses } from './transaction-status.ts';

interface CheckoutView {
  chargeId: string;
  merchantName: string;
  amount: number;
  currency: string;
  status: PublicStatus;
  brCode: string | undefined;
  qrCodeUrl: string;
  statusUrl: string;
  expiresAt: string;
}

/** The document's head, its styles under the CSP's nonce, shared by the payer's pages. */
const pageHead = (title: string, nonce: string) => `<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)}</title>
<style nonce="${nonce}">
  :root { color-scheme: light; --ink: #0f172a; --muted: #64748b; --brand: #32bcad; --brand-ink: #0f766e; --ok: #15803d; --bad: #b91c1c; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 16px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: #f1f5f9; }
  main { max-width: 420px; margin: 0 auto; padding: 20px 16px 32px; }
  .card { background: #fff; border-radius: 16px; padding: 20px; box-shadow: 0 1px 3px rgb(0 0 0 / .08); text-align: center; }
  .merchant { color: var(--muted); font-size: 14px; margin: 0; }
  .amount { font-size: 34px; font-weight: 700; line-height: 1.2; margin: 4px 0 12px; }
  .status { display: inline-block; padding: 4px 12px; border-radius: 999px; font-size: 14px; font-weight: 600; background: #e0f2fe; color: #075985; }
  .status.paid { background: #dcfce7; color: var(--ok); }
  .status.expired, .status.failed, .status.cancelled { background: #fee2e2; color: var(--bad); }
  .qr { width: 100%; max-width: 260px; aspect-ratio: 1; margin: 16px auto 8px; display: block; image-rendering: pixelated; }
  .countdown { color: var(--muted); font-size: 14px; margin: 0; }
  .valid-until { color: var(--muted); font-size: 13px; margin: 2px 0 16px; }
  textarea { width: 100%; height: 72px; font: 12px/1.3 ui-monospace, monospace; border: 1px solid #cbd5e1; border-radius: 8px; padding: 8px; resize: none; color: var(--muted); }
  button { width: 100%; margin-top: 10px; padding: 14px; border: 0; border-radius: 10px; background: var(--brand-ink); color: #fff; font: inherit; font-size: 16px; font-weight: 600; }
  button:active { filter: brightness(.95); }
  .done { display: none; font-size: 18px; font-weight: 600; margin: 24px 0 8px; }
  .settled .pay { display: none; }
  .settled .done { display: block; }
  .help { color: var(--muted); font-size: 13px; margin-top: 16px; }
  .missing { font-size: 22px; margin: 8px 0 0; }
</style>
</head>
`;

/**
 * What a payer's browser gets for a checkout link that names no charge (mistyped, cut short):
 * a page in the checkout's own look, not the API's JSON error.
 */
export const renderCheckoutNotFoundPage = (
  nonce: string,
): string => `${pageHead('Cobrança não encontrada', nonce)}<body>
<main>
  <div class="card">
    <h1 class="missing">Cobrança não encontrada</h1>
    <p class="help">Confira o link que a loja enviou, ou peça um novo código Pix à loja.</p>
  </div>
</main>
</body>
</html>
`;

export function renderCheckoutPage(view: CheckoutView, nonce: string): string {
  const data = JSON.stringify({
    status: view.status,
    expiresAt: view.expiresAt,
    statusUrl: view.statusUrl,
  }).replace(/</g, '\\u003c');
  return `${pageHead(`Pagamento Pix · ${view.merchantName}`, nonce)}<body>
<main>
  <div class="card${view.status === 'pending' ? '' : ' settled'}" id="card">
    <p class="merchant">${escapeHtml(view.merchantName)}</p>
    <h1 class="amount" data-testid="amount">${escapeHtml(formatMoney(view.amount, view.currency))}</h1>
    <span class="status ${view.status}" id="status" role="status" data-testid="status">${statusLabel(view.status)}</span>
    <div class="pay">
      ${view.brCode ? `<img class="qr" src="${escapeHtml(view.qrCodeUrl)}" alt="QR Code Pix" width="260" height="260">` : ''}
      <p class="countdown" id="countdown" data-testid="countdown"></p>
      <p class="valid-until" data-testid="valid-until">Válido até ${formatBrazilDateTime(view.expiresAt, { seconds: false })} (horário de Brasília)</p>
      ${
        view.brCode
          ? `<textarea id="code" readonly aria-label="Pix copia e cola" data-testid="br-code">${escapeHtml(view.brCode)}</textarea>
      <button type="button" id="copy">Copiar código Pix</button>`
          : ''
      }
      <p class="help">Abra o app do seu banco, escolha Pix e leia o QR Code ou cole o código.</p>
    </div>
    <p class="done" id="done" data-testid="done">${doneText(view.status)}</p>
  </div>
</main>
<script nonce="${nonce}">
(() => {
  const state = ${data};
  const labels = ${JSON.stringify(Object.fromEntries(publicStatuses.map((s) => [s, statusLabel(s)])))};
  const done = ${JSON.stringify(Object.fromEntries(publicStatuses.map((s) => [s, doneText(s)])))};
  const el = (id) => document.getElementById(id);
  const show = (status) => {
    state.status = status;
    el('status').textContent = labels[status] || status;
    el('status').className = 'status ' + status;
    el('done').textContent = done[status] || '';
    el('card').classList.toggle('settled', status !== 'pending');
  };
  const tick = () => {
    const left = Math.max(0, Math.floor((Date.parse(state.expiresAt) - Date.now()) / 1000));
    const m = Math.floor(left / 60), s = left % 60;
    el('countdown').textContent = 'Expira em ' + (m >= 60 ? Math.floor(m / 60) + 'h ' + (m % 60) + 'min' : m + ':' + String(s).padStart(2, '0'));
    // The server decides: at zero, ask it now rather than trusting this device's clock.
    if (left === 0 && state.status === 'pending' && !state.checkedAtZero) { state.checkedAtZero = true; refresh(); }
  };
  // Statuses that can still change on their own: keep watching them.
  const live = (status) => status === 'pending' || status === 'processing';
  const refresh = async () => {
    try {
      const r = await fetch(state.statusUrl, { cache: 'no-store' });
      if (r.ok) { const body = await r.json(); if (body.status !== state.status) show(body.status); }
    } catch {}
  };
  const poll = async () => {
    await refresh();
    if (live(state.status)) setTimeout(poll, 2000);
  };
  const copy = el('copy');
  if (copy) copy.addEventListener('click', async () => {
    const code = el('code');
    try { await navigator.clipboard.writeText(code.value); } catch { code.select(); document.execCommand('copy'); }
    copy.textContent = 'Código copiado!';
    setTimeout(() => { copy.textContent = 'Copiar código Pix'; }, 2500);
  });
  tick(); setInterval(tick, 1000);
  if (live(state.status)) setTimeout(poll, 2000);
})();
</script>
</body>
</html>`;
}

function statusLabel(status: PublicStatus): string {
  return {
    pending: 'Aguardando pagamento',
    processing: 'Em análise',
    paid: 'Pago',
    failed: 'Falhou',
    expired: 'Expirado',
    cancelled: 'Cancelado',
    refunded: 'Devolvido',
    disputed: 'Em disputa',
  }[status];
}

function doneText(status: PublicStatus): string {
  if (status === 'paid' || status === 'disputed') return 'Pagamento confirmado. Obrigado!';
  if (status === 'expired') return 'Este Pix expirou. Peça um novo código à loja.';
  if (status === 'processing') return 'Pagamento recebido, em análise.';
  if (status === 'refunded') return 'O valor pago foi devolvido.';
  if (status === 'pending') return '';
  return 'Esta cobrança não pode mais ser paga.';
}
