/**
 * MED notices by e-mail: opening and resolving a case e-mails the account's contact address
 * through SES (the `aws-ses-v2-local` emulator of the test runtime); an account without one gets
 * nothing; a replayed stream record sends nothing twice.
 */

import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { handler as outbox } from '../../functions/outbox/index.ts';
import type { MedCaseObject } from '../../shared/domain/med-cases.ts';
import { medNoticeEmail } from '../../shared/domain/med-emails.ts';
import { launchChromium } from '../helpers/browser.ts';
import { merchant, rawId, storedEvents } from '../helpers/charges.ts';
import { emailsTo, newContactEmail, type SentEmail, sentEmails } from '../helpers/email.ts';
import { eventually } from '../helpers/eventually.ts';
import { testEmailReplyTo } from '../helpers/local-env.ts';
import { decideMed, openMed, paidCharge } from '../helpers/med.ts';
import { runtimeLogRecords } from '../helpers/runtime-log.ts';

/** A merchant whose contact e-mail is a fresh address, with a MED case opened on a paid charge. */
async function disputedWithContact(amount: number, body: Record<string, unknown> = {}) {
  const contactEmail = newContactEmail();
  const m = await merchant({ settings: { contactEmail } });
  const chargeId = await paidCharge(m.apikey, amount);
  const opened = await openMed(m.apikey, chargeId, body);
  expect(opened.status).toBe(201);
  return { ...m, contactEmail, chargeId, medCase: opened.body as Record<string, any> };
}

const mentions = (email: SentEmail, text: string) =>
  email.subject.includes(text) ||
  (email.body.text ?? '').includes(text) ||
  (email.body.html ?? '').includes(text);

