import { describe, expect, it } from 'vitest';
import { classifyTaxId, isValidCnpj, isValidCpf, normalizeTaxId } from '../../shared/domain/tax-id.ts';

/**
 * Second, deliberately different implementation of the check digits, written from the rule text:
 * weights built by counting down from 2 (cycling back to 2 after 9 for CNPJ, no cycle for CPF),
 * character value = code point − 48, DV = 11 − (sum mod 11) or 0 when the remainder is < 2.
 */
function referenceCheckDigits(body: string, kind: 'cpf' | 'cnpj'): string {
  let digits = body;
  for (let round = 0; round < 2; round++) {
    let sum = 0;
    let weight = 2;
    for (let i = digits.length - 1; i >= 0; i--) {
      sum += ((digits.codePointAt(i) ?? 0) - 48) * weight;
      weight = kind === 'cnpj' && weight === 9 ? 2 : weight + 1;
    }
    const remainder = sum % 11;
    digits += String(remainder < 2 ? 0 : 11 - remainder);
  }
  return digits.slice(-2);
}

/** Deterministic pseudo-random generator so the cross-check is reproducible. */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state;
  };
}

const ALNUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const randomBody = (next: () => number, length: number, alphabet: string): string =>
  Array.from({ length }, () => alphabet.charAt(next() % alphabet.length)).join('');

describe('isValidCpf', () => {
  it('accepts known valid CPFs', () => {
    expect(isValidCpf('52998224725')).toBe(true);
    expect(isValidCpf('11144477735')).toBe(true);
    // Remainder < 2 branch: both check digits 0.
    expect(referenceCheckDigits('000000001', 'cpf')).toBe('91');
    expect(isValidCpf('00000000191')).toBe(true);
  });

  it('rejects wrong check digits', () => {
    expect(isValidCpf('52998224724')).toBe(false);
    expect(isValidCpf('52998224735')).toBe(false);
  });

  it('rejects every repeated-digit sequence even though the arithmetic passes', () => {
    for (let d = 0; d <= 9; d++) {
      const value = String(d).repeat(11);
      expect(referenceCheckDigits(value.slice(0, 9), 'cpf')).toBe(value.slice(9));
      expect(isValidCpf(value)).toBe(false);
    }
  });

  it('rejects wrong lengths, letters and formatted input', () => {
    for (const bad of ['', '5299822472', '529982247250', '5299822472A', 'A2998224725', '529.982.247-25']) {
      expect(isValidCpf(bad)).toBe(false);
    }
  });

  it('agrees with the reference implementation on generated CPFs', () => {
    const next = lcg(42);
    for (let i = 0; i < 500; i++) {
      const body = randomBody(next, 9, '0123456789');
      const valid = body + referenceCheckDigits(body, 'cpf');
      if (/^(\d)\1*$/.test(valid)) continue;
      expect(isValidCpf(valid)).toBe(true);
      const wrong = `${valid.slice(0, 10)}${(Number(valid[10]) + 1) % 10}`;
      expect(isValidCpf(wrong)).toBe(false);
    }
  });
});

describe('isValidCnpj', () => {
  it('accepts known valid numeric CNPJs', () => {
    expect(isValidCnpj('11222333000181')).toBe(true);
    expect(isValidCnpj('11444777000161')).toBe(true);
  });

  it('accepts the RFB alphanumeric example 12.ABC.345/01DE-35', () => {
    expect(referenceCheckDigits('12ABC34501DE', 'cnpj')).toBe('35');
    expect(isValidCnpj('12ABC34501DE35')).toBe(true);
  });

  it('rejects wrong check digits (numeric and alphanumeric)', () => {
    expect(isValidCnpj('11222333000182')).toBe(false);
    expect(isValidCnpj('12ABC34501DE36')).toBe(false);
    expect(isValidCnpj('12ABC34501DF35')).toBe(false);
  });

  it('rejects repeated sequences, letters in the check digits, lower case and wrong lengths', () => {
    expect(isValidCnpj('00000000000000')).toBe(false);
    expect(isValidCnpj('AAAAAAAAAAAAAA')).toBe(false);
    expect(isValidCnpj('12ABC34501DE3A')).toBe(false);
    expect(isValidCnpj('12abc34501de35')).toBe(false);
    expect(isValidCnpj('1222333000181')).toBe(false);
    expect(isValidCnpj('112223330001810')).toBe(false);
    expect(isValidCnpj('12.ABC.345/01DE-35')).toBe(false);
    expect(isValidCnpj('12ABC-4501DE35')).toBe(false);
  });

  it('agrees with the reference implementation on generated alphanumeric CNPJs', () => {
    const next = lcg(7);
    for (let i = 0; i < 500; i++) {
      const body = randomBody(next, 12, i % 2 === 0 ? ALNUM : '0123456789');
      const valid = body + referenceCheckDigits(body, 'cnpj');
      expect(isValidCnpj(valid)).toBe(true);
      const wrong = `${valid.slice(0, 13)}${(Number(valid[13]) + 1) % 10}`;
      expect(isValidCnpj(wrong)).toBe(false);
    }
  });
});

describe('normalizeTaxId and classifyTaxId', () => {
  it('strips separators and whitespace and upper-cases', () => {
    expect(normalizeTaxId(' 529.982.247-25 ')).toBe('52998224725');
    expect(normalizeTaxId('12.abc.345/01de-35')).toBe('12ABC34501DE35');
  });

  it('classifies valid CPFs and CNPJs, formatted or not', () => {
    expect(classifyTaxId('529.982.247-25')).toBe('cpf');
    expect(classifyTaxId('52998224725')).toBe('cpf');
    expect(classifyTaxId('11.222.333/0001-81')).toBe('cnpj');
    expect(classifyTaxId('12.ABC.345/01DE-35')).toBe('cnpj');
    expect(classifyTaxId('12.abc.345/01de-35')).toBe('cnpj');
  });

  it('returns undefined for anything invalid', () => {
    for (const bad of ['', '111.111.111-11', '529.982.247-24', '11.222.333/0001-82', 'not a tax id']) {
      expect(classifyTaxId(bad)).toBeUndefined();
    }
  });
});
