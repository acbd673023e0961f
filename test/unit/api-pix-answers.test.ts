/**
 * The API Pix adapter reads a PSP's answers as leniently as the standard lets a PSP write them:
 * valid answers unlike the local PSP's (the BCB file's own examples, fields it adds or leaves
 * out, any RFC 3339 offset, amounts with two decimals) read the same. One table per reader.
 */

import { describe, expect, it } from 'vitest';
import { createdCob, devolutionState, receivedPix } from '../../shared/providers/api-pix/adapter.ts';
import { toUtcIso } from '../../shared/providers/api-pix/money.ts';
import type { CobResponse, DevolucaoResponse, PixResponse } from '../../shared/providers/api-pix/wire.ts';

const e2e = 'E12345678202009091221abcdef12345';
const devolucao = {
  id: '000AAA111',
  rtrId: 'D12345678202009091000abcde123456',
  valor: '11.00',
  horario: { solicitacao: '2020-09-10T13:03:33.902Z' },
  status: 'EM_PROCESSAMENTO',
};
const minimal = { endToEndId: e2e, valor: '100.00', horario: '2020-09-10T13:03:33.902Z' };

describe('a Pix (GET /pix/{e2eid}, GET /pix, callbacks)', () => {
  const table: [string, Record<string, unknown>, Record<string, unknown>][] = [
    [
      'the file’s pixResponse1',
      {
        ...minimal,
        txid: 'cd1fe328c875481285a6f233ae41b662',
        infoPagador: 'Reforma da casa',
        devolucoes: [devolucao],
      },
      {
        txid: 'cd1fe328c875481285a6f233ae41b662',
        payerMessage: 'Reforma da casa',
        devolutions: [{ returnId: '000AAA111', amount: 1100, status: 'EM_PROCESSAMENTO' }],
      },
    ],
    ['only the required fields (no txid, infoPagador nor devolucoes)', {}, { devolutions: [] }],
    [
      'fields the adapter does not know (componentesValor of a Pix Saque, chave, pagador, a future one)',
      {
        componentesValor: {
          original: { valor: '80.00' },
          saque: { valor: '20.00', modalidadeAgente: 'AGPSS' },
        },
        chave: 'loja@example.com',
        pagador: { cpf: '***456789**', nome: 'Fulano' },
        campoNovo: { qualquer: true },
        devolucoes: [{ ...devolucao, natureza: 'ORIGINAL', descricao: 'x', campoNovo: 1 }],
      },
      { devolutions: [{ returnId: '000AAA111', amount: 1100, status: 'EM_PROCESSAMENTO' }] },
    ],
    [
      'a devolution ended NAO_REALIZADO with its motivo, and one DEVOLVIDO with its liquidacao',
      {
        devolucoes: [
          { ...devolucao, id: 'a', status: 'NAO_REALIZADO', motivo: 'Negado por timeout' },
          {
            ...devolucao,
            id: 'b',
            status: 'DEVOLVIDO',
            horario: { ...devolucao.horario, liquidacao: '2020-09-10T13:04:00-03:00' },
          },
        ],
      },
      {
        devolutions: [
          { returnId: 'a', amount: 1100, status: 'NAO_REALIZADO', reason: 'Negado por timeout' },
          { returnId: 'b', amount: 1100, status: 'DEVOLVIDO' },
        ],
      },
    ],
    [
      'devolucoes as one bare object, as the file’s callback example pixWebhook1 writes it',
      { devolucoes: devolucao },
      { devolutions: [{ returnId: '000AAA111', amount: 1100, status: 'EM_PROCESSAMENTO' }] },
    ],
    ['valor "0.01"', { valor: '0.01' }, { amount: 1, devolutions: [] }],
    [
      'valor at the standard’s largest, "9999999999.99"',
      { valor: '9999999999.99' },
      { amount: 999999999999, devolutions: [] },
    ],
    [
      'valor with a leading zero, "010.00" (`\\d{1,10}\\.\\d{2}` allows it)',
      { valor: '010.00' },
      { amount: 1000, devolutions: [] },
    ],
  ];

  it.each(table)('%s', (_, fields, expected) => {
    expect(receivedPix({ ...minimal, ...fields } as unknown as PixResponse)).toEqual({
      endToEndId: e2e,
      amount: 10000,
      receivedAt: '2020-09-10T13:03:33.902Z',
      ...expected,
    });
  });

  it.each(['10.5', '10', '1,00', '-1.00'])('refuses valor %j, which no PSP may send', (valor) => {
    expect(() => receivedPix({ ...minimal, valor })).toThrow(/Not an API Pix amount/);
  });
});

