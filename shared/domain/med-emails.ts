/**
 * The MED notices sent to an account's contact e-mail: a case was opened against one of its
 * charges, and a case's money reached its final destination. Every word is decided here, pure,
 * from the public `med_case` object the event carries (so nothing internal can leak); sending is
 * the mailer's job (`shared/email/ses-mailer.ts`).
 *
 * In Brazilian Portuguese, as the merchants read their receipts: amounts in `R$ 1.234,56`,
 * instants in America/Sao_Paulo.
 */

import { escapeHtml, formatBrazilDateTime, formatMoney } from './format.ts';
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

/** Escaped text whose amounts never break between `R$` and the number. */
const htmlText = (text: string): string => escapeHtml(text).replace(/R\$ (?=\d)/g, () => 'R$&#160;');

/** How the deadline is read: merchants outside São Paulo's zone (Manaus, Acre) must know which clock. */
const deadlineText = (iso: string, zone = 'horário de Brasília'): string =>
  `${formatBrazilDateTime(iso, { seconds: false })} (${zone})`;

/** What the money did, in a sentence the merchant can act on (or know not to). */
function resolutionSentence(medCase: MedCaseObject, amount: string): string {
  switch (medCase.money_outcome) {
    case 'refunded_to_merchant':
      return `Decisão a seu favor: o valor de ${amount} voltou ao seu saldo disponível.`;
    case 'lost':
      return medCase.status === 'accepted'
        ? `Você aceitou o caso: o valor de ${amount} foi devolvido ao pagador e não volta ao seu saldo.`
        : `O MED foi mantido: o valor de ${amount} foi devolvido ao pagador e não volta ao seu saldo.`;
    case 'closed_without_refund':
      return `O caso foi encerrado sem devolução: o valor de ${amount} não volta ao seu saldo.`;
    default:
      return 'O caso foi encerrado.';
  }
}

/** The subject and both bodies of the notice of `eventType` about `medCase`. */
export function medNoticeEmail(
  eventType: MedNoticeEventType,
  medCase: MedCaseObject,
  context: {
    merchantName: string;
    mode: 'live' | 'test';
    /** Whether the opened case holds its amount: not while a reported amount other than the charge's awaits review. */
    amountHeld?: boolean;
  },
): EmailMessage {
  const opened = eventType === 'med_case.created';
  const testPrefix = context.mode === 'test' ? '[Teste] ' : '';
  const amount = formatMoney(medCase.amount, medCase.currency);
  const deadline = medCase.response_deadline ? deadlineText(medCase.response_deadline) : null;
  // What decides the case comes first: a phone's inbox shows the subject's first ~40 characters.
  const subject = opened
    ? `${testPrefix}Novo caso MED de ${amount}` +
      (medCase.response_deadline
        ? `: responda até ${deadlineText(medCase.response_deadline, 'Brasília')}`
        : '') +
      ` (cobrança ${medCase.charge_id})`
    : `${testPrefix}Caso MED resolvido: ${outcomeLabel(medCase.money_outcome)} (${amount}, ${medCase.id})`;
  const intro = opened
    ? `O banco do pagador abriu um caso MED de ${amount} contra uma cobrança Pix de ${context.merchantName}. ` +
      (context.amountHeld === false
        ? 'O valor informado pelo banco é diferente do da cobrança: nada foi retido do seu saldo enquanto nossa equipe analisa o caso.'
        : 'Esse valor fica retido no seu saldo até a decisão.')
    : `${resolutionSentence(medCase, amount)} Cobrança Pix de ${context.merchantName}.`;
  const fields: [string, string][] = [
    ['Caso', medCase.id],
    ['Cobrança', medCase.charge_id],
    ['Valor', amount],
    ['Tipo', TYPE_LABELS[medCase.type]],
    ['Situação', `${STATUS_LABELS[medCase.status]} (${medCase.status})`],
    // The API's own words beside the label, so a merchant can match the notice to the API.
    ...(medCase.money_outcome
      ? ([['Resultado', `${outcomeLabel(medCase.money_outcome)} (${medCase.money_outcome})`]] as [
          string,
          string,
        ][])
      : []),
    ...(opened && deadline ? ([['Prazo de resposta', deadline]] as [string, string][]) : []),
  ];
  const caseRoute = `/v1/med/cases/${medCase.id}`;
  const closing = opened
    ? `O que fazer${deadline ? `, até ${deadline}` : ' (o banco não informou prazo: responda o quanto antes)'}: ` +
      `conteste o caso enviando evidências (POST ${caseRoute}/evidence) e o motivo (POST ${caseRoute}/appeal), ` +
      `ou aceite-o (POST ${caseRoute}/accept; o valor é devolvido ao pagador).`
    : `Nenhuma ação é necessária. Detalhes: GET ${caseRoute}.`;
  const testNote = 'Ambiente de teste: nenhum dinheiro real foi movimentado.';
  const text = [
    intro,
    '',
    ...fields.map(([label, value]) => `${label}: ${value}`),
    '',
    closing,
    ...(context.mode === 'test' ? ['', testNote] : []),
  ].join('\n');
  // E-mail-client-safe: inline styles only (clients drop <style> and <body> attributes), no
  // colours (the client's dark mode recolours plain text), and every cell may wrap anywhere, so
  // a long merchant name or id never widens the message past a phone's screen.
  const wrap = 'overflow-wrap:anywhere;word-break:break-word';
  const rows = fields
    .map(
      ([label, value]) =>
        `<tr><th align="left" valign="top" style="text-align:left;vertical-align:top;padding:2px 12px 2px 0;white-space:nowrap">${escapeHtml(label)}</th>` +
        `<td style="padding:2px 0;${wrap}${label === 'Prazo de resposta' ? ';font-weight:bold' : ''}">${htmlText(value)}</td></tr>`,
    )
    .join('');
  const html =
    '<!doctype html><html lang="pt-BR"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${escapeHtml(subject)}</title></head><body style="margin:0;padding:0">` +
    `<div style="max-width:600px;padding:16px;font-family:Arial,Helvetica,sans-serif;font-size:16px;line-height:1.5;${wrap}">` +
    `<p style="margin:0 0 16px">${htmlText(intro)}</p>` +
    `<table role="presentation" cellpadding="0" cellspacing="0" style="border-collapse:collapse;margin:0 0 16px">${rows}</table>` +
    `<p style="margin:0 0 16px">${htmlText(closing)}</p>` +
    (context.mode === 'test' ? `<p style="margin:0"><em>${testNote}</em></p>` : '') +
    '</div></body></html>';
  return { subject, text, html };
}

const outcomeLabel = (outcome: MoneyOutcome | null): string =>
  outcome ? OUTCOME_LABELS[outcome] : 'Sem resultado';
