// The client against the real server (test/server.ts): a batch paid with
// amounts that no JavaScript number holds, tokens, idempotency, errors.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createDisburseClient, DisburseError, pages, unwrap } from "../src/index.js";
import { maxAmount, member, nonMember, startServer, type TestServer } from "./server.js";

process.env.TZ = "Africa/Nairobi"; // UTC+3: a date-time read as local time would be three hours off

const big = "90071992547409.93"; // 9007199254740993 minor units, 2^53 + 1: JSON.parse makes it ...409.94

let server: TestServer;

before(async () => {
  server = await startServer();
  // A float for the big payment: a deposit is at most 1,000,000,000,000.00.
  for (let i = 0; i < 91; i++) {
    await server.admin("POST", `/admin/accounts/${server.accountId}/deposits`, { amount: 1_000_000_000_000 });
  }
});

after(() => server?.close());

/** recording wraps fetch, keeping each request's method, path and headers. */
function recording() {
  const requests: { method: string; path: string; headers: Headers }[] = [];
  const fetch = (input: Request | string | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    requests.push({ method: request.method, path: new URL(request.url).pathname, headers: new Headers(request.headers) });
    return globalThis.fetch(request);
  };
  return { requests, fetch: fetch as typeof globalThis.fetch };
}

const near = (date: Date) => Math.abs(date.getTime() - Date.now()) < 60_000;

test("pays a batch in 2026-12-01: amounts round-trip exactly as strings, date-times are Date from the Z form", async () => {
  const { requests, fetch } = recording();
  const api = createDisburseClient({ baseUrl: server.url, apiKey: server.apiKey, fetch });
  const created = await api.POST("/batches", { body: { name: "November" } });
  assert.equal(created.response.headers.get("Disburse-Version"), "2026-12-01", "the server answered in the version sent");
  const batch = unwrap(created);
  assert.ok(batch.createdAt instanceof Date && near(batch.createdAt), `createdAt ${batch.createdAt} is now`);
  const path = { path: { id: batch.id } };
  const added = unwrap(await api.POST("/batches/{id}/payments", {
    params: path, // clearExisting is optional in this version
    body: { payments: [{ msisdn: member, amount: big }, { msisdn: nonMember, amount: "75.50" }] },
  }));
  assert.deepEqual(added.payments?.map((p) => p.amount), [big, "75.50"]);

  const submitted = await api.POST("/batches/{id}/submit", { params: path });
  assert.equal(submitted.response.status, 200);
  const read = unwrap(await api.GET("/batches/{id}", { params: path }));
  assert.equal(read.statusCode, "OPEN");
  assert.deepEqual(
    [read.summary?.paymentsAmount, read.summary?.settledAmount, read.summary?.pendingAmount],
    ["90071992547485.43", big, "75.50"],
  );
  assert.ok(read.submittedAt instanceof Date && near(read.submittedAt));

  // One payment a page: two pages, the last one saying so.
  const payments = [];
  for await (const payment of pages(async (cursor) =>
    unwrap(await api.GET("/batches/{id}/payments", { params: { ...path, query: { cursor, limit: 1 } } })),
  )) {
    payments.push(payment);
  }
  assert.deepEqual(payments.map((p) => [p.msisdn, p.amount, p.statusCode]), [
    [member, big, "SETTLED"],
    [nonMember, "75.50", "PENDING"],
  ]);
  assert.ok(payments.every((p) => p.createdAt instanceof Date && near(p.createdAt)));
  const pageCalls = requests.filter((r) => r.method === "GET" && r.path.endsWith("/payments"));
  assert.equal(pageCalls.length, 2);
  assert.ok(requests.every((r) => r.headers.get("Disburse-Version") === "2026-12-01"));
});

test("pays a batch in the first version, 2026-11-01: its date-times without offset are read as UTC", async () => {
  const api = createDisburseClient({ baseUrl: server.url, apiKey: server.apiKey, version: "2026-11-01" });
  const created = await api.POST("/batches", { body: { name: "November, first version" } });
  assert.equal(created.response.headers.get("Disburse-Version"), "2026-11-01");
  const batch = unwrap(created);
  assert.ok(batch.createdAt instanceof Date && near(batch.createdAt), `createdAt ${batch.createdAt} is now, not three hours off`);
  const path = { path: { id: batch.id } };
  unwrap(await api.POST("/batches/{id}/payments", {
    params: path,
    body: { clearExisting: false, payments: [{ msisdn: member, amount: "150000.01" }] },
  }));
  unwrap(await api.POST("/batches/{id}/submit", { params: path }));
  const payments = unwrap(await api.GET("/batches/{id}/payments", { params: path })); // a bare array in this version
  assert.deepEqual(payments.map((p) => [p.amount, p.statusCode]), [["150000.01", "SETTLED"]]);
  assert.ok(payments[0]!.settledAt instanceof Date && near(payments[0]!.settledAt));
});

test("the API key is exchanged once, and again when a tenth of the token's lifetime is left", async () => {
  const { requests, fetch } = recording();
  let now = Date.now();
  const api = createDisburseClient({ baseUrl: server.url, apiKey: server.apiKey, fetch, now: () => now });
  unwrap(await api.GET("/batches"));
  unwrap(await api.GET("/accounts"));
  const exchanges = () => requests.filter((r) => r.path === "/authentication/getToken").length;
  assert.equal(exchanges(), 1);
  now += 3600_000 * 0.9 - 1000; // the server's tokens live an hour
  unwrap(await api.GET("/batches"));
  assert.equal(exchanges(), 1);
  now += 2000;
  unwrap(await api.GET("/batches"));
  assert.equal(exchanges(), 2);
  const tokens = new Set(requests.filter((r) => r.method === "GET").map((r) => r.headers.get("Authorization")));
  assert.equal(tokens.size, 2, "the renewed token is used");
  assert.ok(requests.every((r) => r.headers.get("Disburse-Version") === "2026-12-01"));
});

