// The exact reading and writing of amounts and date-times (src/json.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseDate, parseJSON, stringifyJSON } from "../src/json.js";

process.env.TZ = "Africa/Nairobi"; // UTC+3: a date-time read as local time would be three hours off

const twoTo53Plus1 = "90071992547409.93"; // 9007199254740993 minor units

test("a JavaScript number cannot hold the amounts these tests use", () => {
  assert.notEqual(String(JSON.parse(twoTo53Plus1)), twoTo53Plus1);
  assert.notEqual(String(0.1 + 0.2), "0.3");
});

test("amounts are read as the JSON number's exact text, other numbers as numbers", () => {
  const read = parseJSON(`{"amount":${twoTo53Plus1},"summary":{"paymentsAmount":150000.01,"paymentsCount":2},"expiresIn":3600}`);
  assert.deepEqual(read, { amount: twoTo53Plus1, summary: { paymentsAmount: "150000.01", paymentsCount: 2 }, expiresIn: 3600 });
});

test("amounts are written as JSON numbers with their exact text", () => {
  const body = { clearExisting: false, payments: [{ msisdn: "254712345678", amount: twoTo53Plus1, referralAmount: "0.10" }] };
  assert.equal(stringifyJSON(body), `{"clearExisting":false,"payments":[{"msisdn":"254712345678","amount":${twoTo53Plus1},"referralAmount":0.10}]}`);
});

test("an amount given as a JavaScript number, or as text that is no plain decimal, is refused", () => {
  assert.throws(() => stringifyJSON({ amount: 150.5 }), TypeError);
  assert.throws(() => stringifyJSON({ amount: "1e3" }), TypeError);
  assert.throws(() => stringifyJSON({ amount: "150,00" }), TypeError);
  assert.equal(stringifyJSON({ approvalThreshold: null }), `{"approvalThreshold":null}`);
});

test("date-times are UTC with Z, with an offset, or in the first version's form without one", () => {
  const at = Date.UTC(2026, 10, 22, 10, 15, 30, 123);
  assert.equal(parseDate("2026-11-22T10:15:30.1234567Z").getTime(), at);
  assert.equal(parseDate("2026-11-22T10:15:30.1234567").getTime(), at);
  assert.equal(parseDate("2026-11-22T13:15:30.1234567+03:00").getTime(), at);
  const read = parseJSON(`{"createdAt":"2026-11-22T10:15:30.1234560","name":"2026-11-22T10:15:30"}`) as { createdAt: Date; name: string };
  assert.equal(read.createdAt.getTime(), at);
  assert.equal(read.name, "2026-11-22T10:15:30", "only date-time properties become Date");
  assert.throws(() => parseDate("yesterday"), SyntaxError);
});

test("a Date in a request goes out as RFC 3339 UTC", () => {
  assert.equal(stringifyJSON({ at: new Date(Date.UTC(2026, 10, 22, 10, 15, 30, 123)) }), `{"at":"2026-11-22T10:15:30.123Z"}`);
});