describe('horario, any RFC 3339 time, stored in UTC', () => {
  it.each([
    ['2020-09-10T13:03:33.902Z', '2020-09-10T13:03:33.902Z'],
    ['2020-09-10T10:03:33.902-03:00', '2020-09-10T13:03:33.902Z'],
    ['2020-09-10T18:48:33+05:45', '2020-09-10T13:03:33.000Z'],
    ['2020-09-10T13:03:33+00:00', '2020-09-10T13:03:33.000Z'],
    ['2020-09-10T13:03:33.902123456Z', '2020-09-10T13:03:33.902Z'],
    ['2020-09-10t13:03:33z', '2020-09-10T13:03:33.000Z'],
    ['2020-09-10 13:03:33Z', '2020-09-10T13:03:33.000Z'],
    ['2016-12-31T23:59:60Z', '2017-01-01T00:00:00.000Z'],
    ['2016-12-31T21:59:60.5-02:00', '2017-01-01T00:00:00.500Z'],
  ])('%s → %s', (horario, utc) => {
    expect(toUtcIso(horario)).toBe(utc);
    expect(receivedPix({ ...minimal, horario }).receivedAt).toBe(utc);
  });

  it.each(['ontem', '', '2020-09-10T25:00:00Z'])('refuses %j', (horario) => {
    expect(() => toUtcIso(horario)).toThrow(/Not an API Pix time/);
  });
});

describe('a created cob (PUT /cob/{txid})', () => {
  const cob = {
    calendario: { criacao: '2020-09-09T20:15:00.358Z', expiracao: 3600 },
    txid: '7978c0c97ea847e78e8849634473c1f1',
    revisao: 0,
    status: 'ATIVA',
    valor: { original: '37.00', modalidadeAlteracao: 1 },
    chave: '7d9f0335-8dcc-4054-9bf9-0dbd61d36906',
  };
  const location = 'pix.example.com/qr/9d36b84fc70b478fb95c12729b90ca25';
  const table: [string, Record<string, unknown>, Record<string, unknown>][] = [
    [
      'the file’s cobResponse1: location and a loc without txid nor criacao, no pixCopiaECola, infoAdicionais',
      {
        loc: { id: 789, location, tipoCob: 'cob' },
        location,
        devedor: { cnpj: '12345678000195', nome: 'Empresa de Serviços SA' },
        solicitacaoPagador: 'Serviço realizado.',
        infoAdicionais: [{ nome: 'Campo 1', valor: 'Informação Adicional1 do PSP-Recebedor' }],
      },
      { location, expiresAt: '2020-09-09T21:15:00.358Z' },
    ],
    [
      'only loc.location (location is optional in CobGerada)',
      { loc: { id: 1, txid: cob.txid, location, tipoCob: 'cob', criacao: cob.calendario.criacao } },
      { location, expiresAt: '2020-09-09T21:15:00.358Z' },
    ],
    [
      'pixCopiaECola, calendario.criacao in another offset, and fields the adapter does not know',
      {
        location,
        pixCopiaECola: '00020101021226…6304ABCD',
        calendario: { criacao: '2020-09-09T17:15:00.358-03:00', expiracao: 60 },
        campoNovo: [1, 2],
      },
      { location, pixCopiaECola: '00020101021226…6304ABCD', expiresAt: '2020-09-09T20:16:00.358Z' },
    ],
    ['neither location nor calendario.criacao (both optional)', { calendario: { expiracao: 3600 } }, {}],
  ];

  it.each(table)('%s', (_, fields, expected) => {
    expect(createdCob({ ...cob, ...fields } as unknown as CobResponse)).toEqual({
      providerChargeId: cob.txid,
      txid: cob.txid,
      ...expected,
    });
  });
});

describe('a devolution (GET …/devolucao/{id})', () => {
  it.each([
    ['the file’s devolucaoResponse1', {}, { status: 'EM_PROCESSAMENTO' }],
    [
      'the file’s devolucaoResponse2, NAO_REALIZADO with motivo',
      { status: 'NAO_REALIZADO', motivo: 'Negado por timeout' },
      { status: 'NAO_REALIZADO', reason: 'Negado por timeout' },
    ],
    [
      'DEVOLVIDO, natureza and descricao it does not read',
      { status: 'DEVOLVIDO', natureza: 'ORIGINAL', descricao: 'x' },
      { status: 'DEVOLVIDO' },
    ],
  ])('%s', (_, fields, expected) => {
    expect(devolutionState({ ...devolucao, ...fields } as unknown as DevolucaoResponse)).toEqual(expected);
  });
});
