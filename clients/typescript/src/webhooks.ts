// Verifying a webhook delivery (docs/webhooks.md, "Verifying the
// signature"): deliveries are signed as Standard Webhooks describes, so
// the standardwebhooks package checks them (signature, and a timestamp
// within five minutes); we only read the verified body as the client
// reads answers: amounts as strings, date-times as Date.
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { parseJSON } from "./json.js";
import type { components } from "./schema.gen.js";

export { WebhookVerificationError };

/** One event, as the body of a delivery. */
export type WebhookEvent =
  | components["schemas"]["BatchEvent"]
  | components["schemas"]["PaymentEvent"]
  | components["schemas"]["ApprovalEvent"];

/** The headers of a delivery: a plain record, or fetch's Headers. */
export type WebhookHeaders = Record<string, string | string[] | undefined> | Headers;

/**
 * verifyWebhook checks a delivery's signature with the endpoint's secret
 * (`whsec_…`), or with either secret during a rotation's day, and returns
 * its event; it throws WebhookVerificationError when the delivery is not
 * ours or is more than five minutes old or early. body is the raw body,
 * as received, before any JSON parsing.
 */
export function verifyWebhook(secret: string, body: string, headers: WebhookHeaders): WebhookEvent {
  new Webhook(secret).verify(body, plainHeaders(headers), { jsonParse: false });
  return parseJSON(body) as WebhookEvent;
}

function plainHeaders(headers: WebhookHeaders): Record<string, string> {
  const plain: Record<string, string> = {};
  const entries = headers instanceof Headers ? headers.entries() : Object.entries(headers);
  for (const [name, value] of entries) {
    if (value !== undefined) {
      plain[name.toLowerCase()] = Array.isArray(value) ? value.join(" ") : value;
    }
  }
  return plain;
}
