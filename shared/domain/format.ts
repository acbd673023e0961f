/**
 * How Brazilians read money, instants and tax ids on documents (receipts): pure formatting over
 * the runtime's ICU data. Time zones come from the tz database through `Intl`, never from a
 * hand-written offset: America/Sao_Paulo was UTC−2 in the summers up to 2019 and UTC−3 since.
 */

import { classifyTaxId, normalizeTaxId } from './tax-id.ts';

/** Text placed in HTML (the checkout page, the e-mails): the five characters markup reads, as numeric references. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The zone Brazilian receipts are read in ("horário de Brasília"). */
const BRAZIL_TIME_ZONE = 'America/Sao_Paulo';

const moneyFormats = new Map<string, Intl.NumberFormat>();

/**
 * An amount in minor units as pt-BR currency: `R$ 1.234,56` for BRL. The space after the symbol
 * is a plain space (ICU puts a no-break space there), so the text reads and searches the same
 * wherever it is copied to.
 */
export function formatMoney(minorUnits: number, currency = 'BRL'): string {
  let format = moneyFormats.get(currency);
  if (!format) {
    format = new Intl.NumberFormat('pt-BR', { style: 'currency', currency });
    moneyFormats.set(currency, format);
  }
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return format.format(minorUnits / 10 ** digits).replace(/\s/g, ' ');
}

const dateTimeFormat = new Intl.DateTimeFormat('pt-BR', {
  timeZone: BRAZIL_TIME_ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

/**
 * An ISO instant as `dd/mm/aaaa hh:mm:ss` in America/Sao_Paulo. Built from the parts rather than
 * from `format()`, whose separator between date and time differs between ICU versions.
 */
export function formatBrazilDateTime(iso: string, options: { seconds?: boolean } = {}): string {
  const parts = Object.fromEntries(
    dateTimeFormat.formatToParts(new Date(iso)).map((part) => [part.type, part.value]),
  );
  const time = `${parts.hour}:${parts.minute}${options.seconds === false ? '' : `:${parts.second}`}`;
  return `${parts.day}/${parts.month}/${parts.year} ${time}`;
}

/**
 * A tax id shown without disclosing it: a CPF as `***.982.247-**` (the public-sector masking
 * convention: first three and the check digits hidden), a CNPJ as `**.345.678/****-**`, anything
 * else (a foreign tax id) with all but its last three characters hidden.
 */
export function maskTaxId(document: string): string {
  const id = normalizeTaxId(document);
  const kind = classifyTaxId(id);
  if (kind === 'cpf') return `***.${id.slice(3, 6)}.${id.slice(6, 9)}-**`;
  if (kind === 'cnpj') return `**.${id.slice(2, 5)}.${id.slice(5, 8)}/****-**`;
  const compact = document.replace(/\s/g, '');
  const shown = compact.length > 6 ? compact.slice(-3) : '';
  return `${'*'.repeat(Math.max(compact.length - shown.length, 3))}${shown}`;
}

/**
 * A tax id as it appears in free text, bare or punctuated, standing alone (no letter or digit
 * touching it, so the digit runs inside ids such as end-to-end ids are never read as one): a CPF
 * (`52998224725`, `529.982.247-25`) or a CNPJ (`12345678000195`, `12.ABC.345/01DE-35`). Only a
 * match with valid check digits is a tax id.
 */
const TAX_ID_IN_TEXT =
  /(?<![0-9A-Za-z])(?:\d{3}\.?\d{3}\.?\d{3}-?\d{2}|[0-9A-Z]{2}\.?[0-9A-Z]{3}\.?[0-9A-Z]{3}\/?[0-9A-Z]{4}-?\d{2})(?![0-9A-Za-z])/g;

/** An e-mail address in free text (its domain is kept: it says which provider, not who). */
const EMAIL_IN_TEXT = /[\w.!#$%&'*+=?^`{|}~-]+@((?:[A-Za-z0-9-]+\.)+[A-Za-z0-9-]{2,})/g;

/**
 * Free text (a log line's message, an upstream error's text) with the personal data that can be
 * recognised in it masked: valid CPFs and CNPJs as `maskTaxId` shows them, e-mail addresses as
 * `***@domain`. Names and phone numbers cannot be told from other text: text the service writes
 * itself names ids, never those.
 */
export const maskPersonalData = (text: string): string =>
  text
    .replace(TAX_ID_IN_TEXT, (match) => (classifyTaxId(match) === undefined ? match : maskTaxId(match)))
    .replace(EMAIL_IN_TEXT, (_, domain: string) => `***@${domain}`);

/** A valid CPF or CNPJ in its usual punctuation (`529.982.247-25`, `12.345.678/0001-95`); else as given. */
export function formatTaxId(document: string): string {
  const id = normalizeTaxId(document);
  const kind = classifyTaxId(id);
  if (kind === 'cpf') return `${id.slice(0, 3)}.${id.slice(3, 6)}.${id.slice(6, 9)}-${id.slice(9)}`;
  if (kind === 'cnpj')
    return `${id.slice(0, 2)}.${id.slice(2, 5)}.${id.slice(5, 8)}/${id.slice(8, 12)}-${id.slice(12)}`;
  return document;
}
