// The TypeScript client of the Disburse API (docs/typescript-client.md).
export { apiVersion, createDisburseClient, type Answer, type ClientOptions, type DisburseClient, type Versions } from "./client.js";
export { DisburseError, unwrap, type FieldFailure, type Problem } from "./errors.js";
export { parseDate, parseJSON, stringifyJSON } from "./json.js";
export { pages, type Page } from "./pages.js";
export type { components, paths } from "./schema.gen.js";
export { verifyWebhook, WebhookVerificationError, type WebhookEvent, type WebhookHeaders } from "./webhooks.js";
