/**
 * The MED notices sent to an account's contact e-mail: a case was opened against one of its
 * charges, and a case's money reached its final destination. Every word is decided here, pure,
 * from the public `med_case` object the event carries (so nothing internal can leak); sending is
 * the mailer's job (`shared/email/ses-mailer.ts`).
 *
 * In Brazilian Portuguese, as the merchants read their receipts: amounts in `R$ 1.234,56`,
 * instants in America/Sao_Paulo.
 */

import { formatBrazilDateTime, formatMoney } from './format.ts';
import type { MedCaseObject, MedCaseStatus, MedCaseType, MoneyOutcome } from './med-cases.ts';

/** The events that are also e-mailed. */
const MED_NOTICE_EVENT_TYPES = ['med_case.created', 'med.resolved'] as const;
export type MedNoticeEventType = (typeof MED_NOTICE_EVENT_TYPES)[number];

export const isMedNoticeEventType = (type: string): type is MedNoticeEventType =>
  (MED_NOTICE_EVENT_TYPES as readonly string[]).includes(type);

export interface EmailMessage {
  subject: string;
  text: string;
  html: string;
}

const TYPE_LABELS: Record<MedCaseType, string> = {
  med: 'MED (Mecanismo Especial de Devolução)',
  chargeback: 'Chargeback',
  dispute: 'Disputa',
  fraud: 'Fraude',
};

const STATUS_LABELS: Record<MedCaseStatus, string> = {
  open: 'Aberto',
  appealed: 'Em contestação',
  accepted: 'Aceito',
  rejected: 'Rejeitado',
  closed: 'Encerrado',
};

const OUTCOME_LABELS: Record<MoneyOutcome, string> = {
  refunded_to_merchant: 'Valor devolvido ao seu saldo',
  lost: 'Valor devolvido ao pagador',
  closed_without_refund: 'Encerrado sem devolução ao seu saldo',
};

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The subject and both bodies of the notice of `eventType` about `medCase`. */
export function medNoticeEmail(
  eventType: MedNoticeEventType,
  medCase: MedCaseObject,
  context: { merchantName: string; mode: 'live' | 'test' },
): EmailMessage {
  const opened = eventType === 'med_case.created';
  const testPrefix = context.mode === 'test' ? '[Teste] ' : '';
  const subject = opened
    ? `${testPrefix}Novo caso MED ${medCase.id} na cobrança ${medCase.charge_id}`
    : `${testPrefix}Caso MED ${medCase.id} resolvido: ${outcomeLabel(medCase.money_outcome)}`;
  const intro = opened
    ? `O banco do pagador abriu um caso MED contra uma cobrança Pix de ${context.merchantName}. ` +
      'O valor contestado ficou retido no seu saldo até a decisão.'
    : `O caso MED de ${context.merchantName} chegou ao destino final do dinheiro.`;
  const fields: [string, string][] = [
    ['Caso', medCase.id],
    ['Cobrança', medCase.charge_id],
    ['Valor', formatMoney(medCase.amount, medCase.currency)],
    ['Tipo', TYPE_LABELS[medCase.type]],
    ['Situação', `${STATUS_LABELS[medCase.status]} (${medCase.status})`],
    // The API's own words beside the label, so a merchant can match the notice to the API.
    ...(medCase.money_outcome
      ? ([['Resultado', `${outcomeLabel(medCase.money_outcome)} (${medCase.money_outcome})`]] as [
          string,
          string,
        ][])
      : []),
    ...(opened && medCase.response_deadline
      ? ([['Prazo de resposta', formatBrazilDateTime(medCase.response_deadline, { seconds: false })]] as [
          string,
          string,
        ][])
      : []),
  ];
  const closing = opened
    ? 'Envie as evidências e responda pela API (/v1/med/cases) dentro do prazo.'
    : `Os detalhes estão em GET /v1/med/cases/${medCase.id}.`;
  const text = [
    intro,
    '',
    ...fields.map(([label, value]) => `${label}: ${value}`),
    '',
    closing,
    ...(context.mode === 'test' ? ['', 'Ambiente de teste: nenhum dinheiro real foi movimentado.'] : []),
  ].join('\n');
  const rows = fields
    .map(
      ([label, value]) => `<tr><th align="left">${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`,
    )
    .join('');
  const html =
    `<!doctype html><html lang="pt-BR"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>` +
    `<body><p>${escapeHtml(intro)}</p><table>${rows}</table><p>${escapeHtml(closing)}</p>` +
    (context.mode === 'test'
      ? '<p><em>Ambiente de teste: nenhum dinheiro real foi movimentado.</em></p>'
      : '') +
    '</body></html>';
  return { subject, text, html };
}

const outcomeLabel = (outcome: MoneyOutcome | null): string =>
  outcome ? OUTCOME_LABELS[outcome] : 'Sem resultado';
