// The README's example ("A TypeScript client"), line for line, against
// the real server: a batch paid, one payee at once and one waiting.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createDisburseClient, unwrap } from "../src/index.js";
import { startServer, type TestServer } from "./server.js";

let server: TestServer;
before(async () => {
  server = await startServer();
  await server.admin("POST", `/admin/accounts/${server.accountId}/deposits`, { amount: 1_000_000 });
  process.env.API_KEY = server.apiKey;
});
after(() => server?.close());

test("the README's example pays a batch", async () => {
  const lines: string[] = [];
  const console = { log: (...args: unknown[]) => lines.push(args.join(" ")) };
  const baseUrl = server.url;
  // The README's ten lines, with baseUrl for "http://localhost:8080":
  const api = createDisburseClient({ baseUrl, apiKey: process.env.API_KEY! });
  const batch = unwrap(await api.POST("/batches", { body: { name: "November" } }));
  const id = { path: { id: batch.id } };
  unwrap(await api.POST("/batches/{id}/payments", { params: id, body: { payments: [
    { msisdn: "254712345678", amount: "150000.01" }, // amounts are strings of exact decimals
    { msisdn: "447911123456", amount: "75.50" },
  ] } }));
  unwrap(await api.POST("/batches/{id}/submit", { params: id })); // 200, or 202 when it needs an approval
  const paid = unwrap(await api.GET("/batches/{id}", { params: id }));
  console.log(paid.statusCode, paid.summary.settledAmount, paid.summary.pendingAmount); // OPEN 150000.01 75.50
  assert.deepEqual(lines, ["OPEN 150000.01 75.50"]);
  assert.ok(paid.submittedAt instanceof Date);
});
