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
    expect(email.subject).toBe(
      'Novo caso MED med_019aa6b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b na cobrança ch_019aa6b2-3c4d-7e5f-8a9b-0c1d2e3f4a5c',
    );
    expect(email.text.split('\n')).toEqual(
      expect.arrayContaining([
        'Caso: med_019aa6b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b',
        'Cobrança: ch_019aa6b2-3c4d-7e5f-8a9b-0c1d2e3f4a5c',
        'Valor: R$ 100,50',
        'Tipo: MED (Mecanismo Especial de Devolução)',
        'Situação: Aberto (open)',
        // 02:59 UTC on 1 July is 23:59 on 30 June in São Paulo.
        'Prazo de resposta: 30/06/2030 23:59',
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
      '[Teste] Caso MED med_019aa6b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b resolvido: Valor devolvido ao seu saldo',
    );
    expect(email.text).toContain('Resultado: Valor devolvido ao seu saldo (refunded_to_merchant)');
    expect(email.text).toContain('Situação: Encerrado (closed)');
    expect(email.text).not.toContain('Prazo');
    expect(email.text).toContain('Ambiente de teste');
  });

  it('accepts a contact e-mail address, trimmed, and nothing else', () => {
    expect(v.parse(contactEmailSchema, ' ops@acme.com.br ')).toBe('ops@acme.com.br');
    for (const bad of ['', 'ops', 'ops@', '@acme.com', 'a b@acme.com', `${'a'.repeat(250)}@acme.com`])
      expect(v.safeParse(contactEmailSchema, bad).success).toBe(false);
  });
});
