// The API's JSON, read and written exactly. Amounts are JSON numbers with
// exact decimals (docs/api.md section 1); a JavaScript number is a binary
// float that cannot hold most of them (150000.01, or any amount past 2^53
// minor units), so they are read and written as the number's text, a
// string. JSON.parse hands a reviver the number already rounded, and the
// reviver's source text (context.source) is not in node 20; lossless-json
// is a small, dependency-free parser that keeps each number's text, so we
// use it rather than a parser of our own. Date-times become Date.
import { isLosslessNumber, LosslessNumber, parse as parseLossless, stringify as stringifyLossless } from "lossless-json";
import { amountFields, dateFields } from "./fields.gen.js";

/** A decimal in plain notation: what the API takes and gives as an amount. */
const decimalText = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/** parseJSON reads an answer or webhook body: amounts as strings, date-times as Date. */
export function parseJSON(text: string): unknown {
  return reviveDates(JSON.parse(exactAmounts(text)));
}

/**
 * exactAmounts rewrites an answer's JSON so that each amount is a JSON
 * string of the number's text, and leaves the rest as it was; a plain
 * JSON.parse of the result (openapi-fetch's) then loses nothing.
 */
export function exactAmounts(text: string): string {
  const value = parseLossless(text, (key, value) =>
    isLosslessNumber(value) && amountFields.has(key) ? value.toString() : value,
  );
  return stringifyLossless(value) ?? "";
}

/** reviveDates turns the date-time properties of a parsed value into Date, in place. */
export function reviveDates<T>(value: T): T {
  if (Array.isArray(value)) {
    value.forEach(reviveDates);
  } else if (value !== null && typeof value === "object" && !(value instanceof Date)) {
    const record = value as Record<string, unknown>;
    for (const [key, field] of Object.entries(record)) {
      if (dateFields.has(key) && typeof field === "string") {
        record[key] = parseDate(field);
      } else {
        reviveDates(field);
      }
    }
  }
  return value;
}

/**
 * parseDate reads the API's date-time: RFC 3339 with `Z` or an offset, or
 * the first version's form without one, which is UTC (docs/api.md
 * section 1). Date keeps milliseconds: the fraction's further digits go.
 */
export function parseDate(text: string): Date {
  const hasOffset = /(Z|[+-][0-9]{2}:[0-9]{2})$/i.test(text);
  const date = new Date(hasOffset ? text : `${text}Z`);
  if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}T/.test(text) || Number.isNaN(date.getTime())) {
    throw new SyntaxError(`not a date-time of the API: ${JSON.stringify(text)}`);
  }
  return date;
}

/**
 * stringifyJSON writes a request body: each amount, given as a string of
 * an exact decimal, goes out as a JSON number with that very text; an
 * amount given as a JavaScript number is refused (it may already have
 * been rounded). Dates go out as RFC 3339 UTC.
 */
export function stringifyJSON(body: unknown): string {
  const text = stringifyLossless(body, function (this: unknown, key: string, value: unknown) {
    const own = key === "" ? value : (this as Record<string, unknown>)[key];
    if (own instanceof Date) {
      return own.toISOString();
    }
    if (amountFields.has(key) && value !== null && value !== undefined) {
      return amount(key, value);
    }
    return value;
  });
  return text ?? "";
}

function amount(key: string, value: unknown): LosslessNumber {
  if (typeof value !== "string") {
    throw new TypeError(`${key}: an amount is a string of an exact decimal, e.g. "150.00", not ${typeof value}`);
  }
  if (!decimalText.test(value)) {
    throw new TypeError(`${key}: ${JSON.stringify(value)} is not a decimal in plain notation`);
  }
  return new LosslessNumber(value);
}