test("every POST, PUT and DELETE carries an Idempotency-Key, and no GET does", async () => {
  const { requests, fetch } = recording();
  const api = createDisburseClient({ baseUrl: server.url, apiKey: server.apiKey, fetch });
  const batch = unwrap(await api.POST("/batches", { body: { name: "keys" } }));
  const path = { path: { id: batch.id } };
  unwrap(await api.PUT("/batches/{id}", { params: path, body: { name: "keys, renamed" } }));
  const added = unwrap(await api.POST("/batches/{id}/payments", {
    params: path,
    body: { clearExisting: false, payments: [{ msisdn: member, amount: "1.00" }] },
  }));
  const deleted = await api.DELETE("/payments/{id}", { params: { path: { id: added.payments![0]!.id } } });
  assert.ok(deleted.response.ok, `delete: ${deleted.response.status}`);
  unwrap(await api.GET("/batches/{id}", { params: path }));
  const calls = requests.filter((r) => r.path !== "/authentication/getToken");
  const keys = calls.map((r) => [r.method, r.headers.get("Idempotency-Key") !== null]);
  assert.deepEqual(keys, [["POST", true], ["PUT", true], ["POST", true], ["DELETE", true], ["GET", false]]);
  assert.equal(new Set(calls.map((r) => r.headers.get("Idempotency-Key"))).size, 5, "a key per call");
});

test("a POST whose answer was lost is sent again with the same key, and the server replays it", async () => {
  const seen: { key: string | null; status?: number; body?: string }[] = [];
  let lose = true;
  const fetch = async (input: Request | string | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const response = await globalThis.fetch(request);
    if (request.method !== "POST" || new URL(request.url).pathname !== "/batches") {
      return response;
    }
    seen.push({ key: request.headers.get("Idempotency-Key"), status: response.status, body: await response.clone().text() });
    if (lose) {
      lose = false; // the server committed; the answer never arrives
      throw new TypeError("fetch failed");
    }
    return response;
  };
  const api = createDisburseClient({ baseUrl: server.url, apiKey: server.apiKey, fetch: fetch as typeof globalThis.fetch, backoffMs: 1 });
  const externalId = `lost-answer-${Date.now()}`;
  const result = await api.POST("/batches", { body: { name: "lost answer", externalId } });
  const batch = unwrap(result);
  assert.equal(seen.length, 2);
  assert.ok(seen[0]!.key !== null && seen[0]!.key === seen[1]!.key, "the retry kept the key");
  assert.equal(result.response.headers.get("Idempotent-Replayed"), "true");
  assert.equal(batch.id, (JSON.parse(seen[0]!.body!) as { id: string }).id, "the first answer, replayed");
  const listed = unwrap(await api.GET("/batches", { params: { query: { externalId } } }));
  assert.equal(listed.data.length, 1, "one batch made, not two");
});

test("a caller's own Idempotency-Key replays the first answer", async () => {
  const api = createDisburseClient({ baseUrl: server.url, apiKey: server.apiKey });
  const key = `ts-${Date.now()}`;
  const first = await api.POST("/batches", { params: { header: { "Idempotency-Key": key } }, body: { name: "once" } });
  const again = await api.POST("/batches", { params: { header: { "Idempotency-Key": key } }, body: { name: "once" } });
  assert.equal(unwrap(again).id, unwrap(first).id);
  assert.equal(first.response.headers.get("Idempotent-Replayed"), null);
  assert.equal(again.response.headers.get("Idempotent-Replayed"), "true");
});

test("a 400 lists every failure; a 422's amounts are exact", async () => {
  const api = createDisburseClient({ baseUrl: server.url, apiKey: server.apiKey });
  const batch = unwrap(await api.POST("/batches", { body: { name: "errors" } }));
  const path = { path: { id: batch.id } };
  const bad = await api.POST("/batches/{id}/payments", {
    params: path,
    body: { clearExisting: false, payments: [{ msisdn: member, amount: "10.00" }, { msisdn: "0712345678", amount: "0.50" }] },
  });
  const error = captured(() => unwrap(bad));
  assert.equal(error.status, 400);
  assert.deepEqual(error.failures.map((f) => [f.index, f.fieldName, f.fieldValue]), [[1, "Msisdn", "0712345678"], [1, "Amount", "0.50"]]);

  unwrap(await api.POST("/batches/{id}/payments", { params: path, body: { clearExisting: false, payments: [{ msisdn: member, amount: maxAmount }] } }));
  const submitted = await api.POST("/batches/{id}/submit", { params: path });
  const refused = captured(() => unwrap(submitted));
  assert.equal(refused.status, 422);
  assert.equal(refused.problem?.code, "insufficient_float");
  assert.equal(refused.problem?.required, maxAmount);
  const accounts = unwrap(await api.GET("/accounts"));
  assert.equal(refused.problem?.available, accounts[0]!.balance);
  assert.match(accounts[0]!.balance, /^[0-9]+\.[0-9]{2}$/);
});

function captured(call: () => unknown): DisburseError {
  try {
    call();
  } catch (error) {
    assert.ok(error instanceof DisburseError, `${error}`);
    return error;
  }
  assert.fail("no error");
}
