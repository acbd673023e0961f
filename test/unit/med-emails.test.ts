import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { contactEmailSchema } from '../../shared/domain/account-settings.ts';
import type { MedCaseObject } from '../../shared/domain/med-cases.ts';
import { isMedNoticeEventType, medNoticeEmail } from '../../shared/domain/med-emails.ts';

const medCase = (overrides: Partial<MedCaseObject> = {}): MedCaseObject => ({
  id: 'med_019aa6b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b',
  object: 'med_case',
  type: 'med',
  status: 'open',
  amount: 10_050,
  currency: 'BRL',
  charge_id: 'ch_019aa6b2-3c4d-7e5f-8a9b-0c1d2e3f4a5c',
  reason: 'payer says <script>',
  response_deadline: '2030-07-01T02:59:00.000Z',
  evidence_requested_at: null,
  appeal_reason: null,
  appealed_at: null,
  evidence_count: 0,
  money_outcome: null,
  opened_at: '2030-06-20T12:00:00.000Z',
  closed_at: null,
  created_at: '2030-06-20T12:00:00.000Z',
  updated_at: '2030-06-20T12:00:00.000Z',
  ...overrides,
});

describe('MED notice e-mails', () => {
  it('e-mails only the opening and the resolution', () => {
    expect(
      ['med_case.created', 'med_case.updated', 'med.resolved', 'charge.paid'].filter(isMedNoticeEventType),
    ).toEqual(['med_case.created', 'med.resolved']);
  });

  it('names the case, the charge, the amount in BRL, the type, the status and the deadline in São Paulo time', () => {
    const email = medNoticeEmail('med_case.created', medCase(), { merchantName: 'Loja <A&B>', mode: 'live' });
    // Amount and deadline first: a phone's inbox shows only the subject's start.
    expect(email.subject).toBe(
      'Novo caso MED de R$ 100,50: responda até 30/06/2030 23:59 (Brasília) (cobrança ch_019aa6b2-3c4d-7e5f-8a9b-0c1d2e3f4a5c)',
    );
    expect(email.text.split('\n')).toEqual(
      expect.arrayContaining([
        'Caso: med_019aa6b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b',
        'Cobrança: ch_019aa6b2-3c4d-7e5f-8a9b-0c1d2e3f4a5c',
        'Valor: R$ 100,50',
        'Tipo: MED (Mecanismo Especial de Devolução)',
        'Situação: Aberto (open)',
        // 02:59 UTC on 1 July is 23:59 on 30 June in São Paulo.
        'Prazo de resposta: 30/06/2030 23:59 (horário de Brasília)',
      ]),
    );
    expect(email.text).not.toContain('Teste');
    // Merchant-supplied text is escaped in HTML; the payer's reason is not sent at all.
    expect(email.html).toContain('Loja &#60;A&#38;B&#62;');
    expect(email.html).not.toContain('<A&B>');
    expect(`${email.text}${email.html}`).not.toContain('script');
  });

  it('gives the money outcome of a resolution, no deadline, and marks test mode', () => {
    const email = medNoticeEmail(
      'med.resolved',
      medCase({ status: 'closed', money_outcome: 'refunded_to_merchant' }),
      { merchantName: 'Loja', mode: 'test' },
    );
    expect(email.subject).toBe(
      '[Teste] Caso MED resolvido: Valor devolvido ao seu saldo (R$ 100,50, med_019aa6b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b)',
    );
    expect(email.text).toContain('Resultado: Valor devolvido ao seu saldo (refunded_to_merchant)');
    expect(email.text).toContain('Situação: Encerrado (closed)');
    expect(email.text).not.toContain('Prazo');
    expect(email.text).toContain('Ambiente de teste');
  });

  it('tells the merchant what to do and by when, in Brasília time, and what to do without a deadline', () => {
    const withDeadline = medNoticeEmail('med_case.created', medCase(), {
      merchantName: 'Loja',
      mode: 'live',
    });
    const route = '/v1/med/cases/med_019aa6b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b';
    expect(withDeadline.text).toContain('O que fazer, até 30/06/2030 23:59 (horário de Brasília): conteste');
    for (const step of [`POST ${route}/evidence`, `POST ${route}/appeal`, `POST ${route}/accept`])
      expect(withDeadline.text).toContain(step);
    const without = medNoticeEmail('med_case.created', medCase({ response_deadline: null }), {
      merchantName: 'Loja',
      mode: 'live',
    });
    // No deadline shown, so no "dentro do prazo" pointing at one.
    expect(without.text).not.toMatch(/prazo de resposta/i);
    expect(without.text).toContain('o banco não informou prazo: responda o quanto antes');
    expect(without.subject).toBe(
      'Novo caso MED de R$ 100,50 (cobrança ch_019aa6b2-3c4d-7e5f-8a9b-0c1d2e3f4a5c)',
    );
    expect(withDeadline.text).toContain('Esse valor fica retido no seu saldo até a decisão.');
    // Nothing is held for a reported amount other than the charge's: the notice must not say it is.
    const mismatch = medNoticeEmail('med_case.created', medCase(), {
      merchantName: 'Loja',
      mode: 'live',
      amountHeld: false,
    });
    expect(mismatch.text).toContain(
      'O valor informado pelo banco é diferente do da cobrança: nada foi retido do seu saldo enquanto nossa equipe analisa o caso.',
    );
    expect(mismatch.text).not.toContain('fica retido');
  });

  it('says in words what each outcome did to the money, and that nothing is left to do', () => {
    const resolved = (status: MedCaseObject['status'], money_outcome: MedCaseObject['money_outcome']) =>
      medNoticeEmail('med.resolved', medCase({ status, money_outcome }), {
        merchantName: 'Loja',
        mode: 'live',
      }).text;
    expect(resolved('closed', 'refunded_to_merchant')).toMatch(
      /^Decisão a seu favor: o valor de R\$ 100,50 voltou ao seu saldo disponível\./,
    );
    expect(resolved('accepted', 'lost')).toMatch(
      /^Você aceitou o caso: o valor de R\$ 100,50 foi devolvido ao pagador e não volta ao seu saldo\./,
    );
    expect(resolved('rejected', 'lost')).toMatch(
      /^O MED foi mantido: o valor de R\$ 100,50 foi devolvido ao pagador e não volta ao seu saldo\./,
    );
    expect(resolved('closed', 'closed_without_refund')).toMatch(
      /^O caso foi encerrado sem devolução: o valor de R\$ 100,50 não volta ao seu saldo\./,
    );
    for (const text of [resolved('closed', 'refunded_to_merchant'), resolved('rejected', 'lost')]) {
      expect(text).not.toContain('destino final');
      expect(text).toContain('Nenhuma ação é necessária.');
    }
  });

  it('writes HTML that e-mail clients and phones render: viewport, inline styles, wrapping, no script or style', () => {
    const { html } = medNoticeEmail('med_case.created', medCase(), {
      merchantName: `Loja ${'MuitoLongo'.repeat(20)}`,
      mode: 'test',
    });
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(html).toMatch(/<div style="[^"]*max-width:600px[^"]*overflow-wrap:anywhere/);
    expect(html).not.toMatch(/<(script|style|link)\b/i);
    // An amount never breaks between the symbol and the number.
    expect(html).toContain('R$&#160;100,50');
  });

  it('accepts a contact e-mail address, trimmed, and nothing else', () => {
    expect(v.parse(contactEmailSchema, ' ops@acme.com.br ')).toBe('ops@acme.com.br');
    for (const bad of ['', 'ops', 'ops@', '@acme.com', 'a b@acme.com', `${'a'.repeat(250)}@acme.com`])
      expect(v.safeParse(contactEmailSchema, bad).success).toBe(false);
  });
});
