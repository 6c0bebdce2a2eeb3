/**
 * The ways asking a model fails, as nodes tell them apart: an answer that does not fit its schema after the repair
 * attempts (ModelOutputError), an endpoint that did not answer within the bounded retries or the run's wall budget —
 * the run is paused, not failed (ModelUnavailableError) — and a request refused for a reason a retry cannot fix
 * (ModelRequestError).
 */
import type { Role } from "./roles";

export class ModelOutputError extends Error {
  override name = "ModelOutputError";
  constructor(
    readonly role: Role,
    readonly schemaName: string,
    detail: string,
  ) {
    super(`the ${role} model's answer does not fit the ${schemaName} schema: ${detail}`);
  }
}

/**
 * A role's endpoint did not answer after the bounded retries (or the run's wall budget left no time for another):
 * the run is paused, not failed — the node ends `interrupted` and the thread resumes once the endpoint is back.
 */
export class ModelUnavailableError extends Error {
  override name = "ModelUnavailableError";
  constructor(
    readonly role: Role,
    readonly model: string,
    readonly endpoint: string,
    readonly attempts: number,
    readonly lastError: string,
    why: string,
  ) {
    super(
      `the ${role} model (${model} at ${endpoint}) failed ${attempts} time${attempts === 1 ? "" : "s"}${why}; last error: ${lastError}`,
    );
  }
}

/** A request the endpoint refused for a reason a retry cannot fix (a 400, a refused key, a model it does not have). */
export class ModelRequestError extends Error {
  override name = "ModelRequestError";
}
