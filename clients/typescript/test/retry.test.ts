// Retries, against a tiny local fake of the API that answers 503 and 429
// with Retry-After, and 401 for a token it no longer takes.
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { createDisburseClient, DisburseError, unwrap } from "../src/index.js";

type Answer = { status: number; headers?: Record<string, string>; body?: unknown };

/** The fake answers each method and path from a queue, then 200 []; it records every request. */
const queues = new Map<string, Answer[]>();
const seen: { route: string; headers: IncomingMessage["headers"]; at: number }[] = [];
let tokens = 0;
let baseUrl = "";

const fake = createServer((request: IncomingMessage, response: ServerResponse) => {
  const route = `${request.method} ${request.url}`;
  seen.push({ route, headers: request.headers, at: Date.now() });
  request.resume();
  if (route === "POST /authentication/getToken") {
    tokens++;
    return send(response, { status: 200, body: { accessToken: `token-${tokens}`, tokenType: "Bearer", expiresIn: 3600 } });
  }
  send(response, queues.get(route)?.shift() ?? { status: 200, body: [] });
});

function send(response: ServerResponse, answer: Answer) {
  const problem = answer.status >= 400 && answer.status !== 400;
  response.writeHead(answer.status, { "Content-Type": problem ? "application/problem+json" : "application/json", ...answer.headers });
  response.end(JSON.stringify(answer.body ?? {}));
}

const problem = (status: number, code: string) => ({ type: "about:blank", title: code, status, detail: code, code });

before(async () => {
  await new Promise<void>((resolve) => fake.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => fake.close(() => resolve())));

const calls = (route: string) => seen.filter((s) => s.route === route);

test("a GET is sent again after a 503 and a 429, waiting as Retry-After says, not as the backoff", async () => {
  queues.set("GET /batches", [
    { status: 503, headers: { "Retry-After": "1" }, body: problem(503, "unavailable") },
    { status: 429, headers: { "Retry-After": "0" }, body: problem(429, "rate_limited") },
  ]);
  // A backoff of 5 s: only Retry-After makes the calls a second apart.
  const api = createDisburseClient({ baseUrl, apiKey: "dak_fake", backoffMs: 5000 });
  const started = Date.now();
  const batches = unwrap(await api.GET("/batches"));
  const elapsed = Date.now() - started;
  assert.deepEqual(batches, []);
  const tries = calls("GET /batches");
  assert.equal(tries.length, 3);
  assert.ok(tries[1]!.at - tries[0]!.at >= 1000, "waited the second Retry-After asked for");
  assert.ok(elapsed < 4000, `took ${elapsed} ms: Retry-After 0 was not honoured over the backoff`);
});

test("a GET gives up after its retries, with the last answer", async () => {
  seen.length = 0;
  const unavailable = { status: 503, headers: { "Retry-After": "0" }, body: problem(503, "unavailable") };
  queues.set("GET /accounts", [unavailable, unavailable, unavailable, unavailable]);
  const api = createDisburseClient({ baseUrl, apiKey: "dak_fake", retries: 2, backoffMs: 1 });
  const result = await api.GET("/accounts");
  assert.throws(() => unwrap(result), (error: unknown) => error instanceof DisburseError && error.problem?.code === "unavailable");
  assert.equal(calls("GET /accounts").length, 3);
});

test("a POST is sent again after a 503, and after a 409 idempotency_in_progress, with the same key", async () => {
  seen.length = 0;
  queues.set("POST /batches", [
    { status: 503, headers: { "Retry-After": "0" }, body: problem(503, "unavailable") },
    { status: 409, body: problem(409, "idempotency_in_progress") },
    { status: 201, body: { id: "0193a5c4-1f2e-7c3d-9a4b-5c6d7e8f9a0b", name: "n", statusCode: "DRAFT", accountId: "a", createdAt: "2026-11-22T10:15:30.1234560" } },
  ]);
  const api = createDisburseClient({ baseUrl, apiKey: "dak_fake", backoffMs: 1 });
  const batch = unwrap(await api.POST("/batches", { body: { name: "n" } }));
  assert.equal(batch.createdAt.getTime(), Date.UTC(2026, 10, 22, 10, 15, 30, 123));
  const keys = calls("POST /batches").map((s) => s.headers["idempotency-key"]);
  assert.equal(keys.length, 3);
  assert.ok(typeof keys[0] === "string" && keys.every((k) => k === keys[0]), `keys ${keys}`);
});

test("a 409 invalid_state is final", async () => {
  seen.length = 0;
  queues.set("POST /batches/b/cancel", [{ status: 409, body: problem(409, "invalid_state") }]);
  const api = createDisburseClient({ baseUrl, apiKey: "dak_fake", backoffMs: 1 });
  const result = await api.POST("/batches/{id}/cancel", { params: { path: { id: "b" } } });
  assert.equal(result.response.status, 409);
  assert.equal(calls("POST /batches/b/cancel").length, 1);
});

test("a 401 renews the token once and sends the request again", async () => {
  seen.length = 0;
  queues.set("GET /webhooks", [{ status: 401, body: problem(401, "unauthorized") }]);
  const api = createDisburseClient({ baseUrl, apiKey: "dak_fake", backoffMs: 1 });
  unwrap(await api.GET("/webhooks"));
  const tries = calls("GET /webhooks");
  assert.equal(tries.length, 2);
  assert.notEqual(tries[0]!.headers.authorization, tries[1]!.headers.authorization);
  assert.equal(calls("POST /authentication/getToken").length, 2);
});

test("a call's signal ends the wait between tries", async () => {
  seen.length = 0;
  queues.set("GET /approvals", [{ status: 503, headers: { "Retry-After": "30" }, body: problem(503, "unavailable") }]);
  const api = createDisburseClient({ baseUrl, apiKey: "dak_fake" });
  const started = Date.now();
  await assert.rejects(api.GET("/approvals", { signal: AbortSignal.timeout(300) }), (error: Error) => error.name === "TimeoutError");
  assert.ok(Date.now() - started < 5000, "did not wait the 30 s Retry-After asked for");
  assert.equal(calls("GET /approvals").length, 1);
});
