// The client: openapi-fetch over the generated types (src/schema.gen.ts),
// sending through src/transport.ts, with date-times read as Date.
import createClient, { type Client, type MaybeOptionalInit, type ParseAsResponse } from "openapi-fetch";
import type {
  ErrorResponse,
  HttpMethod,
  MediaType,
  PathsWithMethod,
  RequiredKeysOf,
  ResponseObjectMap,
  SuccessResponse,
} from "openapi-typescript-helpers";
import { reviveDates, stringifyJSON } from "./json.js";
import type { paths as firstPaths } from "./schema-2026-11-01.gen.js";
import type { paths } from "./schema.gen.js";
import { createTransport } from "./transport.js";

/** The newest API version, the client's default, sent as Disburse-Version (docs/versioning.md). */
export const apiVersion = "2026-12-01";

/** The paths of each version, as generated from its OpenAPI document. */
export interface Versions {
  "2026-12-01": paths;
  "2026-11-01": firstPaths;
}

export interface ClientOptions<Version extends keyof Versions = typeof apiVersion> {
  /** The API's base URL, e.g. https://disburse.example.com. */
  baseUrl: string;
  /** The organisation's API key; exchanged for access tokens, renewed before they expire. */
  apiKey: string;
  /** The version to send in Disburse-Version, whose types the client has; default apiVersion. */
  version?: Version;
  /** Tries after the first, for GETs and for writes (which keep their Idempotency-Key); default 4, 0 for none. */
  retries?: number;
  /** The first wait between tries in milliseconds, doubled each time (a Retry-After wins); default 200. */
  backoffMs?: number;
  /** The longest wait between tries, a Retry-After's included, in milliseconds; default 60000. */
  maxWaitMs?: number;
  /** Sends the requests; default the global fetch. */
  fetch?: typeof globalThis.fetch;
  /** The clock (milliseconds) that decides when a token is due for renewal; default Date.now. */
  now?: () => number;
}

/**
 * DisburseClient is openapi-fetch's client, typed by path, whose answers
 * keep their Date values in their types: openapi-fetch's own answer type
 * passes every object through its Readable helper (for readOnly and
 * writeOnly markers, which this API's document has none of), and that
 * turns a Date's methods into empty objects.
 */
export interface DisburseClient<Paths extends {} = paths> {
  GET: Call<Paths, "get">;
  PUT: Call<Paths, "put">;
  POST: Call<Paths, "post">;
  DELETE: Call<Paths, "delete">;
  /**
   * The openapi-fetch client underneath (middleware with `use`, other
   * methods): it sends through the same transport, so tokens, keys,
   * retries and exact amounts hold, but its date-times stay strings.
   */
  readonly raw: Client<Paths>;
}

type Call<Paths extends {}, Method extends HttpMethod> = <
  Path extends PathsWithMethod<Paths, Method>,
  Init extends MaybeOptionalInit<Paths[Path], Method & keyof Paths[Path]>,
>(
  url: Path,
  ...init: InitParam<Init>
) => Promise<Answer<Paths[Path][Method & keyof Paths[Path]], Init>>;

// As openapi-fetch's own: the options are optional when no parameter or body is required.
type InitParam<Init> =
  RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];

/** Answer is openapi-fetch's FetchResponse without its Readable. */
export type Answer<Operation, Init, Media extends MediaType = MediaType> =
  ResponseObjectMap<Operation> extends infer Responses extends Record<string | number, any>
    ?
        | { data: ParseAsResponse<SuccessResponse<Responses, Media>, Init>; error?: never; response: Response }
        | { data?: never; error: ErrorResponse<Responses, Media>; response: Response }
    : never;

/**
 * createDisburseClient returns an openapi-fetch client of the API: call
 * `client.POST("/batches", { body: { name: "November" } })` and so on,
 * typed by path. Amounts are strings of exact decimals, date-times Date.
 */
export function createDisburseClient<Version extends keyof Versions = typeof apiVersion>(
  options: ClientOptions<Version>,
): DisburseClient<Versions[Version]> {
  type Client = DisburseClient<Versions[Version]>;
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const fetch = createTransport({
    baseUrl,
    apiKey: options.apiKey,
    version: options.version ?? apiVersion,
    retry: {
      retries: options.retries ?? 4,
      backoffMs: options.backoffMs ?? 200,
      maxWaitMs: options.maxWaitMs ?? 60_000,
    },
    fetch: options.fetch ?? globalThis.fetch,
    now: options.now ?? Date.now,
  });
  const raw = createClient<Versions[Version]>({ baseUrl, fetch, bodySerializer: stringifyJSON });
  // Each call's data and error get their date-times as Date: openapi-fetch
  // parses with JSON.parse, which has no way to make one.
  type Result = { data?: unknown; error?: unknown };
  const dated =
    (call: (...args: never[]) => Promise<Result>) =>
    async (...args: never[]): Promise<Result> => {
      const result = await call(...args);
      reviveDates(result.data);
      reviveDates(result.error);
      return result;
    };
  return {
    GET: dated(raw.GET) as Client["GET"],
    PUT: dated(raw.PUT) as Client["PUT"],
    POST: dated(raw.POST) as Client["POST"],
    DELETE: dated(raw.DELETE) as Client["DELETE"],
    raw,
  };
}
