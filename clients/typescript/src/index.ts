// The TypeScript client of the Disburse API (docs/typescript-client.md).
export { apiVersion, createDisburseClient, type ClientOptions, type DisburseClient } from "./client.js";
export { DisburseError, unwrap, type FieldFailure, type Problem } from "./errors.js";
export { parseDate, parseJSON, stringifyJSON } from "./json.js";
export type { components, paths } from "./schema.gen.js";
export { verifyWebhook, WebhookVerificationError, type WebhookEvent, type WebhookHeaders } from "./webhooks.js";
