// A real delivery from the server to a local receiver, verified with
// verifyWebhook (standardwebhooks underneath); and deliveries signed by
// the standardwebhooks package itself.
import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { Webhook } from "standardwebhooks";
import { createDisburseClient, unwrap, verifyWebhook, WebhookVerificationError } from "../src/index.js";
import { member, startServer, type TestServer } from "./server.js";

process.env.TZ = "Africa/Nairobi";

type Delivery = { body: string; headers: IncomingHttpHeaders };

let server: TestServer;
const deliveries: Delivery[] = [];
let delivered: (() => void) | undefined;
const receiver = createServer((request, response) => {
  let body = "";
  request.setEncoding("utf8");
  request.on("data", (chunk: string) => (body += chunk));
  request.on("end", () => {
    deliveries.push({ body, headers: request.headers });
    response.writeHead(204).end();
    delivered?.();
  });
});

before(async () => {
  server = await startServer();
  await server.admin("POST", `/admin/accounts/${server.accountId}/deposits`, { amount: 1_000_000 });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
});
after(async () => {
  await server?.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

test("a delivery from the server verifies, and reads with exact amounts and Date", async () => {
  const api = createDisburseClient({ baseUrl: server.url, apiKey: server.apiKey });
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  const endpoint = unwrap(await api.POST("/webhooks", { body: { url, events: ["batch.submitted"], apiVersion: "2026-12-01" } }));
  const secret = endpoint.secret!;
  const arrived = new Promise<void>((resolve, reject) => {
    delivered = resolve;
    setTimeout(() => reject(new Error("no delivery within 20 s")), 20_000).unref();
  });
  const batch = unwrap(await api.POST("/batches", { body: { name: "hooked" } }));
  const path = { path: { id: batch.id } };
  unwrap(await api.POST("/batches/{id}/payments", { params: path, body: { clearExisting: false, payments: [{ msisdn: member, amount: "150000.01" }] } }));
  unwrap(await api.POST("/batches/{id}/submit", { params: path }));
  await arrived;

  const { body, headers } = deliveries[0]!;
  assert.match(body, /"timestamp":"[0-9T:.-]+Z"/, "an endpoint of 2026-12-01 gets that version's date-times");
  const event = verifyWebhook(secret, body, headers);
  assert.equal(event.type, "batch.submitted");
  assert.ok(event.timestamp instanceof Date && Math.abs(event.timestamp.getTime() - Date.now()) < 60_000, `timestamp ${event.timestamp}`);
  assert.ok("summary" in event.data);
  assert.equal(event.data.id, batch.id);
  assert.equal(event.data.summary?.settledAmount, "150000.01");

  const tampered = body.replace("150000.01", "150000.02");
  assert.notEqual(tampered, body);
  assert.throws(() => verifyWebhook(secret, tampered, headers), WebhookVerificationError);
  const other = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
  assert.throws(() => verifyWebhook(other, body, headers), WebhookVerificationError);
});

test("a delivery signed by standardwebhooks verifies with fetch's Headers too; a stale one does not", () => {
  const secret = `whsec_${Buffer.alloc(32, 9).toString("base64")}`;
  const signer = new Webhook(secret);
  const body = `{"type":"payment.settled","timestamp":"2026-12-01T09:00:00.1234567Z","data":{"id":"p","amount":90071992547409.93,"createdAt":"2026-12-01T08:59:59.0000000Z"}}`;
  const sign = (at: Date) => new Headers({ "webhook-id": "msg_1", "webhook-timestamp": String(Math.floor(at.getTime() / 1000)), "webhook-signature": signer.sign("msg_1", at, body) });
  const event = verifyWebhook(secret, body, sign(new Date()));
  assert.equal(event.type, "payment.settled");
  assert.ok("amount" in event.data);
  assert.equal(event.data.amount, "90071992547409.93");
  assert.equal(event.timestamp.toISOString(), "2026-12-01T09:00:00.123Z");
  assert.throws(() => verifyWebhook(secret, body, sign(new Date(Date.now() - 10 * 60_000))), WebhookVerificationError);
});
