// An answer that is not a success, in one of the API's two shapes
// (docs/api.md section 2): every 400 an array of field failures, every
// other error an RFC 9457 problem.
import type { components } from "./schema.gen.js";

export type FieldFailure = components["schemas"]["FieldErrors"][number];
export type Problem = components["schemas"]["Problem"];

/** DisburseError is an answer that is not a success. */
export class DisburseError extends Error {
  /** A 400's failures, every one of the request, by field and payment index. */
  readonly failures: FieldFailure[];
  /** Any other error's problem details, when the body had them. */
  readonly problem: Problem | undefined;

  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(describe(status, body));
    this.name = "DisburseError";
    this.failures = status === 400 && Array.isArray(body) ? (body as FieldFailure[]) : [];
    this.problem = isProblem(body) ? body : undefined;
  }
}

function isProblem(body: unknown): body is Problem {
  return typeof body === "object" && body !== null && typeof (body as { code?: unknown }).code === "string";
}

function describe(status: number, body: unknown): string {
  if (status === 400 && Array.isArray(body)) {
    const parts = (body as FieldFailure[]).map((f) => {
      const at = f.index === undefined ? "" : `payments[${f.index}].`;
      return `${at}${f.fieldName} ${JSON.stringify(f.fieldValue)}: ${f.errorMessage}`;
    });
    return `${status}: ${parts.join("; ")}`;
  }
  if (isProblem(body)) {
    return `${status} ${body.code}: ${body.detail}`;
  }
  return `${status}: ${typeof body === "string" ? body : JSON.stringify(body)}`;
}

/**
 * unwrap returns an openapi-fetch result's data, or throws its error as a
 * DisburseError.
 */
export function unwrap<D, E>(result: { data?: D; error?: E; response: Response }): D {
  if (result.response.ok) {
    return result.data as D;
  }
  throw new DisburseError(result.response.status, result.error);
}