describe('MED e-mails', () => {
  it('e-mails the contact address when a case opens, naming the case, charge, amount and deadline', async () => {
    const { contactEmail, chargeId, medCase } = await disputedWithContact(123_456, {
      type: 'chargeback',
      response_deadline: '2030-01-15T18:30:00.000Z',
    });

    const [email] = await eventually(async () => {
      const received = await emailsTo(contactEmail);
      expect(received).toHaveLength(1);
      return received;
    });
    expect(email?.from).toBe('Pix <no-reply@pix.localhost>');
    // The sender is a no-reply address: a merchant's reply goes to EMAIL_REPLY_TO.
    expect(email?.replyTo).toEqual([testEmailReplyTo]);
    expect(email?.subject).toBe(
      `[Teste] Novo caso MED de R$ 1.234,56: responda até 15/01/2030 15:30 (Brasília) (cobrança ${chargeId})`,
    );
    const text = email?.body.text ?? '';
    expect(text).toContain(`Caso: ${medCase.id}`);
    expect(text).toContain(`Cobrança: ${chargeId}`);
    expect(text).toContain('Valor: R$ 1.234,56');
    expect(text).toContain('Tipo: Chargeback');
    expect(text).toContain('Situação: Aberto (open)');
    // 18:30 UTC is 15:30 in São Paulo.
    expect(text).toContain('Prazo de resposta: 15/01/2030 15:30 (horário de Brasília)');
    expect(email?.body.html).toMatch(new RegExp(`<td[^>]*>${medCase.id}</td>`));
    expect(email?.body.html).toMatch(/<td[^>]*>R\$&#160;1\.234,56<\/td>/);
  });

  it('says nothing was held when the bank reported an amount other than the charge’s (it awaits review)', async () => {
    const { contactEmail } = await disputedWithContact(7_000, { amount: 6_000 });

    const [email] = await eventually(async () => {
      const received = await emailsTo(contactEmail);
      expect(received).toHaveLength(1);
      return received;
    });
    expect(email?.body.text).toContain(
      'O valor informado pelo banco é diferente do da cobrança: nada foi retido do seu saldo enquanto nossa equipe analisa o caso.',
    );
    expect(email?.body.text).not.toContain('fica retido');
  });

  it('e-mails the money outcome when the case is resolved, and the opening only once', async () => {
    const { apikey, contactEmail, medCase } = await disputedWithContact(5_000);
    expect((await decideMed(apikey, medCase.id, 'merchant_lost')).status).toBe(200);

    const resolved = await eventually(async () => {
      const found = (await emailsTo(contactEmail)).filter((e) => e.subject.includes('resolvido'));
      expect(found).toHaveLength(1);
      return found[0] as SentEmail;
    });
    expect(resolved.subject).toBe(
      `[Teste] Caso MED resolvido: Valor devolvido ao pagador (R$ 50,00, ${medCase.id})`,
    );
    expect(resolved.body.text).toMatch(/^O MED foi mantido: o valor de R\$ 50,00 foi devolvido ao pagador/);
    expect(resolved.body.text).toContain('Resultado: Valor devolvido ao pagador (lost)');
    expect(resolved.body.text).toContain('Situação: Rejeitado (rejected)');
    expect(resolved.body.text).toContain('Valor: R$ 50,00');
    // Exactly one opening notice beside it. Both may come from one stream batch, sent at once,
    // so the order they reach the mailbox in is not fixed.
    const subjects = await eventually(async () => {
      const all = (await emailsTo(contactEmail)).map((e) => e.subject.startsWith('[Teste] Novo caso MED de'));
      expect(all).toHaveLength(2);
      return all;
    });
    expect(subjects.sort()).toEqual([false, true]);
  });

  it('sends nothing for an account without a contact e-mail', async () => {
    const silent = await merchant();
    const silentCase = (await openMed(silent.apikey, await paidCharge(silent.apikey))).body;
    expect(silentCase.id).toMatch(/^med_/);
    // Positive controls, each written after the silent case's event: another account's opening
    // notice, then (a later stream batch, once that one was handled) its resolution notice.
    const { apikey, contactEmail, medCase } = await disputedWithContact(1_000);
    await eventually(async () => expect(await emailsTo(contactEmail)).toHaveLength(1));
    expect((await decideMed(apikey, medCase.id, 'merchant_won')).status).toBe(200);
    await eventually(async () => expect(await emailsTo(contactEmail)).toHaveLength(2));

    expect((await sentEmails()).filter((email) => mentions(email, silentCase.id))).toEqual([]);
    // Not silently: the outbox says why, for each of the case's notices.
    await eventually(() => {
      const skipped = runtimeLogRecords().filter(
        (r) =>
          r.message === 'med notice not e-mailed: the account has no contact e-mail' &&
          r.caseId === silentCase.id,
      );
      expect(skipped.map((r) => r.eventType)).toEqual(['med_case.created']);
    });
  });

  it('sends nothing twice when the stream delivers the event again (a replayed batch)', async () => {
    const { accountId, contactEmail, chargeId } = await disputedWithContact(2_000);
    await eventually(async () => expect(await emailsTo(contactEmail)).toHaveLength(1));
    const [created] = (await storedEvents(accountId, rawId(chargeId))).filter(
      (e) => e.eventType === 'med_case.created',
    );
    const { payload: _parsed, ...item } = created as Record<string, any>;
    const record = (n: number) =>
      ({
        eventID: `replay-${n}`,
        eventName: 'INSERT',
        dynamodb: { NewImage: marshall(item), SequenceNumber: `${n}` },
      }) as DynamoDBRecord;

    // The outbox handler returns only once its e-mails are sent: nothing can arrive later.
    expect(await outbox({ Records: [record(1)] })).toEqual({ batchItemFailures: [] });
    expect(await outbox({ Records: [record(2)] })).toEqual({ batchItemFailures: [] });
    expect(await emailsTo(contactEmail)).toHaveLength(1);
  });

  it('fits a phone and a desktop window, whatever the merchant is called (Chromium)', async () => {
    const medCase: MedCaseObject = {
      id: 'med_019aa6b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b',
      object: 'med_case',
      type: 'med',
      status: 'open',
      amount: 123_456,
      currency: 'BRL',
      charge_id: 'ch_019aa6b2-3c4d-7e5f-8a9b-0c1d2e3f4a5c',
      reason: null,
      response_deadline: '2030-01-15T18:30:00.000Z',
      evidence_requested_at: null,
      appeal_reason: null,
      appealed_at: null,
      evidence_count: 0,
      money_outcome: null,
      opened_at: '2030-01-10T12:00:00.000Z',
      closed_at: null,
      created_at: '2030-01-10T12:00:00.000Z',
      updated_at: '2030-01-10T12:00:00.000Z',
    };
    const merchantName = `Loja <b>Zé</b> "Café" & O'Brien 🍕 ${'MuitoLongo'.repeat(15)}`;
    const browser = await launchChromium();
    try {
      for (const [eventType, state] of [
        ['med_case.created', {}],
        ['med.resolved', { status: 'closed', money_outcome: 'refunded_to_merchant' }],
      ] as const) {
        const { html } = medNoticeEmail(eventType, { ...medCase, ...state }, { merchantName, mode: 'test' });
        for (const width of [390, 800]) {
          const context = await browser.newContext({
            viewport: { width, height: 844 },
            isMobile: width < 500,
            javaScriptEnabled: false,
          });
          const page = await context.newPage();
          await page.setContent(html);
          // No horizontal scrolling, and on a phone no zoomed-out desktop layout (980 px).
          expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(width);
          // The name reads as text, not markup.
          expect(await page.textContent('body')).toContain('Loja <b>Zé</b> "Café" & O\'Brien');
          await context.close();
        }
      }
    } finally {
      await browser.close();
    }
  });
});
